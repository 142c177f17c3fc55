/**
 * ECDSA (secp256k1) signatures as Ethereum wallets make them: 65 bytes r ‖ s ‖ v. Malformed
 * signatures are refused before any curve arithmetic (length, zero or out-of-range r and s,
 * high s, an unknown v), then the signer's address is recovered: with @noble/curves, or with
 * libsecp256k1 when the thread installed it (src/crypto/sig-backend.ts).
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { addressOfPublicKey } from './address.js'
import { wordOfBigInt, writeHexBytes } from './hex.js'
import { KNOWN_KEYS_MAX } from '../limits.js'

const N = secp256k1.Point.Fn.ORDER
const HALF_N = N >> 1n

/** Why a signature was refused before any curve work. */
export type SignatureFault =
  | 'signature-length'
  | 'signature-zero'
  | 'signature-range'
  | 'signature-high-s'
  | 'signature-v'

export interface ParsedSignature {
  readonly r: bigint
  readonly s: bigint
  /** 0 or 1 (v - 27). */
  readonly recovery: 0 | 1
  /** r ‖ s, 64 bytes, when parsed from hex: libsecp256k1 takes them as they are. */
  readonly compact?: Uint8Array
}

/** 0x + 65 bytes of hex. */
const SIGNATURE_HEX_LENGTH = 2 + 65 * 2
const N_WORD = wordOfBigInt(N)
const HALF_N_WORD = wordOfBigInt(HALF_N)
/** The v byte, decoded here (one array, reused). */
const vByte = new Uint8Array(1)

/**
 * A signature parsed from hex: its bytes, checked without bigints; r and s become bigints only
 * when asked for (noble and the signer cache ask; libsecp256k1 takes the bytes).
 */
class HexSignature implements ParsedSignature {
  private rValue: bigint | null = null
  private sValue: bigint | null = null

  constructor(readonly compact: Uint8Array, readonly recovery: 0 | 1) {}

  get r(): bigint {
    return (this.rValue ??= bigIntOfWord(this.compact, 0))
  }

  get s(): bigint {
    return (this.sValue ??= bigIntOfWord(this.compact, 32))
  }
}

export function parseSignature(hex: string): ParsedSignature | SignatureFault {
  if (typeof hex !== 'string' || hex.length !== SIGNATURE_HEX_LENGTH || !hex.startsWith('0x')) {
    return 'signature-length'
  }
  const compact = new Uint8Array(64)
  if (!writeHexBytes(compact, 0, hex, 2, 64) || !writeHexBytes(vByte, 0, hex, 130, 1)) return 'signature-length'
  const v = vByte[0]!
  if (isZeroWord(compact, 0) || isZeroWord(compact, 32)) return 'signature-zero'
  if (compareWord(compact, 0, N_WORD) >= 0 || compareWord(compact, 32, N_WORD) >= 0) return 'signature-range'
  // EIP-2: only the low-s form is valid, so a signature cannot be re-shaped into a second one.
  if (compareWord(compact, 32, HALF_N_WORD) > 0) return 'signature-high-s'
  const recovery = v === 27 || v === 0 ? 0 : v === 28 || v === 1 ? 1 : -1
  if (recovery < 0) return 'signature-v'
  return new HexSignature(compact, recovery as 0 | 1)
}

function isZeroWord(bytes: Uint8Array, at: number): boolean {
  for (let i = at; i < at + 32; i++) if (bytes[i] !== 0) return false
  return true
}

/** Negative, zero or positive as the big-endian word at `at` is below, equal to or above `word`. */
function compareWord(bytes: Uint8Array, at: number, word: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    const difference = bytes[at + i]! - word[i]!
    if (difference !== 0) return difference
  }
  return 0
}

function bigIntOfWord(bytes: Uint8Array, at: number): bigint {
  return BigInt('0x' + bytesToHex(bytes.subarray(at, at + 32)))
}

/** noble's recovery: the reference, and what runs when libsecp256k1 is not chosen (sig-backend.ts). */
export function nobleRecoverPublicKey(digest: Uint8Array, signature: ParsedSignature): Uint8Array | null {
  try {
    const sig = new secp256k1.Signature(signature.r, signature.s, signature.recovery)
    return sig.recoverPublicKey(digest).toBytes(false)
  } catch {
    return null
  }
}

let recoverer: (digest: Uint8Array, signature: ParsedSignature) => Uint8Array | null = nobleRecoverPublicKey

/**
 * This thread's recovery from now on (src/crypto/sig-backend.ts installs libsecp256k1's). A
 * setting per thread: the verification pool's threads install theirs from the task.
 */
export function useRecoverer(recover: (digest: Uint8Array, signature: ParsedSignature) => Uint8Array | null): void {
  recoverer = recover
}

/** The uncompressed public key (65 bytes) that made `signature` over `digest`, or null. */
export function recoverPublicKey(digest: Uint8Array, signature: ParsedSignature): Uint8Array | null {
  return recoverer(digest, signature)
}

/** The address that made `signature` over `digest` (lower-case), or null. */
export function recoverAddress(digest: Uint8Array, signature: ParsedSignature): string | null {
  const publicKey = recoverPublicKey(digest, signature)
  return publicKey === null ? null : addressOfPublicKey(publicKey)
}

/**
 * The public key last seen for each of up to KNOWN_KEYS_MAX addresses, each one checked to hash
 * to its address: a signer's next order recovers the same key, and comparing 65 bytes replaces a
 * keccak and a hex encoding. Cleared when full (about 1 MiB), so unknown signers cost what they did.
 */
const knownKeys = new Map<string, Uint8Array>()

/** Whether `signature` over `digest` recovers to `address` (lower-case). */
export function recoversTo(digest: Uint8Array, signature: ParsedSignature, address: string): boolean {
  const publicKey = recoverPublicKey(digest, signature)
  if (publicKey === null) return false
  const known = knownKeys.get(address)
  if (known !== undefined && equalBytes(known, publicKey)) return true
  if (addressOfPublicKey(publicKey) !== address) return false
  if (knownKeys.size >= KNOWN_KEYS_MAX) knownKeys.clear()
  knownKeys.set(address, publicKey.slice())
  return true
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Signs a digest (the SDK's wallets): 0x + r ‖ s ‖ v with v = 27 or 28, low s. */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): string {
  const signature = secp256k1.sign(digest, privateKey, { prehash: false, lowS: true, format: 'recovered' })
  // noble's "recovered" format is recovery ‖ r ‖ s; Ethereum wants r ‖ s ‖ (27 + recovery).
  const recovery = signature[0]!
  return '0x' + bytesToHex(signature.subarray(1)) + (27 + recovery).toString(16)
}
