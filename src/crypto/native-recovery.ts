/**
 * Public-key recovery by libsecp256k1: the `secp256k1` package's prebuilt N-API binding (an
 * optional dependency). About 23 times noble's speed on this machine (58 µs against 1.3 ms per
 * recovery), and recovery is most of what a signed order costs the verification pool.
 *
 * Loaded on request, never imported by the SDK (it would make every SDK user depend on a native
 * module). The binding is required through `secp256k1/bindings`, not the package's main entry,
 * which falls back to a JavaScript implementation without a word: a missing or broken binding
 * must be seen, so that `--sig-backend native` can refuse to start and `auto` can say what it
 * chose. test/unit/crypto/native-recovery.test.ts cross-checks it against noble.
 */
import { createRequire } from 'node:module'
import type { ParsedSignature } from './signature.js'
import { firstLineOf } from '../stdx/error-text.js'

/** The part of the binding's API this uses (secp256k1 5.x, lib/index.js). */
interface Secp256k1Binding {
  ecdsaRecover(signature: Uint8Array, recovery: number, digest: Uint8Array, compressed: boolean,
    output?: Uint8Array): Uint8Array
}

export type Recoverer = (digest: Uint8Array, signature: ParsedSignature) => Uint8Array | null

/** The native recoverer, or the reason it cannot load (no binding for this platform, no package). */
export function loadNativeRecoverer(): Recoverer | string {
  let binding: Secp256k1Binding
  try {
    binding = createRequire(import.meta.url)('secp256k1/bindings') as Secp256k1Binding
  } catch (error) {
    return firstLineOf(error)
  }
  return (digest, signature) => {
    const compact = signature.compact ?? compactOf(signature)
    try {
      return binding.ecdsaRecover(compact, signature.recovery, digest, false)
    } catch {
      return null // no point has this x, or the product is infinity: nobody signed it
    }
  }
}

/** r ‖ s as 64 bytes, for a signature not parsed from hex (its bytes are at hand otherwise). */
function compactOf(signature: ParsedSignature): Uint8Array {
  const compact = new Uint8Array(64)
  writeScalar(compact, 0, signature.r)
  writeScalar(compact, 32, signature.s)
  return compact
}

/** A scalar below the group order as 32 big-endian bytes at `offset`. */
function writeScalar(bytes: Uint8Array, offset: number, value: bigint): void {
  let rest = value
  for (let i = offset + 31; i >= offset; i--) {
    bytes[i] = Number(rest & 0xffn)
    rest >>= 8n
  }
}
