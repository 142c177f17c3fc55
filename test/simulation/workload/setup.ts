/**
 * Time, the setup (markets, accounts, keys, credits, approvals, splits) and the agenda: commands
 * due at a seq (the market lifecycle every `lifecycleEvery` commands, resets of triggered groups).
 * Part of the simulation's workload (../workload.ts): functions over one WorkloadState.
 */
import type { MarketInput, Outcome } from '../../../src/engine/command.js'
import { ALLOWANCE_MICROS_UNLIMITED, MICROS_PER_UNIT } from '../../../src/engine/limits.js'
import { type AccountView, type Build, type Stamp, WorkloadState, newAddress, uuid } from './state.js'

export function stamp(w: WorkloadState): Stamp {
  w.seq += 1
  // Mostly sub-second steps; sometimes minutes pass, so GTD orders expire between commands.
  w.timeMs += w.rng.chance(0.004) ? w.rng.int(60_000, 900_000) : w.rng.int(0, 1_500)
  return { seq: w.seq, timeMs: w.timeMs }
}

export function setup(w: WorkloadState, accountCount: number): void {
  const fee = newMarket(w, { tickSizeMicros: 10_000, feeRateBps: 100, min: 5, negRisk: false, status: 'Active' })
  const fine = newMarket(w, { tickSizeMicros: 1_000, feeRateBps: 0, min: 1, negRisk: false, status: 'Active' })
  const neg = newMarket(w, { tickSizeMicros: 10_000, feeRateBps: 0, min: 5, negRisk: true, status: 'Upcoming' })
  for (const m of [fee, fine, neg]) w.queue.push((s) => ({ kind: 'createMarket', ...s, market: m }))
  for (let i = 0; i < accountCount; i++) setupAccount(w, i, accountCount, [fee, fine])
  // The Upcoming market opens a little later; until then its orders are MARKET_NOT_READY.
  w.agenda.push({ at: 150, build: (s) => ({ kind: 'setMarketStatus', ...s, marketId: neg.marketId, status: 'Active' }) })
}

export function setupAccount(w: WorkloadState, i: number, count: number, splitIn: readonly MarketInput[]): void {
  const address = newAddress(w)
  const signer = i < 3 ? newAddress(w) : address
  const apiKey = uuid(w)
  const account: AccountView = {
    address, signer, apiKey,
    usdc: { balance: 0, held: 0 }, allowance: 0, approved: false, shares: new Map(),
  }
  w.accounts.push(account)
  const nonce = w.nonce++
  w.queue.push((s) => ({ kind: 'registerApiKey', ...s, apiKey, address, secret: w.rng.hex(32), passphrase: w.rng.hex(32), nonce }))
  w.queue.push((s) => ({ kind: 'credit', ...s, address, usdcMicros: 20_000 * MICROS_PER_UNIT, gasMicros: 1_000_000 }))
  if (i < count - 1) {
    // One account approves a finite allowance, so min(balance, allowance) matters.
    const allowance = i === 1 ? 3_000 * MICROS_PER_UNIT : ALLOWANCE_MICROS_UNLIMITED
    w.queue.push((s) => ({ kind: 'approve', ...s, address, usdcAllowanceMicros: allowance }))
  }
  for (const m of splitIn) {
    w.queue.push((s) => ({ kind: 'split', ...s, address, marketId: m.marketId, amountMicros: 1_500 * MICROS_PER_UNIT }))
  }
}

export function newMarket(w: WorkloadState, p: {
  tickSizeMicros: number
  feeRateBps: number
  min: number
  negRisk: boolean
  status: 'Active' | 'Upcoming'
}): MarketInput {
  const n = w.marketInputs.length + 1
  const input: MarketInput = {
    marketId: uuid(w),
    conditionId: `0x${w.rng.hex(32)}`,
    question: `Will event ${n} happen?`,
    slug: `will-event-${n}-happen`,
    description: `Simulation market ${n}.`,
    yesTokenId: w.rng.decimal(77),
    noTokenId: w.rng.decimal(77),
    tickSizeMicros: p.tickSizeMicros,
    minOrderSizeMicros: p.min * MICROS_PER_UNIT,
    feeRateBps: p.feeRateBps,
    negRisk: p.negRisk,
    endDateMs: w.timeMs + 30 * 86_400_000,
    status: p.status,
  }
  w.marketInputs.push(input)
  return input
}

/** Starts a market lifecycle every `lifecycleEvery` commands. */
export function schedule(w: WorkloadState, seq: number): void {
  if (seq % w.lifecycleEvery !== 0) return
  const m = [...w.markets.values()].find((x) => x.status === 'Active')
  if (m === undefined) return
  const id = m.input.marketId
  const outcome: Outcome = w.rng.chance(0.5) ? 'Yes' : 'No'
  const variant = w.lifecycles++ % 3
  // Three ways to end: Closed then Resolving (cancels: market-closed), Resolving directly
  // (market-closed), or resolving while active (market-resolved).
  const steps: Build[] = []
  if (variant === 0) steps.push((s) => ({ kind: 'setMarketStatus', ...s, marketId: id, status: 'Closed' }))
  if (variant !== 2) steps.push((s) => ({ kind: 'setMarketStatus', ...s, marketId: id, status: 'Resolving' }))
  steps.push((s) => ({ kind: 'resolveMarket', ...s, marketId: id, outcome }))
  steps.forEach((build, k) => w.agenda.push({ at: seq + 20 * k, build }))
  const done = seq + 20 * steps.length
  const fresh = newMarket(w, {
    tickSizeMicros: m.input.tickSizeMicros,
    feeRateBps: m.feeRateBps,
    min: m.input.minOrderSizeMicros / MICROS_PER_UNIT,
    negRisk: m.input.negRisk,
    status: 'Active',
  })
  w.agenda.push({ at: done, build: (s) => ({ kind: 'createMarket', ...s, market: fresh }) })
  w.accounts.forEach((a, k) => {
    w.agenda.push({ at: done + 5 + 3 * k, build: (s) => ({ kind: 'redeem', ...s, address: a.address, marketId: id }) })
  })
}

export function dueAgenda(w: WorkloadState, seq: number): Build | undefined {
  w.agenda.sort((a, b) => a.at - b.at)
  const first = w.agenda[0]
  if (first === undefined || first.at > seq) return undefined
  w.agenda.shift()
  return first.build
}
