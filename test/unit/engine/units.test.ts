/**
 * units.ts against exact BigInt formulas (docs/engine.md, "Units", "Derived values", "Holds",
 * "Matching" step 3):
 *
 * - mulPipsDivFloor(a, b) = floor(a * 10_000 / b)
 * - mulPipsDivCeil(a, b)  = ceil(a * 10_000 / b)
 *   for 0 <= a <= ORDER_AMOUNT_MICROS_MAX, 0 < b <= ORDER_AMOUNT_MICROS_MAX
 * - feeOf(rate, pips, lots) = floor(rate * min(pips, 10_000 - pips) * lots / 10_000), 0 at rate 0
 * - feeBoundOf(rate, cost)  = ceil(rate * cost / 10_000), 0 at rate 0
 *
 * Edge cases first (each expected value worked out by hand in a comment and also checked against
 * the BigInt formula), then 100 000 seeded random inputs per function. Set UNITS_SEED to replay a
 * run; the seed is printed with t.comment.
 */
import t from 'tap'
import { feeBoundOf, feeOf, mulPipsDivCeil, mulPipsDivFloor } from '../../../src/engine/units.js'
import { FEE_RATE_BPS_MAX, ORDER_AMOUNT_MICROS_MAX, ORDER_LOTS_MAX, PIPS_PER_UNIT } from '../../../src/engine/limits.js'

const N = 100_000
const MAX = ORDER_AMOUNT_MICROS_MAX // 10^13

// ---- Exact reference formulas in BigInt ----------------------------------------------------

function floorDiv(n: bigint, d: bigint): bigint {
  return n / d // n, d >= 0: BigInt division truncates = floors
}
function ceilDiv(n: bigint, d: bigint): bigint {
  return (n + d - 1n) / d
}
function refFloor(a: number, b: number): bigint {
  return floorDiv(BigInt(a) * 10_000n, BigInt(b))
}
function refCeil(a: number, b: number): bigint {
  return ceilDiv(BigInt(a) * 10_000n, BigInt(b))
}
function refFee(rate: number, pips: number, lots: number): bigint {
  const m = BigInt(Math.min(pips, 10_000 - pips))
  return floorDiv(BigInt(rate) * m * BigInt(lots), 10_000n)
}
function refFeeBound(rate: number, cost: number): bigint {
  return ceilDiv(BigInt(rate) * BigInt(cost), 10_000n)
}

// ---- A tiny seeded PRNG (mulberry32) -------------------------------------------------------

function mulberry32(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let z = s
    z = Math.imul(z ^ (z >>> 15), z | 1)
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
    return (z ^ (z >>> 14)) >>> 0
  }
}

class Rng {
  private readonly next: () => number
  constructor(seed: number) {
    this.next = mulberry32(seed)
  }
  /** A uniform integer in [0, 2^53). */
  u53(): number {
    const hi = this.next() >>> 11 // 21 bits
    const lo = this.next() // 32 bits
    return hi * 2 ** 32 + lo
  }
  /** A uniform integer in [lo, hi] (hi - lo < 2^53). */
  int(lo: number, hi: number): number {
    const span = hi - lo + 1
    // Rejection sampling keeps it exactly uniform.
    const limit = Math.floor(2 ** 53 / span) * span
    for (;;) {
      const x = this.u53()
      if (x < limit) return lo + (x % span)
    }
  }
  /** An integer in [lo, hi] whose order of magnitude is uniform: covers small and huge values. */
  logInt(lo: number, hi: number): number {
    const digits = this.int(0, Math.max(0, Math.ceil(Math.log10(hi + 1))))
    const top = Math.min(hi, 10 ** digits)
    return this.int(lo, Math.max(lo, top))
  }
  /** Full-range uniform half the time, magnitude-uniform the other half. */
  mixed(lo: number, hi: number): number {
    return this.int(0, 1) === 0 ? this.int(lo, hi) : this.logInt(lo, hi)
  }
}

const seedFromEnv = process.env.UNITS_SEED
const SEED = seedFromEnv !== undefined ? Number(seedFromEnv) >>> 0 : (Date.now() ^ (process.pid << 8)) >>> 0

// ---- mulPipsDivFloor / mulPipsDivCeil ------------------------------------------------------

