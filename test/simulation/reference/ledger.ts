/**
 * The ledger: credit, approve, split, merge, redeem, and the gasless relay (shape, deadline, nonce,
 * then the action as its own command; the nonce moves on success).
 */
import type { Approve, Credit, Merge, Redeem, Relay, Split } from '../../../src/engine/command.js'
import type { CommandResult, Rejection } from '../../../src/engine/result.js'
import { Code } from '../../../src/engine/codes.js'
import { BALANCE_MICROS_MAX, SUPPLY_MICROS_MAX } from '../../../src/engine/limits.js'
import { firstHeldToken, heldShares, heldUsdc, mustAccount, openAccount } from './accounts.js'
import { addShares } from './fills.js'
import { DONE, ReferenceState, type Step, USDC, findMarket, minBig, num, refuse, rejection } from './state.js'
import { isNonNegativeInt, isPositiveInt } from './validation.js'

export function ledgerInvalid(field: string): Rejection {
  return rejection(refuse(Code.LEDGER_AMOUNT_INVALID, { field }))
}

export function relayInvalid(field: string): Rejection {
  return rejection(refuse(Code.RELAY_INVALID, { field }))
}

export function balanceLimit(asset: string): Rejection {
  return rejection(refuse(Code.LEDGER_BALANCE_LIMIT, { asset }))
}

export function insufficient(asset: string, required: bigint, available: bigint): Rejection {
  return rejection(refuse(Code.LEDGER_INSUFFICIENT_BALANCE, {
    asset,
    requiredMicros: num(required),
    availableMicros: num(available),
  }))
}

// Ledger checks run in the order docs/engine.md lists them; the first failing one decides.
export function credit(r: ReferenceState, c: Credit, step: Step): CommandResult {
  if (!isNonNegativeInt(c.usdcMicros)) return ledgerInvalid('usdcMicros')
  if (!isNonNegativeInt(c.gasMicros)) return ledgerInvalid('gasMicros')
  if (c.usdcMicros === 0 && c.gasMicros === 0) return ledgerInvalid('usdcMicros')
  const account = r.accounts.get(c.address)
  const usdc = BigInt(c.usdcMicros)
  const gas = BigInt(c.gasMicros)
  if ((account?.usdc ?? 0n) + usdc > BigInt(BALANCE_MICROS_MAX)) return balanceLimit(USDC)
  if (r.credited + usdc > BigInt(SUPPLY_MICROS_MAX)) return balanceLimit(USDC)
  // Gas is not USDC: it has a balance cap but no part in the supply.
  if ((account?.gas ?? 0n) + gas > BigInt(BALANCE_MICROS_MAX)) return balanceLimit('GAS')
  // SPEC: gas is not an asset of `balance` events (those name USDC or a token id); it shows
  // only in the ledger event and the summary.
  const a = openAccount(r, c.address)
  a.usdc += usdc
  a.gas += gas
  r.credited += usdc
  step.events.push({
    type: 'ledger',
    action: 'credit',
    address: c.address,
    marketId: '',
    amountMicros: c.usdcMicros,
    payoutMicros: c.gasMicros,
  })
  return DONE
}

export function approve(r: ReferenceState, c: Approve, step: Step): CommandResult {
  if (!isNonNegativeInt(c.usdcAllowanceMicros)) return ledgerInvalid('usdcAllowanceMicros')
  const allowance = BigInt(c.usdcAllowanceMicros)
  const existing = r.accounts.get(c.address)
  const usdcHeld = heldUsdc(r, c.address)
  if (existing !== undefined && minBig(existing.usdc, allowance) < usdcHeld) {
    return rejection(refuse(Code.LEDGER_ALLOWANCE_BELOW_HOLDS, { asset: USDC, heldMicros: num(usdcHeld) }))
  }
  const heldShares = allowance === 0n ? firstHeldToken(r, c.address) : undefined
  if (heldShares !== undefined) {
    return rejection(refuse(Code.LEDGER_ALLOWANCE_BELOW_HOLDS, {
      asset: heldShares.tokenId,
      heldMicros: num(heldShares.held),
    }))
  }
  const a = openAccount(r, c.address)
  a.allowance = allowance
  a.sharesApproved = allowance > 0n
  step.events.push({
    type: 'allowance',
    address: c.address,
    usdcAllowanceMicros: c.usdcAllowanceMicros,
    sharesApproved: a.sharesApproved,
  })
  return DONE
}

