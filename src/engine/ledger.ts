/**
 * Ledger commands of the built-in test network: faucet credits, approvals, and the conditional
 * token operations split, merge and redeem. Each yields a `ledger` (or `allowance`) event; the
 * host gives it a transaction hash and block number. Approve, split, merge and redeem take their
 * command without its stamp, so the gasless relay (relay.ts) runs the very same functions.
 */
import type { Account, ShareBalance } from './account.js'
import { assert } from '../stdx/assert.js'
import { Code } from './codes.js'
import type { Credit, RelayAction } from './command.js'
import type { Engine } from './engine.js'
import type { ChainTransaction } from './event.js'
import type { Market } from './market.js'
import { BALANCE_MICROS_MAX, SUPPLY_MICROS_MAX } from './limits.js'
import { isSafeCount, isSafePositive } from './order-shape.js'
import { rejection } from './rejection.js'
import { checkApprovalHolds, checkFreeFunds, checkRedeemable } from './rules.js'
import type { Done, Rejection } from './result.js'

const DONE: Done = { ok: true }

type ActionOf<K extends RelayAction['kind']> = Extract<RelayAction, { readonly kind: K }>

/**
 * Credits are the only source of USDC, so the supply bound keeps every balance, every sum of
 * balances and every share supply below 2^53. BALANCE_MICROS_MAX only caps what one account can
 * be credited: trades, merges and redemptions may take a balance above it, and must (a holder of
 * winning shares can always redeem).
 */
export function credit(engine: Engine, command: Credit): Done | Rejection {
  const { usdcMicros, gasMicros } = command
  if (!isSafeCount(usdcMicros)) return rejection(Code.LEDGER_AMOUNT_INVALID, { field: 'usdcMicros' })
  if (!isSafeCount(gasMicros)) return rejection(Code.LEDGER_AMOUNT_INVALID, { field: 'gasMicros' })
  if (usdcMicros === 0 && gasMicros === 0) return rejection(Code.LEDGER_AMOUNT_INVALID, { field: 'usdcMicros' })
  const known = engine.accountsByAddress.get(command.address)
  if ((known?.usdcMicros ?? 0) + usdcMicros > BALANCE_MICROS_MAX ||
    engine.creditedMicros + usdcMicros > SUPPLY_MICROS_MAX) {
    return rejection(Code.LEDGER_BALANCE_LIMIT, { asset: 'USDC' })
  }
  if ((known?.gasMicros ?? 0) + gasMicros > BALANCE_MICROS_MAX) {
    return rejection(Code.LEDGER_BALANCE_LIMIT, { asset: 'GAS' })
  }
  const account = engine.accountOf(command.address)
  engine.touches.account(account)
  account.creditUsdc(usdcMicros)
  account.gasMicros += gasMicros
  engine.creditedMicros += usdcMicros
  emitLedger(engine, 'credit', account, '', usdcMicros, gasMicros)
  return DONE
}

export function approve(engine: Engine, command: ActionOf<'approve'>): Done | Rejection {
  const allowance = command.usdcAllowanceMicros
  if (!isSafeCount(allowance)) return rejection(Code.LEDGER_AMOUNT_INVALID, { field: 'usdcAllowanceMicros' })
  const known = engine.accountsByAddress.get(command.address)
  if (known !== undefined) {
    const below = holdsAboveApproval(known, allowance)
    if (below !== null) return below
  }
  const account = known ?? engine.accountOf(command.address)
  account.usdcAllowanceMicros = allowance
  account.sharesApproved = allowance > 0
  engine.emit({ type: 'allowance', address: account.address, usdcAllowanceMicros: allowance,
    sharesApproved: account.sharesApproved })
  return DONE
}

/** An approval may not leave open orders holding more than it allows (the held token named first in market order). */
function holdsAboveApproval(account: Account, allowance: number): Rejection | null {
  const inMarketOrder = [...account.shares.values()].sort((a, b) => a.tokenIndex - b.tokenIndex)
  return checkApprovalHolds(account, allowance, inMarketOrder)
}