t.test('mulPipsDivFloor and mulPipsDivCeil: edge cases', (t) => {
  // [a, b, floor(a*10^4/b), ceil(a*10^4/b)] computed by hand; the contract is a limit ratio
  // below 1 (0 <= a < b), so every quotient is below 10 000 pips.
  const cases: [number, number, number, number][] = [
    [0, 1, 0, 0], // 0 / 1
    [0, MAX, 0, 0], // 0 / 10^13
    [1, 3, 3_333, 3_334], // 10^4 / 3 = 3333.33..
    [2, 3, 6_666, 6_667], // 2*10^4 / 3 = 6666.66..
    [1, 10_000, 1, 1], // exactly 1
    [1, 10_001, 0, 1], // 10^4 / 10001 = 0.9999..
    [1, MAX, 0, 1], // 10^4 / 10^13 = 10^-9
    [MAX - 1, MAX, 9_999, 10_000], // (10^13 - 1) * 10^4 / 10^13 = 9999.999999999
    [1, MAX - 1, 0, 1],
    // The largest immediate BUY at 0.9999: ma = 9999 * 10^9, ta = 10^13 -> 9999 exactly.
    [9_999_000_000_000, MAX, 9_999, 9_999],
    // One micro more of budget: 9999.000000001 -> floor 9999, ceil 10000.
    [9_999_000_000_001, MAX, 9_999, 10_000],
    // 0.0001 of the largest: 10^9 * 10^4 / 10^13 = 1.
    [1_000_000_000, MAX, 1, 1],
    [999_999_999, MAX, 0, 1], // 0.9999999 pip
    // A market buy "for $X": 5 USDC for 7 shares: 5e6 * 1e4 / 7e6 = 7142.857..
    [5_000_000, 7_000_000, 7_142, 7_143],
    // Products above 2^53 with a fractional part: (10^13 - 7) * 10^4 / (10^13 - 3)
    //   = 10^4 * (1 - 4 / (10^13 - 3)) = 9999.999999996.. -> 9999 / 10000.
    [MAX - 7, MAX - 3, 9_999, 10_000],
  ]
  for (const [a, b, floor, ceil] of cases) {
    // The hand value agrees with the BigInt formula (guards the hand arithmetic itself).
    t.equal(BigInt(floor), refFloor(a, b), `hand floor(${a}*1e4/${b})`)
    t.equal(BigInt(ceil), refCeil(a, b), `hand ceil(${a}*1e4/${b})`)
    t.equal(mulPipsDivFloor(a, b), floor, `floor(${a}*1e4/${b}) = ${floor}`)
    t.equal(mulPipsDivCeil(a, b), ceil, `ceil(${a}*1e4/${b}) = ${ceil}`)
  }
  t.end()
})

t.test('mulPipsDivFloor and mulPipsDivCeil: out-of-range arguments are refused', (t) => {
  // 0 <= a < b <= 10^13 (units.ts): anything else asserts.
  t.throws(() => mulPipsDivFloor(1, 0), 'b = 0')
  t.throws(() => mulPipsDivFloor(MAX + 1, MAX + 2), 'a above ORDER_AMOUNT_MICROS_MAX')
  t.throws(() => mulPipsDivCeil(1, MAX + 1), 'b above ORDER_AMOUNT_MICROS_MAX')
  t.throws(() => mulPipsDivCeil(-1, 1), 'a negative')
  t.throws(() => mulPipsDivCeil(0.5, 1), 'a not an integer')
  t.throws(() => mulPipsDivFloor(5, 5), 'a ratio of 1')
  t.throws(() => mulPipsDivFloor(MAX, 1), 'a ratio above 1')
  t.end()
})

t.test(`mulPipsDivFloor and mulPipsDivCeil: ${N} seeded random inputs`, (t) => {
  t.comment(`seed ${SEED} (replay with UNITS_SEED=${SEED})`)
  const rng = new Rng(SEED ^ 0x11111111)
  let failures = 0
  for (let i = 0; i < N && failures < 10; i++) {
    let a: number
    let b: number
    switch (i % 3) {
      case 0: // any ratio below 1 over the full range
        b = rng.mixed(1, MAX)
        a = rng.mixed(0, b - 1)
        break
      case 1: // an immediate BUY: budget a < shares b, so the quotient is a price below 1
        b = rng.mixed(2, MAX)
        a = rng.int(1, b - 1)
        break
      default: // an immediate SELL: USDC a < shares b, a near b
        b = rng.mixed(2, MAX)
        a = b - rng.logInt(1, b - 1)
        break
    }
    const f = refFloor(a, b)
    const c = refCeil(a, b)
    const gotF = mulPipsDivFloor(a, b)
    const gotC = mulPipsDivCeil(a, b)
    if (BigInt(gotF) !== f || BigInt(gotC) !== c) {
      failures++
      t.fail(`a=${a} b=${b}: floor ${gotF} want ${f}, ceil ${gotC} want ${c}`)
    }
  }
  t.equal(failures, 0, 'every random input agrees with the BigInt formula')
  t.end()
})

