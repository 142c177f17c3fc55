/**
 * The portfolio's value over its history (GET /users/:address/portfolio-history), for the chart:
 * after each milestone, the USDC balance plus every position at the last price the history has
 * seen for its token (a buy's or a sell's; a token not yet priced counts nothing). Exact sums in
 * micros; one point per second (the last milestone of a second), as the chart wants its times
 * strictly rising. Pure: tested in test/unit/web/portfolio.test.ts.
 */
import type { Milestone } from '../api/shapes/user.js'
import { micros, times } from './micros.js'

export interface ValuePoint {
  readonly timeSec: number
  readonly valueMicros: bigint
}

export function portfolioValues(milestones: readonly Milestone[]): ValuePoint[] {
  const lastPriceMicros = new Map<string, bigint>()
  const points: ValuePoint[] = []
  for (const milestone of milestones) {
    if (milestone.token_id !== null && milestone.price !== null) {
      lastPriceMicros.set(milestone.token_id, micros(milestone.price))
    }
    let value = micros(milestone.usdc_balance)
    for (const [tokenId, shares] of Object.entries(milestone.positions)) {
      value += times(micros(shares), lastPriceMicros.get(tokenId) ?? 0n)
    }
    const timeSec = Math.floor(Date.parse(milestone.time) / 1000)
    if (points.length > 0 && points[points.length - 1]!.timeSec === timeSec) points.pop()
    points.push({ timeSec, valueMicros: value })
  }
  return points
}