export function split(r: ReferenceState, c: Split, step: Step): CommandResult {
  const market = findMarket(r, c.marketId)
  if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
  if (market.status === 'Resolved') {
    return rejection(refuse(Code.LEDGER_MARKET_RESOLVED, { marketId: c.marketId }))
  }
  if (!isPositiveInt(c.amountMicros)) return ledgerInvalid('amountMicros')
  const amount = BigInt(c.amountMicros)
  const a = r.accounts.get(c.address)
  const free = (a?.usdc ?? 0n) - heldUsdc(r, c.address)
  if (free < amount) return insufficient(USDC, amount, free)
  const account = mustAccount(r, c.address)
  account.usdc -= amount
  addShares(account, market.input.yesTokenId, amount)
  addShares(account, market.input.noTokenId, amount)
  market.collateral += amount
  market.minted += amount
  emitLedger(step, 'split', c.address, c.marketId, c.amountMicros, 0)
  return DONE
}

export function merge(r: ReferenceState, c: Merge, step: Step): CommandResult {
  const market = findMarket(r, c.marketId)
  if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
  if (!isPositiveInt(c.amountMicros)) return ledgerInvalid('amountMicros')
  const amount = BigInt(c.amountMicros)
  const a = r.accounts.get(c.address)
  const { yesTokenId, noTokenId } = market.input
  for (const token of [yesTokenId, noTokenId]) {
    const free = (a?.shares.get(token) ?? 0n) - heldShares(r, c.address, token)
    if (free < amount) return insufficient(token, amount, free)
  }
  const account = mustAccount(r, c.address)
  addShares(account, yesTokenId, -amount)
  addShares(account, noTokenId, -amount)
  account.usdc += amount
  market.collateral -= amount
  market.merged += amount
  emitLedger(step, 'merge', c.address, c.marketId, c.amountMicros, 0)
  return DONE
}

export function redeem(r: ReferenceState, c: Redeem, step: Step): CommandResult {
  const market = findMarket(r, c.marketId)
  if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
  if (market.status !== 'Resolved') {
    return rejection(refuse(Code.LEDGER_MARKET_NOT_RESOLVED, { marketId: c.marketId, status: market.status }))
  }
  const a = r.accounts.get(c.address)
  const { yesTokenId, noTokenId } = market.input
  const yes = a?.shares.get(yesTokenId) ?? 0n
  const no = a?.shares.get(noTokenId) ?? 0n
  if (a === undefined || yes + no === 0n) {
    return rejection(refuse(Code.LEDGER_NOTHING_TO_REDEEM, { marketId: c.marketId }))
  }
  const payout = market.winningOutcome === 'Yes' ? yes : no
  addShares(a, yesTokenId, -yes)
  addShares(a, noTokenId, -no)
  a.usdc += payout
  market.redeemedYes += yes
  market.redeemedNo += no
  market.collateral -= payout
  emitLedger(step, 'redeem', c.address, c.marketId, num(yes + no), num(payout))
  return DONE
}

export function emitLedger(
  step: Step,
  action: 'split' | 'merge' | 'redeem',
  address: string,
  marketId: string,
  amountMicros: number,
  payoutMicros: number,
): void {
  step.events.push({ type: 'ledger', action, address, marketId, amountMicros, payoutMicros })
}

export function relay(r: ReferenceState, c: Relay, step: Step): CommandResult {
  if (!isNonNegativeInt(c.nonce)) return relayInvalid('nonce')
  if (!isNonNegativeInt(c.deadlineSec)) return relayInvalid('deadlineSec')
  const raw: unknown = c.action
  const kind = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).kind : undefined
  if (kind !== 'approve' && kind !== 'split' && kind !== 'merge' && kind !== 'redeem') return relayInvalid('action')
  // "timeMs > deadlineSec * 1000" in exact integers: the instant of the deadline itself is in time.
  const now = BigInt(r.timeMs)
  if (now > BigInt(c.deadlineSec) * 1000n) {
    return rejection(refuse(Code.RELAY_DEADLINE_PASSED, { deadlineSec: c.deadlineSec, nowSec: num(now / 1000n) }))
  }
  const owner = c.action.address
  const expected = r.accounts.get(owner)?.relayNonce ?? 0
  if (c.nonce !== expected) return rejection(refuse(Code.RELAY_NONCE_MISMATCH, { expected, nonce: c.nonce }))
  const inner = { ...c.action, seq: c.seq, timeMs: c.timeMs }
  let result: CommandResult
  switch (inner.kind) {
    case 'approve':
      result = approve(r, inner, step)
      break
    case 'split':
      result = split(r, inner, step)
      break
    case 'merge':
      result = merge(r, inner, step)
      break
    case 'redeem':
      result = redeem(r, inner, step)
      break
  }
  // A refused action left everything as it was, the nonce included.
  if (result.ok) mustAccount(r, owner).relayNonce += 1
  return result
}