// ---- feeOf ---------------------------------------------------------------------------------

t.test('feeOf: edge cases', (t) => {
  // [rate, pips, lots, fee] with fee = floor(rate * min(pips, 10000 - pips) * lots / 10000).
  const cases: [number, number, number, number][] = [
    [0, 5_000, 1_000, 0], // rate 0: no fee
    [0, 1, ORDER_LOTS_MAX, 0],
    [1, 1, 1, 0], // 1*1*1/1e4 = 0.0001 -> 0
    [1, 5_000, 1, 0], // 5000/1e4 = 0.5 -> 0
    [1, 5_000, 2, 1], // 10000/1e4 = 1
    [1_000, 5_000, 1, 500], // 1000*5000/1e4 = 500
    [1_000, 1, 1, 0], // 1000/1e4 = 0.1 -> 0
    [1_000, 9_999, 1, 0], // min(9999, 1) = 1 -> 0.1 -> 0
    [1_000, 9_999, 10, 1], // 1000*1*10/1e4 = 1
    [100, 3_000, 7, 210], // 100*3000*7/1e4 = 210
    [100, 7_000, 7, 210], // min(7000, 3000) = 3000: symmetric
    // 37*4321 = 159_877; *9999 = 1_598_770_000 - 159_877 = 1_598_610_123; /1e4 = 159_861.0123
    [37, 4_321, 9_999, 159_861],
    // Largest fill: 10^9 lots at 0.5, rate 1000: 1000*5000*10^9/10^4 = 5*10^11.
    [FEE_RATE_BPS_MAX, 5_000, ORDER_LOTS_MAX, 500_000_000_000],
    // 10^9 - 1 lots at 0.4999: 1000*4999*(10^9 - 1)/10^4 = 4999*(10^9 - 1)/10
    //   = (4_999_000_000_000 - 4_999)/10 = 4_998_999_995_001/10 = 499_899_999_500.1 -> 499_899_999_500.
    [FEE_RATE_BPS_MAX, 4_999, ORDER_LOTS_MAX - 1, 499_899_999_500],
    // At the extreme prices: m = 1 pip: 1000*1*10^9/10^4 = 10^8.
    [FEE_RATE_BPS_MAX, 9_999, ORDER_LOTS_MAX, 100_000_000],
    [FEE_RATE_BPS_MAX, 1, ORDER_LOTS_MAX, 100_000_000],
    // lots 9999 (no high part): 1000*5000*9999/1e4 = 4_999_500.
    [FEE_RATE_BPS_MAX, 5_000, 9_999, 4_999_500],
    // lots 10000 (high part 1, low 0): 1000*5000 = 5_000_000.
    [FEE_RATE_BPS_MAX, 5_000, 10_000, 5_000_000],
    // lots 10001, rate 3, pips 3: 3*3*10001/1e4 = 9.0009 -> 9.
    [3, 3, 10_001, 9],
    [1, 1, 0, 0], // no lots, no fee
  ]
  for (const [rate, pips, lots, fee] of cases) {
    t.equal(BigInt(fee), refFee(rate, pips, lots), `hand fee(${rate}, ${pips}, ${lots})`)
    t.equal(feeOf(rate, pips, lots), fee, `feeOf(${rate}, ${pips}, ${lots}) = ${fee}`)
  }
  t.end()
})

t.test(`feeOf: ${N} seeded random inputs`, (t) => {
  t.comment(`seed ${SEED} (replay with UNITS_SEED=${SEED})`)
  const rng = new Rng(SEED ^ 0x22222222)
  let failures = 0
  for (let i = 0; i < N && failures < 10; i++) {
    const rate = i % 7 === 0 ? FEE_RATE_BPS_MAX : rng.int(0, FEE_RATE_BPS_MAX)
    const pips = rng.int(1, PIPS_PER_UNIT - 1)
    const lots = rng.mixed(0, ORDER_LOTS_MAX)
    const want = refFee(rate, pips, lots)
    const got = feeOf(rate, pips, lots)
    if (BigInt(got) !== want) {
      failures++
      t.fail(`rate=${rate} pips=${pips} lots=${lots}: got ${got} want ${want}`)
    }
  }
  t.equal(failures, 0, 'every random input agrees with the BigInt formula')
  t.end()
})

