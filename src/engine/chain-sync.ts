/**
 * The ledger follows a real chain (`--chain local`; docs/testnet.md, "The ledger follows the
 * chain"): the chain watcher journals the chain's confirmed facts as `chainSync` commands, and
 * this applies them. The facts are not the engine's to refuse (they happened), so a sync is
 * refused only when it is malformed, repeats blocks already followed, or would take the USDC
 * supply past the bound that keeps every sum exact.
 *
 * Splits, merges and redemptions sent to the Conditional Tokens directly apply as the relay's do
 * (ledger.ts), on the same counters, so supply and collateral stay conserved.
 *
 * Two rules keep the ledger sound when a fact takes away what orders hold:
 * - the orders give way: a wallet whose balance or allowance fell below what its open orders
 *   hold has its newest orders on that asset cancelled (reason `funds`) until the rest fit, as
 *   Polymarket cancels orders whose funds are gone;
 * - a fact moves its whole amount, and what the sender's balance does not cover is owed
 *   (account.ts): the ledger had already moved it on, by a trade whose settlement will fail on
 *   chain for want of it. That trade's reversal (trade-reversal.ts) pays the debt back, so the
 *   ledger then agrees with the chain again, and meanwhile neither side of the fact is misstated:
 *   the receiver has what the chain gave it, the sender nothing to spend. Debts that nothing pays
 *   back (the ledger and the chain parted some other way) stay visible in `/health`.
 */
import type { Account, ShareBalance } from './account.js'
import { assert } from '../stdx/assert.js'
import { openOrdersOf } from './cancel.js'
import { Code } from './codes.js'
import type { ChainEntry, ChainSync } from './command.js'
import type { Engine } from './engine.js'
import type { ChainTransaction } from './event.js'
import { emitLedger, moveFullSets } from './ledger.js'
import { cancelResting } from './lifecycle.js'
import { SUPPLY_MICROS_MAX } from './limits.js'
import { isSafeCount, isSafePositive } from './order-shape.js'
import { rejection } from './rejection.js'
import type { Done, Rejection } from './result.js'

const DONE: Done = { ok: true }

export function chainSync(engine: Engine, command: ChainSync): Done | Rejection {
  if (!isSafePositive(command.toBlock) || command.toBlock <= engine.chainBlock) {
    return rejection(Code.CHAIN_SYNC_STALE, { toBlock: command.toBlock, chainBlock: engine.chainBlock })
  }
  let mintedMicros = 0
  for (let i = 0; i < command.entries.length; i++) {
    const entry = command.entries[i]!
    if (!isWellFormed(entry)) return rejection(Code.CHAIN_SYNC_INVALID, { index: i })
    if (entry.kind === 'usdc' && entry.from === '') mintedMicros += entry.amountMicros
  }
  if (engine.creditedMicros + mintedMicros > SUPPLY_MICROS_MAX) {
    return rejection(Code.LEDGER_BALANCE_LIMIT, { asset: 'USDC' })
  }
  for (const entry of command.entries) applyEntry(engine, entry)
  engine.chainBlock = command.toBlock
  engine.emit({ type: 'chainSynced', toBlock: command.toBlock, entries: command.entries.length })
  return DONE
}

function isWellFormed(entry: ChainEntry): boolean {
  if (typeof entry !== 'object' || entry === null) return false
  const { kind, from, to, tokenId, amountMicros } = entry
  if (typeof from !== 'string' || typeof to !== 'string' || typeof tokenId !== 'string') return false
  if (typeof entry.transactionHash !== 'string' || !isSafeCount(entry.blockNumber)) return false
  switch (kind) {
    case 'usdc': return isSafePositive(amountMicros) && from !== to && tokenId === ''
    case 'shares': return isSafePositive(amountMicros) && from !== '' && to !== '' && from !== to && tokenId !== ''
    case 'usdcAllowance':
    case 'allowance': return isSafeCount(amountMicros) && from !== '' && to === '' && tokenId === ''
    case 'tokenApproval':
      return (amountMicros === 0 || amountMicros === 1) && from !== '' && to === '' && tokenId === ''
    case 'split':
    case 'merge':
    case 'redeem': return isSafePositive(amountMicros) && from !== '' && to === '' && tokenId !== ''
    default: return false
  }
}

