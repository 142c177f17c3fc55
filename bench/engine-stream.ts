/**
 * The seeded command stream of workload 1 (../shared/spec/benchmarks.md), independent of any
 * engine: 70 % limit orders around a mid that random-walks one tick per 100 commands on a 0.01
 * grid, 20 % cancels of a uniformly random resting order, 10 % marketable immediate orders. It is
 * produced in Yes-space (bids and asks) by running a tiny integer-tick price-time book, so that
 * every cancel hits a live order and the final book is known; adapters turn it into engine
 * commands (optionally expressing orders on the No token, which makes mint and merge matches
 * happen) and into nodejs-order-book calls.
 */

/** mulberry32: a small, fast, seeded 32-bit PRNG (the stream must not depend on Math.random). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export type StreamItem =
  | { readonly kind: 'limit'; readonly id: number; readonly isBid: boolean; readonly tick: number; readonly size: number; readonly trader: number }
  | { readonly kind: 'cancel'; readonly id: number; readonly trader: number }
  /** Marketable and immediate: fills what it can up to `size`, the rest is dropped. */
  | { readonly kind: 'ioc'; readonly id: number; readonly isBid: boolean; readonly tick: number; readonly size: number; readonly trader: number
      /** What the fills cost in Yes ticks x shares, and in No ticks x shares (for budgets). */
      readonly yesCost: number; readonly noCost: number; readonly filled: number }

export interface StreamOptions {
  readonly seed: number
  readonly commands: number
  /** Largest marketable size: smaller keeps more orders resting (the "deep" profile). */
  readonly iocSizeMax: number
  /** Traders per side; bids come from traders [0, n), asks from [n, 2n), so nobody self-trades. */
  readonly tradersPerSide: number
}

export interface Stream {
  readonly items: StreamItem[]
  /** The final book in Yes-space: [tick, total size] per level, bids and asks, best first. */
  readonly finalBids: [number, number][]
  readonly finalAsks: [number, number][]
  readonly restingMax: number
  readonly fills: number
}

interface Resting {
  readonly id: number
  readonly isBid: boolean
  readonly tick: number
  size: number
  readonly trader: number
  /** Position in the `resting` array, for O(1) removal. */
  slot: number
}

const TICKS = 100

/** Generates the stream by running it through a naive integer-tick price-time book. */
export function generateStream(options: StreamOptions): Stream {
  const random = mulberry32(options.seed)
  const levels: Resting[][][] = [[], []].map(() => Array.from({ length: TICKS }, () => [] as Resting[]))
  const bids = levels[0]!
  const asks = levels[1]!
  const resting: Resting[] = []
  const items: StreamItem[] = []
  let mid = 50
  let nextId = 1
  let restingMax = 0
  let fills = 0

  const remove = (order: Resting): void => {
    const last = resting.pop()!
    if (last !== order) {
      resting[order.slot] = last
      last.slot = order.slot
    }
    const queue = (order.isBid ? bids : asks)[order.tick]!
    queue.splice(queue.indexOf(order), 1)
  }

  /** Fills against the opposite side up to `size` within `tick`; returns [filled, yesCost]. */
  const take = (isBid: boolean, tick: number, size: number): [number, number, number] => {
    let left = size
    let yesCost = 0
    let noCost = 0
    const opposite = isBid ? asks : bids
    for (let t = isBid ? 1 : TICKS - 1; isBid ? t <= tick : t >= tick; t += isBid ? 1 : -1) {
      const queue = opposite[t]!
      while (left > 0 && queue.length > 0) {
        const maker = queue[0]!
        const quantity = Math.min(left, maker.size)
        maker.size -= quantity
        left -= quantity
        yesCost += quantity * t
        noCost += quantity * (TICKS - t)
        fills++
        if (maker.size === 0) remove(maker)
      }
      if (left === 0) break
    }
    return [size - left, yesCost, noCost]
  }

  const trader = (isBid: boolean): number =>
    Math.floor(random() * options.tradersPerSide) + (isBid ? 0 : options.tradersPerSide)

  for (let n = 0; n < options.commands; n++) {
    if (n % 100 === 99) mid = Math.min(90, Math.max(10, mid + (random() < 0.5 ? -1 : 1)))
    const roll = random()
    if (roll < 0.2 && resting.length > 0) {
      const order = resting[Math.floor(random() * resting.length)]!
      remove(order)
      items.push({ kind: 'cancel', id: order.id, trader: order.trader })
      continue
    }
    const isBid = random() < 0.5
    if (roll < 0.3) {
      const tick = Math.min(TICKS - 1, Math.max(1, mid + (isBid ? 5 : -5)))
      const size = 1 + Math.floor(random() * options.iocSizeMax)
      const who = trader(isBid)
      const [filled, yesCost, noCost] = take(isBid, tick, size)
      items.push({ kind: 'ioc', id: nextId++, isBid, tick, size, trader: who, yesCost, noCost, filled })
      continue
    }
    const crossing = random() < 0.1
    const distance = crossing ? -(1 + Math.floor(random() * 3)) : 1 + Math.floor(-Math.log(1 - random()) * 4)
    const tick = Math.min(TICKS - 1, Math.max(1, isBid ? mid - distance : mid + distance))
    const size = 1 + Math.floor(random() * 100)
    const who = trader(isBid)
    const id = nextId++
    items.push({ kind: 'limit', id, isBid, tick, size, trader: who })
    const [filled] = take(isBid, tick, size)
    if (filled < size) {
      const order: Resting = { id, isBid, tick, size: size - filled, trader: who, slot: resting.length }
      resting.push(order)
      ;(isBid ? bids : asks)[tick]!.push(order)
      restingMax = Math.max(restingMax, resting.length)
    }
  }
  const sideOf = (side: Resting[][], best: number[]): [number, number][] =>
    best.map((t): [number, number] => [t, side[t]!.reduce((sum, o) => sum + o.size, 0)]).filter(([, s]) => s > 0)
  const ticksDown = Array.from({ length: TICKS - 1 }, (_, i) => TICKS - 1 - i)
  const ticksUp = Array.from({ length: TICKS - 1 }, (_, i) => i + 1)
  return { items, finalBids: sideOf(bids, ticksDown), finalAsks: sideOf(asks, ticksUp), restingMax, fills }
}
