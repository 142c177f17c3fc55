/**
 * A trade whose settlement failed on chain, moved back (docs/engine.md, "Trade reversals"). On a
 * real chain the engine moves a trade's funds when it matches, and the chain moves them when the
 * exchange settles it; a settlement the exchange refuses (a wallet moved on chain what the trade
 * needed before the ledger followed) leaves the ledger ahead of the chain by exactly that trade.
 * The settlement service then journals `reverseTrade` with the trade as its `trade` event told it,
 * and this moves each of its amounts back, the exact inverse of matching.ts's `settle`:
 * - USDC and shares go back to each side; a mint is undone as a merge (the collateral released),
 *   a merge as a mint; the taker's fee leaves the fees;
 * - what a side no longer has (it spent it on, in trades whose own settlement will then fail too)
 *   is owed (account.ts): that next failure's reversal pays it back, so a chain of failures
 *   leaves the ledger where the chain is, whatever order they come in;
 * - its orders that held what it gave back give way, newest first (reason `funds`), as a chain
 *   fact's do (chain-sync.ts);
 * - the orders of the trade stay as they ended or rest: the fill is not put back in the book (its
 *   price may be long gone, and a maker's quote is its own to renew).
 * The engine keeps no trade, so it cannot tell a trade it matched from one it did not: the
 * settlement service journals each reversal once (src/service/testnet/settlement.ts), and this checks
 * only that the trade is one matching could have made.
 */
import type { Account, ShareBalance } from './account.js'
import { releaseShareHolds, releaseUsdcHolds } from './chain-sync.js'
import { Code } from './codes.js'
import type { ReverseTrade } from './command.js'
import type { Engine } from './engine.js'
import type { Trade } from './event.js'
import { MICROS_PER_LOT, MICROS_PER_PIP, ORDER_LOTS_MAX, PIPS_PER_UNIT } from './limits.js'
import type { Market } from './market.js'
import { isSafeCount, isSafePositive } from './order-shape.js'
import { rejection } from './rejection.js'
import type { Done, Rejection } from './result.js'

const DONE: Done = { ok: true }

/** One side of the trade, resolved against the ledger. */
interface Party {
  readonly account: Account
  readonly tokenIndex: number
  readonly tokenId: string
  readonly buys: boolean
  readonly pips: number
}

interface Reversal {
  readonly market: Market
  readonly taker: Party
  readonly maker: Party
  readonly lots: number
  readonly kind: 'normal' | 'mint' | 'merge'
}

export function reverseTrade(engine: Engine, command: ReverseTrade): Done | Rejection {
  // On the builtin network a match is final: there is nothing to fail.
  if (engine.chainBlock === 0) return invalid('chain')
  const reversal = termsOf(engine, command)
  if (typeof reversal === 'string') return invalid(reversal)
  const { market, taker, maker, lots, kind } = reversal
  const sharesMicros = lots * MICROS_PER_LOT
  const fee = command.feeMicros
  const takerShares = taker.account.sharesOf(taker.tokenIndex, taker.tokenId)
  const makerShares = maker.account.sharesOf(maker.tokenIndex, maker.tokenId)
  give(engine, taker, takerShares, taker.pips * lots + (taker.buys ? fee : -fee), sharesMicros)
  give(engine, maker, makerShares, maker.pips * lots, sharesMicros)
  engine.feesMicros -= fee
  if (kind === 'mint') {
    market.collateralMicros -= sharesMicros
    market.mergedMicros += sharesMicros
  } else if (kind === 'merge') {
    market.collateralMicros += sharesMicros
    market.mintedMicros += sharesMicros
  }
  engine.emit({ type: 'tradeReversed', tradeId: command.tradeId, marketId: market.marketId,
    takerAddress: taker.account.address, makerAddress: maker.account.address })
  releaseUsdcHolds(engine, taker.account)
  releaseShareHolds(engine, taker.account, takerShares)
  releaseUsdcHolds(engine, maker.account)
  releaseShareHolds(engine, maker.account, makerShares)
  return DONE
}