/** The transaction a fact is of, for its ledger event; none in journals from before facts named it. */
function transactionOf(entry: ChainEntry): ChainTransaction | undefined {
  return entry.transactionHash === '' ? undefined
    : { transactionHash: entry.transactionHash, blockNumber: entry.blockNumber }
}

function applyEntry(engine: Engine, entry: ChainEntry): void {
  const tx = transactionOf(entry)
  switch (entry.kind) {
    case 'usdc': return moveUsdc(engine, entry.from, entry.to, entry.amountMicros, tx)
    case 'shares': return moveShares(engine, entry.from, entry.to, entry.tokenId, entry.amountMicros)
    case 'usdcAllowance': {
      const account = engine.accountOf(entry.from)
      return setApprovals(engine, account, entry.amountMicros, account.sharesApproved, tx)
    }
    case 'tokenApproval': {
      const account = engine.accountOf(entry.from)
      return setApprovals(engine, account, account.usdcAllowanceMicros, entry.amountMicros === 1, tx)
    }
    case 'allowance': {
      return setApprovals(engine, engine.accountOf(entry.from), entry.amountMicros, entry.amountMicros > 0, tx)
    }
    case 'split': return splitOnChain(engine, entry.from, entry.tokenId, entry.amountMicros, tx)
    case 'merge': return mergeOnChain(engine, entry.from, entry.tokenId, entry.amountMicros, tx)
    case 'redeem': return redeemOnChain(engine, entry.from, entry.tokenId, entry.amountMicros, tx)
  }
}

/**
 * USDC into full sets, as the relay's split (ledger.ts). The Conditional Tokens split in a
 * resolved market too, and so does the mirror: the collateral still backs the winning supply.
 */
function splitOnChain(engine: Engine, from: string, tokenId: string, amountMicros: number,
  tx: ChainTransaction | undefined): void {
  const market = engine.tokens.get(tokenId)?.market
  if (market === undefined) return
  const account = engine.accountOf(from)
  moveFullSets(engine, account, market, amountMicros)
  market.mintedMicros += amountMicros
  emitLedger(engine, 'split', account, market.marketId, amountMicros, 0, tx)
  releaseUsdcHolds(engine, account)
}

/** Full sets back into USDC. */
function mergeOnChain(engine: Engine, from: string, tokenId: string, amountMicros: number,
  tx: ChainTransaction | undefined): void {
  const market = engine.tokens.get(tokenId)?.market
  if (market === undefined) return
  const account = engine.accountOf(from)
  moveFullSets(engine, account, market, -amountMicros)
  market.mergedMicros += amountMicros
  emitLedger(engine, 'merge', account, market.marketId, amountMicros, 0, tx)
  releaseShareHolds(engine, account, account.sharesOf(market.index * 2, market.yesTokenId))
  releaseShareHolds(engine, account, account.sharesOf(market.index * 2 + 1, market.noTokenId))
}

/**
 * Burns shares of one token of a resolved market and pays them out when it won. The chain pays
 * only after the operator reported the outcome, which it does after the engine resolved the
 * market (src/service/admin/admin.ts), so a redemption of a market the engine has not resolved is not
 * Predex's, and is passed over.
 */
function redeemOnChain(engine: Engine, from: string, tokenId: string, amountMicros: number,
  tx: ChainTransaction | undefined): void {
  const token = engine.tokens.get(tokenId)
  if (token === undefined || token.market.status !== 'Resolved') return
  const market = token.market
  const shares = engine.accountOf(from).sharesOf(market.index * 2 + (token.isNo ? 1 : 0), tokenId)
  assert(shares.heldMicros === 0, 'nothing is held in a resolved market')
  const won = (market.winningOutcome === 'No') === token.isNo
  const payout = won ? amountMicros : 0
  engine.touches.account(shares.account)
  engine.touches.shareBalance(shares)
  shares.debit(amountMicros)
  shares.account.creditUsdc(payout)
  market.collateralMicros -= payout
  if (token.isNo) market.redeemedNoMicros += amountMicros
  else market.redeemedYesMicros += amountMicros
  emitLedger(engine, 'redeem', shares.account, market.marketId, amountMicros, payout, tx)
}