// ---- feeBoundOf ----------------------------------------------------------------------------

t.test('feeBoundOf: edge cases', (t) => {
  // [rate, cost, bound] with bound = ceil(rate * cost / 10000).
  const cases: [number, number, number][] = [
    [0, 0, 0],
    [0, 123_456_789, 0], // rate 0: no bound
    [1, 0, 0],
    [1, 1, 1], // 0.0001 -> 1
    [1, 10_000, 1], // exactly 1
    [1, 10_001, 2], // 1.0001 -> 2
    [1_000, 1, 1], // 0.1 -> 1
    [1_000, 10, 1], // exactly 1
    [1_000, 11, 2], // 1.1 -> 2
    [100, 4_000_000, 40_000], // 100*4e6/1e4 = 40000
    [37, 1_234_567, 4_568], // 37*1234567 = 45678979; /1e4 = 4567.8979 -> 4568
    // Largest resting BUY at 0.9999: cost 9999 * 10^9 = 9.999e12; 1000 * 9.999e12 / 1e4 = 9.999e11.
    [FEE_RATE_BPS_MAX, 9_999_000_000_000, 999_900_000_000],
    // Largest budget: 10^13 - 1: 1000 * (10^13 - 1) / 10^4 = 10^12 - 0.1 -> 10^12.
    [FEE_RATE_BPS_MAX, ORDER_AMOUNT_MICROS_MAX - 1, 1_000_000_000_000],
    // The largest safe cost: 1000 * (2^53 - 1) / 10^4 = 900719925474099.1 -> 900719925474100.
    [FEE_RATE_BPS_MAX, Number.MAX_SAFE_INTEGER, 900_719_925_474_100],
  ]
  for (const [rate, cost, bound] of cases) {
    t.equal(BigInt(bound), refFeeBound(rate, cost), `hand bound(${rate}, ${cost})`)
    t.equal(feeBoundOf(rate, cost), bound, `feeBoundOf(${rate}, ${cost}) = ${bound}`)
  }
  t.end()
})

t.test('feeBoundOf is never below the fee of any split of the cost into fills', (t) => {
  // A fill of x lots at price p costs p*x and owes floor(rate*min(p, 1-p)*x/1e4) <= rate*p*x/1e4;
  // summing over fills is at most rate*cost/1e4 <= ceil(rate*cost/1e4).
  const rng = new Rng(SEED ^ 0x44444444)
  let failures = 0
  for (let i = 0; i < 2_000; i++) {
    const rate = rng.int(1, FEE_RATE_BPS_MAX)
    let cost = 0
    let fees = 0
    const fills = rng.int(1, 20)
    for (let k = 0; k < fills; k++) {
      const pips = rng.int(1, PIPS_PER_UNIT - 1)
      const lots = rng.logInt(1, 100_000_000)
      cost += pips * lots
      fees += feeOf(rate, pips, lots)
    }
    if (fees > feeBoundOf(rate, cost)) failures++
  }
  t.equal(failures, 0, 'fees of fills stay within the bound of their total cost')
  t.end()
})

t.test(`feeBoundOf: ${N} seeded random inputs`, (t) => {
  t.comment(`seed ${SEED} (replay with UNITS_SEED=${SEED})`)
  const rng = new Rng(SEED ^ 0x33333333)
  let failures = 0
  for (let i = 0; i < N && failures < 10; i++) {
    const rate = i % 7 === 0 ? FEE_RATE_BPS_MAX : rng.int(0, FEE_RATE_BPS_MAX)
    // The engine's costs are at most 10^13; the helper accepts any safe integer.
    const cost = i % 2 === 0 ? rng.mixed(0, ORDER_AMOUNT_MICROS_MAX) : rng.mixed(0, Number.MAX_SAFE_INTEGER)
    const want = refFeeBound(rate, cost)
    const got = feeBoundOf(rate, cost)
    if (BigInt(got) !== want) {
      failures++
      t.fail(`rate=${rate} cost=${cost}: got ${got} want ${want}`)
    }
  }
  t.equal(failures, 0, 'every random input agrees with the BigInt formula')
  t.end()
})