/** The reversal of a trade, from its `trade` event. */
export function reversalOf(trade: Trade): Omit<ReverseTrade, 'seq' | 'timeMs'> {
  return { kind: 'reverseTrade', tradeId: trade.tradeId, takerAddress: trade.takerAddress, tokenId: trade.tokenId,
    side: trade.side, priceMicros: trade.priceMicros, makerAddress: trade.makerAddress,
    makerTokenId: trade.makerTokenId, makerSide: trade.makerSide, makerPriceMicros: trade.makerPriceMicros,
    sizeMicros: trade.sizeMicros, feeMicros: trade.feeMicros }
}

/** Moves one side back: a buyer gets its USDC back and gives the shares back; a seller the other way. */
function give(engine: Engine, party: Party, shares: ShareBalance, usdcMicros: number, sharesMicros: number): void {
  engine.touches.account(party.account)
  engine.touches.shareBalance(shares)
  if (party.buys) {
    party.account.creditUsdc(usdcMicros)
    shares.debit(sharesMicros)
  } else {
    party.account.debitUsdc(usdcMicros)
    shares.credit(sharesMicros)
  }
}

/** The trade against the ledger, or the name of the field that no match could have made. */
function termsOf(engine: Engine, command: ReverseTrade): Reversal | string {
  if (typeof command.tradeId !== 'string' || command.tradeId === '') return 'tradeId'
  const takerToken = engine.tokens.get(command.tokenId)
  if (takerToken === undefined) return 'tokenId'
  const makerToken = engine.tokens.get(command.makerTokenId)
  if (makerToken === undefined || makerToken.market !== takerToken.market) return 'makerTokenId'
  const market = takerToken.market
  const size = command.sizeMicros
  if (!isSafePositive(size) || size % MICROS_PER_LOT !== 0 || size / MICROS_PER_LOT > ORDER_LOTS_MAX) {
    return 'sizeMicros'
  }
  const taker = partyOf(engine, market, command.takerAddress, command.tokenId, takerToken.isNo, command.side,
    command.priceMicros)
  if (typeof taker === 'string') return taker === 'address' ? 'takerAddress' : taker
  const maker = partyOf(engine, market, command.makerAddress, command.makerTokenId, makerToken.isNo,
    command.makerSide, command.makerPriceMicros)
  if (typeof maker === 'string') return maker === 'address' ? 'makerAddress' : `maker${capitalized(maker)}`
  if (taker.account === maker.account) return 'makerAddress' // a self-trade never matches
  const kind = kindOf(takerToken.isNo === makerToken.isNo, taker, maker)
  if (kind === null) return 'makerSide'
  const lots = size / MICROS_PER_LOT
  const fee = command.feeMicros
  if (!isSafeCount(fee) || fee > engine.feesMicros || (!taker.buys && fee > taker.pips * lots)) return 'feeMicros'
  return { market, taker, maker, lots, kind }
}

function partyOf(engine: Engine, market: Market, address: unknown, tokenId: string, isNo: boolean, side: unknown,
  priceMicros: unknown): Party | 'address' | 'side' | 'priceMicros' {
  const account = typeof address === 'string' ? engine.accountsByAddress.get(address) : undefined
  if (account === undefined) return 'address' // both sides of a match have accounts
  if (side !== 'BUY' && side !== 'SELL') return 'side'
  const pricedOnGrid = isSafePositive(priceMicros) && priceMicros % MICROS_PER_PIP === 0
  if (!pricedOnGrid || priceMicros / MICROS_PER_PIP >= PIPS_PER_UNIT) return 'priceMicros'
  // Its share balance is made only once the whole reversal is found sound: a refused command changes nothing.
  return { account, tokenIndex: market.index * 2 + (isNo ? 1 : 0), tokenId, buys: side === 'BUY',
    pips: priceMicros / MICROS_PER_PIP }
}

/** A match's kind from its two sides, as matching.ts makes them; null when no match pairs them so. */
function kindOf(sameToken: boolean, taker: Party, maker: Party): Reversal['kind'] | null {
  if (sameToken) return taker.buys !== maker.buys && taker.pips === maker.pips ? 'normal' : null
  if (taker.buys !== maker.buys || taker.pips + maker.pips !== PIPS_PER_UNIT) return null
  return taker.buys ? 'mint' : 'merge'
}

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1)
}

function invalid(field: string): Rejection {
  return rejection(Code.TRADE_REVERSAL_INVALID, { field })
}
