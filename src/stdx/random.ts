/**
 * A small seeded PRNG (mulberry32: 32-bit state, integer mixing only), so what draws from it is a
 * pure function of its seed: the simulation's workloads (a failing run must be replayable from the
 * seed printed by the test) and the demo trader's choices (src/demo/trader.ts). Math.random
 * is never used.
 */

const TWO_32 = 4_294_967_296

export class Random {
  private state: number

  constructor(seed: number) {
    // Any number is accepted; only its low 32 bits matter.
    this.state = seed >>> 0
  }

  /** The next 32-bit unsigned integer. */
  u32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }

  /** An integer in [lo, hi], both inclusive; exact for ranges up to 2^53. */
  int(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi < lo) {
      throw new RangeError(`Random.int: bad range [${lo}, ${hi}]`)
    }
    const span = hi - lo + 1
    if (span <= TWO_32) return lo + Math.floor((this.u32() / TWO_32) * span)
    // Wide ranges: 53 random bits, scaled (the tiny bias is irrelevant for a workload).
    const bits = (this.u32() >>> 11) * TWO_32 + this.u32()
    return lo + Math.floor((bits / 2 ** 53) * span)
  }

  /** True with probability p (0..1). */
  chance(p: number): boolean {
    return this.u32() < p * TWO_32
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Random.pick: empty array')
    return items[this.int(0, items.length - 1)] as T
  }

  /** Picks a key with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const keys = Object.keys(weights) as K[]
    const total = keys.reduce((sum, k) => sum + weights[k], 0)
    let r = (this.u32() / TWO_32) * total
    for (const k of keys) {
      r -= weights[k]
      if (r < 0) return k
    }
    return keys[keys.length - 1] as K
  }

  /** `n` random bytes as lower-case hex. */
  hex(bytes: number): string {
    const words: string[] = []
    for (let i = 0; i < bytes; i += 4) words.push(this.u32().toString(16).padStart(8, '0'))
    return words.join('').slice(0, bytes * 2)
  }

  /** A decimal string of `digits` digits without a leading zero (a uint256-like token id). */
  decimal(digits: number): string {
    const out = [this.int(1, 9)]
    while (out.length < digits) out.push(this.int(0, 9))
    return out.join('')
  }
}
