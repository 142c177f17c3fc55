/**
 * A bounded cache of hot signers' public keys with precomputed multiplication tables, so that a
 * market maker signing thousands of orders is verified without a public-key recovery each time:
 * checking u1·G + u2·P with a precomputed P is about three times cheaper than recovering P.
 * A table costs tens of milliseconds and about a megabyte to build, so only signers seen
 * `hotAfter` times get one; the least recently used are dropped beyond `entriesMax`.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { addressOfPublicKey } from './address.js'
import { recoverPublicKey, type ParsedSignature } from './signature.js'

type Point = InstanceType<typeof secp256k1.Point>

const Point = secp256k1.Point
const Fn = Point.Fn
/** Window of a signer's table: about 1 MiB and 100 ms to build; W = 10 is 3 x the memory for 20 %. */
const WINDOW = 8
/**
 * Window of the generator's table, built once per thread (about a second) the first time a
 * signer turns hot: u1·G then costs about half of what noble's default table gives.
 */
const BASE_WINDOW = 12
let baseTableBuilt = false

function ensureBaseTable(): void {
  if (baseTableBuilt) return
  Point.BASE.precompute(BASE_WINDOW, false)
  baseTableBuilt = true
}

interface Entry {
  uses: number
  point: Point | null
}

export interface SignerCacheOptions {
  readonly entriesMax: number
  readonly hotAfter: number
}

export class SignerCache {
  private readonly entries = new Map<string, Entry>()
  hits = 0
  misses = 0

  constructor(private readonly options: SignerCacheOptions) {}

  /**
   * Whether `signature` over `digest` was made by `address` (lower-case). Uses the signer's
   * precomputed key when it has one; otherwise recovers, and learns the key once it is hot.
   */
  verify(address: string, digest: Uint8Array, signature: ParsedSignature): boolean {
    const entry = this.touch(address)
    if (entry.point !== null) {
      this.hits++
      return verifyWithPoint(entry.point, digest, signature)
    }
    this.misses++
    const publicKey = recoverPublicKey(digest, signature)
    if (publicKey === null || addressOfPublicKey(publicKey) !== address) return false
    entry.uses++
    if (entry.uses >= this.options.hotAfter) {
      ensureBaseTable()
      entry.point = Point.fromBytes(publicKey).precompute(WINDOW, false)
    }
    return true
  }

  get size(): number {
    return this.entries.size
  }

  private touch(address: string): Entry {
    let entry = this.entries.get(address)
    if (entry !== undefined) {
      // Map order is use order: re-insert to mark as most recently used.
      this.entries.delete(address)
    } else {
      entry = { uses: 0, point: null }
      if (this.entries.size >= this.options.entriesMax) this.entries.delete(this.entries.keys().next().value!)
    }
    this.entries.set(address, entry)
    return entry
  }
}

/**
 * ECDSA verification against a known (precomputed) public key: R = u1·G + u2·P with R.x = r
 * (r < n always holds for R.x here: an R.x >= n has probability about 2^-128 and is refused).
 */
export function verifyWithPoint(point: Point, digest: Uint8Array, signature: ParsedSignature): boolean {
  const z = Fn.create(bytesToBigInt(digest))
  const sInverse = Fn.inv(signature.s)
  const u1 = Fn.mul(z, sInverse)
  const u2 = Fn.mul(signature.r, sInverse)
  const R = Point.BASE.multiplyUnsafe(u1).add(point.multiplyUnsafe(u2))
  if (R.is0()) return false
  const { x, y } = R.toAffine()
  // The recovery bit is R's y parity: checking it keeps this path in step with recovery, which
  // would name another signer for a signature whose v byte was flipped.
  return x === signature.r && Number(y & 1n) === signature.recovery
}

function bytesToBigInt(bytes: Uint8Array): bigint {
  let value = 0n
  for (const byte of bytes) value = (value << 8n) | BigInt(byte)
  return value
}
