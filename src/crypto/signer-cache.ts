/**
 * A bounded cache of hot signers' public keys with precomputed multiplication tables, so that a
 * market maker signing thousands of orders is verified without a public-key recovery each time:
 * checking u1·G + u2·P with a precomputed P is about three times cheaper than recovering P.
 * A table costs tens of milliseconds and about a megabyte to build, so only signers seen
 * `hotAfter` times get one, at most `entriesMax` of them, admitted by use counts (below).
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { addressOfPublicKey } from './address.js'
import { recoverPublicKey, type ParsedSignature } from './signature.js'
import { SIGNER_COUNTED_MAX, SIGNER_TABLE_BUILDS_PER_SECOND } from '../limits.js'
import { refilledTokens } from '../stdx/token-bucket.js'

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

interface Table {
  readonly point: Point
  /** The signer's use count when the table was last used (admission compares it). */
  uses: number
}

export interface SignerCacheOptions {
  /** Tables kept (about 1 MiB each). */
  readonly entriesMax: number
  /** Uses before a signer may get a table. */
  readonly hotAfter: number
  /** Signers whose uses are counted; past it every count is halved and the zeros forgotten. */
  readonly countedMax?: number
  /** Table builds allowed per second (each costs tens of milliseconds of this thread). */
  readonly buildsPerSecond?: number
  /** Monotonic milliseconds (tests give their own). */
  readonly nowMs?: () => number
}

/**
 * Admission (TinyLFU's idea): uses are counted per signer in a bounded table that survives the
 * eviction of a signer's precomputed key, and ages by halving. A signer gets a table only when it
 * is hot and, once the tables are full, used more than the least used signer holding one; and
 * table builds are rate-limited. So a flood of new signers, each used a few times, neither evicts
 * the market makers' tables nor spends the thread building tables it throws away (issue 14,
 * finding 2: the least-recently-used cache rebuilt a table for each of them).
 */
export class SignerCache {
  private readonly uses = new Map<string, number>()
  private readonly tables = new Map<string, Table>()
  private readonly countedMax: number
  private readonly buildsPerSecond: number
  private readonly nowMs: () => number
  private buildTokens: number
  private buildTokensMs: number
  hits = 0
  misses = 0
  builds = 0

  constructor(private readonly options: SignerCacheOptions) {
    this.countedMax = options.countedMax ?? SIGNER_COUNTED_MAX
    this.buildsPerSecond = options.buildsPerSecond ?? SIGNER_TABLE_BUILDS_PER_SECOND
    this.nowMs = options.nowMs ?? (() => performance.now())
    this.buildTokens = this.buildsPerSecond
    this.buildTokensMs = this.nowMs()
  }

  /**
   * Whether `signature` over `digest` was made by `address` (lower-case). Uses the signer's
   * precomputed key when it has one; otherwise recovers, and builds its table when admitted.
   */
  verify(address: string, digest: Uint8Array, signature: ParsedSignature): boolean {
    const uses = this.count(address)
    const table = this.tables.get(address)
    if (table !== undefined) {
      this.hits++
      table.uses = uses
      return verifyWithPoint(table.point, digest, signature)
    }
    this.misses++
    const publicKey = recoverPublicKey(digest, signature)
    if (publicKey === null || addressOfPublicKey(publicKey) !== address) return false
    if (uses >= this.options.hotAfter && this.admit(uses) && this.takeBuild()) {
      ensureBaseTable()
      this.tables.set(address, { point: Point.fromBytes(publicKey).precompute(WINDOW, false), uses })
      this.builds++
    }
    return true
  }

  /** Tables held. */
  get size(): number {
    return this.tables.size
  }

  /** Signers whose uses are counted. */
  get counted(): number {
    return this.uses.size
  }

  private count(address: string): number {
    const uses = (this.uses.get(address) ?? 0) + 1
    if (!this.uses.has(address) && this.uses.size >= this.countedMax) this.age()
    this.uses.set(address, uses)
    return uses
  }

  /** Halves every count and forgets the zeros: old popularity fades, and the table stays bounded. */
  private age(): void {
    for (const [address, uses] of this.uses) {
      if (uses < 2 && !this.tables.has(address)) this.uses.delete(address)
      else this.uses.set(address, Math.max(1, uses >> 1))
    }
    for (const table of this.tables.values()) table.uses = Math.max(1, table.uses >> 1)
  }

  /** Room for a table, made by evicting the least used one if it is used less than `uses`. */
  private admit(uses: number): boolean {
    if (this.tables.size < this.options.entriesMax) return true
    let victim: string | null = null
    let victimUses = Infinity
    for (const [address, table] of this.tables) {
      if (table.uses < victimUses) [victim, victimUses] = [address, table.uses]
    }
    if (victim === null || victimUses >= uses) return false
    this.tables.delete(victim)
    return true
  }

  /** A token bucket of builds, refilled at buildsPerSecond, holding at most one second's worth. */
  private takeBuild(): boolean {
    const nowMs = this.nowMs()
    this.buildTokens = refilledTokens(this.buildTokens, this.buildsPerSecond, 1000, this.buildTokensMs, nowMs)
    this.buildTokensMs = nowMs
    if (this.buildTokens < 1) return false
    this.buildTokens -= 1
    return true
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
