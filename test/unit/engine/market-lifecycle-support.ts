/**
 * What the market lifecycle's tests share (market-lifecycle.test.ts, market-terms.test.ts): the
 * accounts, the statuses and their allowed transitions, a market's input and its update event,
 * and a market put in a given status with a resting order.
 */
import { Harness, addressOf, marketInputOf, T0_MS } from '../../support/harness.js'
import { marketOf } from '../../support/engine-checks.js'
import type { ApplyResult } from '../../../src/engine/engine.js'
import type { MarketInput, MarketStatus } from '../../../src/engine/command.js'

export const alice = addressOf(1)
export const bob = addressOf(2)
export const carol = addressOf(3)
export const dave = addressOf(4)
export const erin = addressOf(5)
export const STATUSES: readonly MarketStatus[] = ['Upcoming', 'Active', 'Paused', 'Closed', 'Resolving', 'Resolved']
/** docs/engine.md, "Market status" (Resolved only through resolveMarket). */
export const ALLOWED: Readonly<Record<MarketStatus, readonly MarketStatus[]>> = {
  Upcoming: ['Active', 'Closed'],
  Active: ['Paused', 'Closed', 'Resolving'],
  Paused: ['Active', 'Closed', 'Resolving'],
  Closed: ['Resolving'],
  Resolving: ['Closed'],
  Resolved: [],
}
/** A market's input; `overrides` may hold values of the wrong type (the validation tests' malformed fields). */
export function inputOf(id: string, overrides: Record<string, unknown> = {}): MarketInput {
  return { ...marketInputOf(id), ...overrides } as MarketInput
}
/** A marketUpdated event; a resolved market carries its resolution's command time (the harness clock). */
export function updated(marketId: string, status: MarketStatus, tickSizeMicros = 10_000, feeRateBps = 0, winningOutcome: 'Yes' | 'No' | null = null,
  resolvedMs = winningOutcome === null ? 0 : T0_MS) {
  return { type: 'marketUpdated', marketId, status, tickSizeMicros, feeRateBps, winningOutcome, resolvedMs }
}
export function orderIdOf(applied: ApplyResult): string {
  return (applied.result as { orderId: string }).orderId
}
export function statusOf(applied: ApplyResult): string | undefined {
  return (applied.result as { status?: string }).status
}
/** A market brought to `status` by allowed steps. */
export function marketIn(h: Harness, id: string, status: MarketStatus): string {
  const created = h.apply({ kind: 'createMarket', market: inputOf(id, { status: status === 'Upcoming' ? 'Upcoming' : 'Active' }) })
  if (!created.result.ok) throw new Error('createMarket failed')
  if (status === 'Paused' || status === 'Closed' || status === 'Resolving') {
    const moved = h.apply({ kind: 'setMarketStatus', marketId: id, status })
    if (!moved.result.ok) throw new Error(`to ${status} failed`)
  }
  if (status === 'Resolved') h.apply({ kind: 'resolveMarket', marketId: id, outcome: 'Yes' })
  if (marketOf(h, id)?.status !== status) throw new Error(`market not in ${status}`)
  return id
}
