/**
 * Market administration (tick size, fee rate, status, malformed markets) and API keys.
 * Part of the simulation's workload (../workload.ts): functions over one WorkloadState.
 */
import type { Command, MarketInput, MarketStatus } from '../../../src/engine/command.js'
import { FEE_RATE_BPS_MAX } from '../../../src/engine/limits.js'
import { type Stamp, TICKS_MICROS, WorkloadState, pickAccount, uuid } from './state.js'

export function tickSize(w: WorkloadState, s: Stamp): Command {
  const m = w.rng.pick([...w.markets.values()])
  const tick = w.rng.chance(0.1) ? w.rng.pick([7_500, 0, 150, 20_000]) : w.rng.pick(TICKS_MICROS)
  // Ticks wander but come back: the market's own tick is tried again a little later.
  const original = m.input.tickSizeMicros
  w.agenda.push({ at: w.seq + w.rng.int(50, 400), build: (t) => ({ kind: 'setTickSize', ...t, marketId: m.input.marketId, tickSizeMicros: original }) })
  return { kind: 'setTickSize', ...s, marketId: m.input.marketId, tickSizeMicros: tick }
}

export function feeRate(w: WorkloadState, s: Stamp): Command {
  const m = w.rng.pick([...w.markets.values()])
  const rate = w.rng.chance(0.15)
    ? w.rng.pick([FEE_RATE_BPS_MAX + 1, -1, 2.5])
    : w.rng.pick([0, 50, 100, 200, m.feeRateBps])
  const original = m.input.feeRateBps
  w.agenda.push({ at: w.seq + w.rng.int(50, 400), build: (t) => ({ kind: 'setFeeRate', ...t, marketId: m.input.marketId, feeRateBps: original }) })
  return { kind: 'setFeeRate', ...s, marketId: m.input.marketId, feeRateBps: rate }
}

/** Pauses a market for a while (then resumes it), or tries a transition that is refused. */
export function marketStatus(w: WorkloadState, s: Stamp): Command {
  const ms = [...w.markets.values()]
  const m = w.rng.pick(ms)
  const id = m.input.marketId
  const r = w.rng.int(0, 99)
  if (r < 50 && m.status === 'Active') {
    w.agenda.push({ at: w.seq + w.rng.int(10, 80), build: (t) => ({ kind: 'setMarketStatus', ...t, marketId: id, status: 'Active' }) })
    return { kind: 'setMarketStatus', ...s, marketId: id, status: 'Paused' }
  }
  if (r < 60) return { kind: 'setMarketStatus', ...s, marketId: id, status: m.status } // no-op
  const refused: Readonly<Record<MarketStatus, MarketStatus>> = {
    Upcoming: 'Paused',
    Active: 'Upcoming',
    Paused: 'Upcoming',
    Closed: 'Active',
    Resolving: 'Active',
    Resolved: 'Active',
  }
  return { kind: 'setMarketStatus', ...s, marketId: id, status: refused[m.status] }
}

/** Commands naming markets that do not exist, already exist, or are malformed. */
export function marketAdmin(w: WorkloadState, s: Stamp): Command {
  const r = w.rng.int(0, 5)
  const input = w.rng.pick(w.marketInputs)
  if (r === 0) return { kind: 'createMarket', ...s, market: input } // MARKET_EXISTS
  if (r === 5) return { kind: 'createMarket', ...s, market: malformedMarket(w, input) }
  if (r === 1) return { kind: 'setTickSize', ...s, marketId: uuid(w), tickSizeMicros: 10_000 }
  if (r === 2) return { kind: 'setFeeRate', ...s, marketId: uuid(w), feeRateBps: 0 }
  if (r === 3) return { kind: 'setMarketStatus', ...s, marketId: uuid(w), status: 'Paused' }
  return { kind: 'resolveMarket', ...s, marketId: uuid(w), outcome: 'Yes' }
}

/** A market input with one bad field (MARKET_INVALID), never created. */
export function malformedMarket(w: WorkloadState, like: MarketInput): MarketInput {
  const fresh = { ...like, marketId: uuid(w), conditionId: `0x${w.rng.hex(32)}`, slug: `bad-${w.rng.hex(4)}`, yesTokenId: w.rng.decimal(77), noTokenId: w.rng.decimal(77) }
  const faults: readonly MarketInput[] = [
    { ...fresh, question: '' },
    { ...fresh, noTokenId: fresh.yesTokenId },
    { ...fresh, tickSizeMicros: 7_500 },
    { ...fresh, minOrderSizeMicros: 12_345 },
    { ...fresh, feeRateBps: FEE_RATE_BPS_MAX + 1 },
    { ...fresh, slug: '' },
  ]
  return w.rng.pick(faults)
}

export function apiKey(w: WorkloadState, s: Stamp): Command {
  const a = pickAccount(w)
  const r = w.rng.int(0, 99)
  const existing = w.apiKeys.length > 0 ? w.rng.pick(w.apiKeys) : undefined
  if (r < 35 || existing === undefined) {
    return { kind: 'registerApiKey', ...s, apiKey: uuid(w), address: a.address, secret: w.rng.hex(32), passphrase: w.rng.hex(32), nonce: w.nonce++ }
  }
  if (r < 42) {
    return { kind: 'registerApiKey', ...s, apiKey: existing.apiKey, address: existing.address, secret: w.rng.hex(32), passphrase: w.rng.hex(32), nonce: existing.nonce }
  }
  if (r < 50) {
    // A new key for an (address, nonce) that already has one.
    return { kind: 'registerApiKey', ...s, apiKey: uuid(w), address: existing.address, secret: w.rng.hex(32), passphrase: w.rng.hex(32), nonce: existing.nonce }
  }
  if (r < 62) {
    return { kind: 'registerApiKey', ...s, apiKey: uuid(w), address: a.address, secret: '', passphrase: w.rng.hex(32), nonce: w.nonce++ }
  }
  if (r < 88) {
    // Revoke an extra key, never the one an account submits its orders with.
    const extra = w.apiKeys.filter((k) => !w.accounts.some((x) => x.apiKey === k.apiKey))
    if (extra.length > 0) return { kind: 'revokeApiKey', ...s, apiKey: w.rng.pick(extra).apiKey }
  }
  return { kind: 'revokeApiKey', ...s, apiKey: uuid(w) }
}