/** '' on either side: USDC minted into the mirror or leaving it. */
function moveUsdc(engine: Engine, from: string, to: string, amountMicros: number,
  tx: ChainTransaction | undefined): void {
  if (from === '') {
    engine.creditedMicros += amountMicros
  } else {
    const sender = engine.accountOf(from)
    engine.touches.account(sender)
    sender.debitUsdc(amountMicros)
    releaseUsdcHolds(engine, sender)
  }
  if (to === '') {
    engine.creditedMicros -= amountMicros
    return
  }
  const receiver = engine.accountOf(to)
  engine.touches.account(receiver)
  receiver.creditUsdc(amountMicros)
  if (from === '') emitLedger(engine, 'credit', receiver, '', amountMicros, 0, tx)
}

/** Outcome tokens between two wallets; tokens of no market listed here are not the ledger's. */
function moveShares(engine: Engine, from: string, to: string, tokenId: string, amountMicros: number): void {
  const token = engine.tokens.get(tokenId)
  if (token === undefined) return
  const tokenIndex = token.market.index * 2 + (token.isNo ? 1 : 0)
  const sender = engine.accountOf(from).sharesOf(tokenIndex, tokenId)
  engine.touches.shareBalance(sender)
  sender.debit(amountMicros)
  releaseShareHolds(engine, sender.account, sender)
  const receiver = engine.accountOf(to).sharesOf(tokenIndex, tokenId)
  engine.touches.shareBalance(receiver)
  receiver.credit(amountMicros)
}

/**
 * As the relay's approve sets them (ledger.ts), but each on its own (on chain the USDC and the
 * outcome tokens are approved in two contracts), and what no longer fits gives way instead of
 * refusing.
 */
function setApprovals(engine: Engine, account: Account, allowanceMicros: number, sharesApproved: boolean,
  tx: ChainTransaction | undefined): void {
  engine.touches.account(account)
  account.usdcAllowanceMicros = allowanceMicros
  account.sharesApproved = sharesApproved
  engine.emit({ type: 'allowance', address: account.address, usdcAllowanceMicros: allowanceMicros, sharesApproved,
    ...(tx === undefined ? {} : { chainTransaction: tx }) })
  releaseUsdcHolds(engine, account)
  for (const shares of account.shares.values()) releaseShareHolds(engine, account, shares)
}

/** Cancels the account's newest buy orders until what its buys hold fits its balance and allowance. */
export function releaseUsdcHolds(engine: Engine, account: Account): void {
  const fits = (): boolean => account.usdcHeldMicros <= Math.min(account.usdcMicros, account.usdcAllowanceMicros)
  if (fits()) return
  const o = engine.orderTable
  const buys = openOrdersOf(o, account, (order) => o.isBuy[order] === 1)
  for (let i = buys.length - 1; i >= 0 && !fits(); i--) cancelResting(engine, buys[i]!, 'funds')
}

/** Cancels the account's newest sell orders of one token until what they hold fits what it may sell. */
export function releaseShareHolds(engine: Engine, account: Account, shares: ShareBalance): void {
  const fits = (): boolean => shares.heldMicros <= (account.sharesApproved ? shares.balanceMicros : 0)
  if (fits()) return
  const o = engine.orderTable
  const sells = openOrdersOf(o, account, (order) => o.isBuy[order] === 0 &&
    o.market[order]!.index * 2 + o.isNo[order]! === shares.tokenIndex)
  for (let i = sells.length - 1; i >= 0 && !fits(); i--) cancelResting(engine, sells[i]!, 'funds')
}
