/**
 * Ledger operations: split, merge, redeem, credit, approve, and the same through the gasless
 * relay (right and wrong nonces, passed deadlines, malformed requests).
 * Part of the simulation's workload (../workload.ts): functions over one WorkloadState.
 */
import type { Approve, Command, Merge, Redeem, RelayAction, Split } from '../../../src/engine/command.js'
import { ALLOWANCE_MICROS_UNLIMITED, BALANCE_MICROS_MAX, MICROS_PER_UNIT } from '../../../src/engine/limits.js'
import { type Stamp, WorkloadState, freeShares, ledgerMarket, newAddress, pickAccount, unstamped, uuid } from './state.js'

export function split(w: WorkloadState, s: Stamp): Command {
  const a = pickAccount(w)
  const m = ledgerMarket(w)
  const free = a.usdc.balance - a.usdc.held
  const wanted = w.rng.chance(0.5)
    ? w.rng.int(1, 400) * MICROS_PER_UNIT
    : w.rng.int(1, 400 * MICROS_PER_UNIT) // not a whole number of lots: odd share balances
  const r = w.rng.int(0, 99)
  let marketId = m.input.marketId
  let amount = Math.min(wanted, Math.max(1, free))
  if (r < 3) amount = w.rng.pick([0, -5, 1.5])
  else if (r < 5) marketId = uuid(w)
  else if (r < 11) amount = free + w.rng.int(1, 1_000 * MICROS_PER_UNIT)
  return { kind: 'split', ...s, address: a.address, marketId, amountMicros: amount }
}

export function merge(w: WorkloadState, s: Stamp): Command {
  const a = pickAccount(w)
  const m = ledgerMarket(w)
  const free = Math.min(freeShares(a, m.input.yesTokenId), freeShares(a, m.input.noTokenId))
  const tooMuch = w.rng.chance(0.1) || free <= 0
  const amount = tooMuch ? free + w.rng.int(1, 100 * MICROS_PER_UNIT) : w.rng.int(1, free)
  return { kind: 'merge', ...s, address: a.address, marketId: m.input.marketId, amountMicros: Math.max(1, amount) }
}

export function redeem(w: WorkloadState, s: Stamp): Command {
  const ms = [...w.markets.values()]
  const m = w.rng.chance(0.9) ? w.rng.pick(ms) : undefined
  return { kind: 'redeem', ...s, address: pickAccount(w).address, marketId: m?.input.marketId ?? uuid(w) }
}

export function credit(w: WorkloadState, s: Stamp): Command {
  const poorest = [...w.accounts].sort((x, y) => x.usdc.balance - y.usdc.balance)[0]
  const a = poorest !== undefined && w.rng.chance(0.6) ? poorest : pickAccount(w)
  const r = w.rng.int(0, 99)
  if (r < 5) return { kind: 'credit', ...s, address: a.address, usdcMicros: 0, gasMicros: 0 }
  if (r < 9) return { kind: 'credit', ...s, address: a.address, usdcMicros: w.rng.pick([-1, 0.5, Number.NaN]), gasMicros: 0 }
  if (r < 12) return { kind: 'credit', ...s, address: a.address, usdcMicros: BALANCE_MICROS_MAX, gasMicros: 0 }
  if (r < 20) return { kind: 'credit', ...s, address: a.address, usdcMicros: 0, gasMicros: w.rng.int(1, 10 ** 9) }
  // Top-ups are large only for accounts running low, so money stays scarce enough to matter.
  const low = a.usdc.balance - a.usdc.held < 2_000 * MICROS_PER_UNIT
  const usdc = low ? w.rng.int(1_000, 10_000) * MICROS_PER_UNIT : w.rng.int(1, 200 * MICROS_PER_UNIT)
  return { kind: 'credit', ...s, address: a.address, usdcMicros: usdc, gasMicros: 0 }
}