export function split(engine: Engine, command: ActionOf<'split'>): Done | Rejection {
  const market = engine.marketsById.get(command.marketId)
  if (market === undefined) return rejection(Code.MARKET_NOT_FOUND, { marketId: command.marketId })
  if (market.status === 'Resolved') return rejection(Code.LEDGER_MARKET_RESOLVED, { marketId: market.marketId })
  const amount = command.amountMicros
  if (!isSafePositive(amount)) return rejection(Code.LEDGER_AMOUNT_INVALID, { field: 'amountMicros' })
  const account = engine.accountsByAddress.get(command.address)
  const short = checkFreeFunds('USDC', amount, account === undefined ? 0 : account.usdcMicros - account.usdcHeldMicros)
  if (short !== null) return short
  moveFullSets(engine, account!, market, amount)
  market.mintedMicros += amount
  emitLedger(engine, 'split', account!, market.marketId, amount, 0)
  return DONE
}

export function merge(engine: Engine, command: ActionOf<'merge'>): Done | Rejection {
  const market = engine.marketsById.get(command.marketId)
  if (market === undefined) return rejection(Code.MARKET_NOT_FOUND, { marketId: command.marketId })
  const amount = command.amountMicros
  if (!isSafePositive(amount)) return rejection(Code.LEDGER_AMOUNT_INVALID, { field: 'amountMicros' })
  const account = engine.accountsByAddress.get(command.address)
  for (const isNo of [false, true]) {
    const shares = account?.shares.get(market.index * 2 + (isNo ? 1 : 0))
    const short = checkFreeFunds(market.tokenIdOf(isNo), amount,
      shares === undefined ? 0 : shares.balanceMicros - shares.heldMicros)
    if (short !== null) return short
  }
  moveFullSets(engine, account!, market, -amount)
  market.mergedMicros += amount
  emitLedger(engine, 'merge', account!, market.marketId, amount, 0)
  return DONE
}

/** Turns USDC into full sets (amount > 0) or full sets back into USDC (amount < 0). */
export function moveFullSets(engine: Engine, account: Account, market: Market, amount: number): void {
  const yes = account.sharesOf(market.index * 2, market.yesTokenId)
  const no = account.sharesOf(market.index * 2 + 1, market.noTokenId)
  engine.touches.account(account)
  engine.touches.shareBalance(yes)
  engine.touches.shareBalance(no)
  // Split: what the USDC balance does not cover is owed (only a chain's split does that:
  // chain-sync.ts); merge: the same for the two tokens. Either pays back what is owed of the other side.
  if (amount > 0) {
    account.debitUsdc(amount)
    yes.credit(amount)
    no.credit(amount)
  } else {
    account.creditUsdc(-amount)
    yes.debit(-amount)
    no.debit(-amount)
  }
  market.collateralMicros += amount
}

export function redeem(engine: Engine, command: ActionOf<'redeem'>): Done | Rejection {
  const market = engine.marketsById.get(command.marketId)
  if (market === undefined) return rejection(Code.MARKET_NOT_FOUND, { marketId: command.marketId })
  const account = engine.accountsByAddress.get(command.address)
  const yes = account?.shares.get(market.index * 2)
  const no = account?.shares.get(market.index * 2 + 1)
  const yesMicros = yes?.balanceMicros ?? 0
  const noMicros = no?.balanceMicros ?? 0
  const unredeemable = checkRedeemable(market.marketId, market.status, yesMicros + noMicros)
  if (unredeemable !== null) return unredeemable
  const payout = market.winningOutcome === 'Yes' ? yesMicros : noMicros
  engine.touches.account(account!)
  if (yes !== undefined) burnAll(engine, yes)
  if (no !== undefined) burnAll(engine, no)
  account!.creditUsdc(payout)
  market.collateralMicros -= payout
  market.redeemedYesMicros += yesMicros
  market.redeemedNoMicros += noMicros
  emitLedger(engine, 'redeem', account!, market.marketId, yesMicros + noMicros, payout)
  return DONE
}

function burnAll(engine: Engine, shares: ShareBalance): void {
  assert(shares.heldMicros === 0, 'nothing is held in a resolved market')
  engine.touches.shareBalance(shares)
  shares.balanceMicros = 0
}

export function emitLedger(
  engine: Engine,
  action: 'credit' | 'split' | 'merge' | 'redeem',
  account: Account,
  marketId: string,
  amountMicros: number,
  payoutMicros: number,
  chainTransaction?: ChainTransaction,
): void {
  engine.emit({ type: 'ledger', action, address: account.address, marketId, amountMicros, payoutMicros,
    ...(chainTransaction === undefined ? {} : { chainTransaction }) })
}