export function approve(w: WorkloadState, s: Stamp): Command {
  const a = pickAccount(w)
  const last = w.accounts[w.accounts.length - 1]
  const r = w.rng.int(0, 99)
  if (a === last) {
    // The never-approved account stays so: it exists to trade without approval.
    return { kind: 'approve', ...s, address: a.address, usdcAllowanceMicros: r < 50 ? 0 : -1 }
  }
  let allowance: number = ALLOWANCE_MICROS_UNLIMITED
  if (r < 20 && a.usdc.held > 0) allowance = a.usdc.held - w.rng.int(1, a.usdc.held) // below holds
  else if (r < 35) {
    allowance = 0 // a revoke: refused while anything is held; approved again a bit later
    const back = (t: Stamp): Command => ({ kind: 'approve', ...t, address: a.address, usdcAllowanceMicros: ALLOWANCE_MICROS_UNLIMITED })
    w.agenda.push({ at: w.seq + w.rng.int(20, 200), build: back })
  } else if (r < 45) allowance = w.rng.pick([-1, 2.5])
  else if (r < 65) allowance = a.usdc.held + w.rng.int(0, 5_000) * MICROS_PER_UNIT
  return { kind: 'approve', ...s, address: a.address, usdcAllowanceMicros: allowance }
}

/**
 * A gasless relay of a ledger action built as the standalone command would be (so it meets the
 * same rejections), mostly with the owner's next nonce and a deadline ahead; sometimes a
 * replayed, stale or future nonce, a passed deadline, or a malformed request.
 */
export function relay(w: WorkloadState, s: Stamp): Command {
  const r = w.rng.int(0, 99)
  if (r < 4 && w.relayed.length > 0) return { ...w.rng.pick(w.relayed), ...s } // a replay
  const action = r < 7 ? freshApproval(w) : relayAction(w, s)
  const next = w.relayNonces.get(action.address) ?? 0
  const nowSec = Math.floor(s.timeMs / 1000)
  let nonce = next
  let deadlineSec = nowSec + w.rng.int(1, 3_600)
  if (r >= 7 && r < 12) nonce = next > 0 && w.rng.chance(0.6) ? next - w.rng.int(1, Math.min(next, 3)) : next + w.rng.int(1, 3)
  else if (r < 16) deadlineSec = nowSec - w.rng.int(1, 600) // passed
  else if (r < 20) deadlineSec = w.rng.chance(0.5) ? nowSec : Math.ceil(s.timeMs / 1000) // at the deadline: in time only at its exact millisecond
  else if (r < 23) return malformedRelay(w, s, action, next, deadlineSec)
  return { kind: 'relay', ...s, nonce, deadlineSec, action }
}

/** An address never seen before approves through the relay: its first nonce is 0. */
export function freshApproval(w: WorkloadState): RelayAction {
  return { kind: 'approve', address: newAddress(w), usdcAllowanceMicros: w.rng.chance(0.8) ? ALLOWANCE_MICROS_UNLIMITED : w.rng.int(0, 1_000) * MICROS_PER_UNIT }
}

/** One ledger action as the standalone builders make it, without its stamp. */
export function relayAction(w: WorkloadState, s: Stamp): RelayAction {
  const kind = w.rng.weighted({ approve: 25, split: 35, merge: 25, redeem: 15 })
  const command = kind === 'approve' ? approve(w, s) : kind === 'split' ? split(w, s) : kind === 'merge' ? merge(w, s) : redeem(w, s)
  return unstamped(command as Approve | Split | Merge | Redeem)
}

export function malformedRelay(w: WorkloadState, s: Stamp, action: RelayAction, nonce: number, deadlineSec: number): Command {
  const r = w.rng.int(0, 5)
  if (r === 0) return { kind: 'relay', ...s, nonce: w.rng.pick([-1, 1.5, Number.NaN]), deadlineSec, action }
  if (r === 1) return { kind: 'relay', ...s, nonce, deadlineSec: w.rng.pick([-1, 2.5, Number.MAX_SAFE_INTEGER + 2]), action }
  // An action the relay may not run (a faucet credit), or no action at all.
  const bad: unknown = r === 2 ? { kind: 'credit', address: action.address, usdcMicros: MICROS_PER_UNIT, gasMicros: 0 } : r === 3 ? null : 'approve'
  return { kind: 'relay', ...s, nonce, deadlineSec, action: bad as RelayAction }
}
