/**
 * Wire shapes: the seed's (native) and Polymarket's (compat) forms of markets, orders, trades and
 * books, from the read model's records. Both surfaces share one implementation; this file holds
 * all their differences (api.md: `market` is the UUID natively and the condition id in compat;
 * `expiration` is milliseconds or null natively, seconds with "0" for none in compat). The shapes
 * themselves are declared in src/api/shapes/, which the SDK shares.
 */
import type { TradeSettlement } from '../service/testnet/settlement.js'
import { createHash } from 'node:crypto'
import type { MarketRecord } from '../engine/event.js'
import type { BookView } from '../engine/view.js'
import type { OrderRecord, ReadModel, TradeRecord } from '../read/read-model.js'
import type { Placement } from '../service/trading/trading.js'
import { builtJsonOf, type JsonOf } from './json-text.js'
import { decimalOfMicros } from './wire.js'
import { transactionOf } from '../chain/transaction.js'
import type { BookLevel, OrderBookSummary } from './shapes/book.js'
import type { CompatMarket, NativeMarket } from './shapes/market.js'
import type { ClientOrder, CompatOrder, NativeOrder, PublicOrder } from './shapes/order.js'
import type { PublicTrade, Trade } from './shapes/trade.js'

export function tickText(tickSizeMicros: number): string {
  return decimalOfMicros(tickSizeMicros)
}

function isoOfMs(ms: number): string | null {
  return ms === 0 ? null : new Date(ms).toISOString()
}

function priceOf(read: ReadModel, tokenId: string): string | null {
  const price = read.tokenStats.get(tokenId)?.lastTradePriceMicros
  return price === undefined || price === null ? null : decimalOfMicros(price)
}

function volumeMicrosOf(read: ReadModel, tokenId: string): number {
  return read.tokenStats.get(tokenId)?.volumeMicros ?? 0
}

/** The native market record (api.md, "markets"). */
export function nativeMarket(read: ReadModel, market: MarketRecord): NativeMarket {
  // Best bid and ask of Yes as a taker can trade them: implied liquidity of No included (as /price).
  const yesBook = read.unifiedBook(market.yesTokenId)
  const volume = volumeMicrosOf(read, market.yesTokenId) + volumeMicrosOf(read, market.noTokenId)
  return {
    id: market.marketId,
    condition_id: market.conditionId,
    question: market.question,
    slug: market.slug,
    description: market.description,
    status: market.status,
    yes_token_id: market.yesTokenId,
    no_token_id: market.noTokenId,
    tokens: [
      { token_id: market.yesTokenId, outcome: 'Yes', price: priceOf(read, market.yesTokenId) },
      { token_id: market.noTokenId, outcome: 'No', price: priceOf(read, market.noTokenId) },
    ],
    tick_size: tickText(market.tickSizeMicros),
    min_order_size: decimalOfMicros(market.minOrderSizeMicros),
    fee_rate_bps: market.feeRateBps,
    neg_risk: market.negRisk,
    end_date: isoOfMs(market.endDateMs),
    created_at: new Date(market.createdMs).toISOString(),
    resolution: market.winningOutcome === null ? null
      : { outcome: market.winningOutcome, resolved_at: new Date(market.resolvedMs).toISOString() },
    best_bid: yesBook?.bids[0] === undefined ? null : decimalOfMicros(yesBook.bids[0].priceMicros),
    best_ask: yesBook?.asks[0] === undefined ? null : decimalOfMicros(yesBook.asks[0].priceMicros),
    last_trade_price: priceOf(read, market.yesTokenId),
    volume: decimalOfMicros(volume),
  }
}

/** Polymarket's Market object (reference section 5.1). */
export function compatMarket(read: ReadModel, market: MarketRecord): CompatMarket {
  const trading = market.status === 'Active'
  const closed = market.status === 'Closed' || market.status === 'Resolving' || market.status === 'Resolved'
  return {
    enable_order_book: true,
    active: market.status !== 'Upcoming' && !closed,
    closed,
    archived: false,
    accepting_orders: trading,
    accepting_order_timestamp: new Date(market.createdMs).toISOString(),
    minimum_order_size: Number(decimalOfMicros(market.minOrderSizeMicros)),
    minimum_tick_size: Number(tickText(market.tickSizeMicros)),
    condition_id: market.conditionId,
    question_id: market.conditionId,
    question: market.question,
    description: market.description,
    market_slug: market.slug,
    end_date_iso: isoOfMs(market.endDateMs),
    game_start_time: null,
    seconds_delay: 0,
    fpmm: '',
    maker_base_fee: market.feeRateBps,
    taker_base_fee: market.feeRateBps,
    notifications_enabled: false,
    neg_risk: market.negRisk,
    neg_risk_market_id: '',
    neg_risk_request_id: '',
    icon: '',
    image: '',
    rewards: { rates: null, min_size: 0, max_spread: 0 },
    is_50_50_outcome: false,
    tokens: [
      { token_id: market.yesTokenId, outcome: 'Yes', price: Number(priceOf(read, market.yesTokenId) ?? 0),
        winner: market.winningOutcome === 'Yes' },
      { token_id: market.noTokenId, outcome: 'No', price: Number(priceOf(read, market.noTokenId) ?? 0),
        winner: market.winningOutcome === 'No' },
    ],
    tags: [],
  }
}

/** OrderInfo: the seed's shape natively, Polymarket's OpenOrder in compat. */
export function orderInfo(read: ReadModel, order: OrderRecord, compat: true): CompatOrder
export function orderInfo(read: ReadModel, order: OrderRecord, compat: false, queueAhead?: ReadonlyMap<string, number>):
  NativeOrder
export function orderInfo(read: ReadModel, order: OrderRecord, compat: boolean,
  queueAhead?: ReadonlyMap<string, number>): NativeOrder | CompatOrder
/**
 * An order in its surface's shape; native answers carry its place in the queue when `queueAhead`
 * (trading.queueAheadOf) knows it, null otherwise.
 */
export function orderInfo(read: ReadModel, order: OrderRecord, compat: boolean,
  queueAhead?: ReadonlyMap<string, number>): NativeOrder | CompatOrder {
  if (compat) {
    const conditionId = read.markets.get(order.marketId)?.conditionId ?? order.marketId
    return orderFields(order, conditionId, String(order.expirationSec))
  }
  const expiration = order.expirationSec === 0 ? null : String(order.expirationSec * 1000)
  const ahead = queueAhead?.get(order.orderId)
  return { ...orderFields(order, order.marketId, expiration), order_hash: order.orderId,
    size_remaining: decimalOfMicros(order.remainingMicros),
    queue_ahead: ahead === undefined ? null : decimalOfMicros(ahead) }
}

type OrderFields<E> = Omit<NativeOrder, 'expiration' | 'order_hash' | 'size_remaining' | 'queue_ahead'> &
  { readonly expiration: E }

/** The fields both surfaces share, in the order sent, with the surface's market id and expiration in their places. */
function orderFields<E extends string | null>(order: OrderRecord, market: string, expiration: E): OrderFields<E> {
  return {
    id: order.orderId,
    status: order.status,
    owner: order.owner,
    maker_address: order.maker,
    market,
    asset_id: order.tokenId,
    side: order.side,
    original_size: decimalOfMicros(order.originalSizeMicros),
    size_matched: decimalOfMicros(order.sizeMatchedMicros),
    price: decimalOfMicros(order.priceMicros),
    associate_trades: order.associateTrades,
    outcome: order.outcome,
    created_at: Math.floor(order.createdMs / 1000),
    expiration,
    order_type: order.timeInForce,
  }
}

/** What a placement did, as every face reports it (REST's POST /order answer, gRPC's OrderPlacement). */
export interface PlacementReport {
  readonly orderId: string
  /** live: resting; matched: filled on entry (fully or partly); unmatched: ended without a fill. */
  readonly status: 'live' | 'matched' | 'unmatched'
  /** What the order gave, decimal; '' when nothing matched. */
  readonly makingAmount: string
  /** What it got, decimal; '' when nothing matched. */
  readonly takingAmount: string
  readonly fee: string
  readonly side: Placement['input']['side']
  /** The command that matched it settles its trades (src/chain/transaction.ts): none when it did not trade. */
  readonly transactionsHashes: string[]
  readonly tradeIds: readonly string[]
}

export function placementReport({ result, input, transactionHash }: Placement): PlacementReport {
  const filled = result.makingMicros > 0
  return {
    orderId: result.orderId,
    status: result.status === 'LIVE' ? 'live' : filled ? 'matched' : 'unmatched',
    makingAmount: filled ? decimalOfMicros(result.makingMicros) : '',
    takingAmount: filled ? decimalOfMicros(result.takingMicros) : '',
    fee: decimalOfMicros(result.feeMicros),
    side: input.side,
    transactionsHashes: result.tradeIds.length > 0 && transactionHash !== '' ? [transactionHash] : [],
    tradeIds: result.tradeIds,
  }
}

/** An order of the client listing (native GET /orders). */
export function clientOrder(order: OrderRecord): ClientOrder {
  return {
    id: order.orderId, market_id: order.marketId, token_id: order.tokenId, outcome: order.outcome, side: order.side,
    price: decimalOfMicros(order.priceMicros), size: decimalOfMicros(order.originalSizeMicros),
    size_remaining: decimalOfMicros(order.remainingMicros), status: order.status,
    created_at: Math.floor(order.createdMs / 1000),
  }
}

/** What a dry run (verify) leaves to the engine, said with every answer. */
export const VERIFY_NOTE = 'balance, allowance, duplicate and book checks run in the engine when the order is placed'

/** An order as shown to anyone (GET /users/:address/orders): without `owner`, the API key. */
export function publicOrder(order: NativeOrder): PublicOrder {
  const { owner: _owner, queue_ahead: _queueAhead, ...rest } = order
  return rest
}

/**
 * A trade as Polymarket reports it, from `forAddress`'s point of view (trader_side). On the builtin
 * chain a match is final (CONFIRMED, its command's transaction); on a real chain `settlement` says
 * where its settlement is and in which transaction (src/service/testnet/settlement.ts).
 */
export function tradeInfo(read: ReadModel, trade: TradeRecord, forAddress: string, compat: boolean,
  chainId: number, settlement: TradeSettlement | null = null): Trade {
  const market = read.markets.get(trade.marketId)
  const seconds = String(Math.floor(trade.timeMs / 1000))
  return {
    id: trade.tradeId,
    taker_order_id: trade.takerOrderId,
    market: compat ? market?.conditionId ?? trade.marketId : trade.marketId,
    asset_id: trade.tokenId,
    side: trade.side,
    size: decimalOfMicros(trade.sizeMicros),
    fee_rate_bps: String(trade.feeRateBps),
    price: decimalOfMicros(trade.priceMicros),
    status: settlement?.status ?? 'CONFIRMED',
    match_time: seconds,
    matchtime: seconds,
    last_update: settlement === null ? seconds : String(Math.floor(settlement.updatedMs / 1000)),
    outcome: trade.outcome,
    bucket_index: 0,
    owner: trade.takerOwner,
    maker_address: trade.takerAddress,
    transaction_hash: settlement === null ? transactionOf(chainId, trade.seq).transactionHash
      : settlement.transactionHash ?? '',
    trader_side: trade.takerAddress === forAddress ? 'TAKER' : 'MAKER',
    match_type: trade.matchType,
    fee: decimalOfMicros(trade.feeMicros),
    maker_orders: [{
      order_id: trade.makerOrderId,
      owner: trade.makerOwner,
      maker_address: trade.makerAddress,
      matched_amount: decimalOfMicros(trade.sizeMicros),
      price: decimalOfMicros(trade.makerPriceMicros),
      fee_rate_bps: String(trade.feeRateBps),
      asset_id: trade.makerTokenId,
      outcome: trade.makerOutcome,
      side: trade.makerSide,
    }],
  }
}

/** A trade as shown to anyone (GET /users/:address/trades): without the API keys of taker and maker. */
export function publicTrade(trade: Trade): PublicTrade {
  const { owner: _owner, maker_orders: [maker], ...rest } = trade
  const { owner: _makerOwner, ...publicMaker } = maker
  return { ...rest, maker_orders: [publicMaker] }
}

function levelOf(level: { readonly priceMicros: number; readonly sizeMicros: number }): BookLevel {
  return { price: decimalOfMicros(level.priceMicros), size: decimalOfMicros(level.sizeMicros) }
}

/** What a book summary says apart from its timestamp and hash: the same for as long as the book's version is. */
export interface BookContent {
  readonly fields: Omit<OrderBookSummary, 'timestamp' | 'hash'>
  /** The JSON before `"timestamp"`: `{"market":...,"asset_id":...` (no closing brace). */
  readonly head: string
  /** The JSON after `"hash"`: `,"bids":[...],...}`. */
  readonly tail: string
}

/** A book summary at one millisecond, and its JSON as REST sends it. */
export interface StampedBook {
  readonly summary: OrderBookSummary
  readonly json: JsonOf<OrderBookSummary>
}

/**
 * Polymarket's OrderBookSummary: bids ascending and asks descending (best level last), the
 * timestamp in milliseconds, and the hash as clob-client computes it: SHA-1 of the JSON of the
 * object with `hash` empty, keys in this order.
 */
export function bookSummary(read: ReadModel, book: BookView, nowMs: number): OrderBookSummary {
  return stampedBook(bookContent(read, book), nowMs).summary
}

/** The part of a book's summary that does not change with time, formatted once (stampedBook adds the rest). */
export function bookContent(read: ReadModel, book: BookView): BookContent {
  const market = read.markets.get(book.marketId)!
  const fields = {
    market: market.conditionId,
    asset_id: book.tokenId,
    bids: [...book.bids].reverse().map(levelOf),
    asks: [...book.asks].reverse().map(levelOf),
    min_order_size: decimalOfMicros(market.minOrderSizeMicros),
    tick_size: tickText(market.tickSizeMicros),
    neg_risk: market.negRisk,
    last_trade_price: priceOf(read, book.tokenId) ?? '',
  }
  const head = JSON.stringify({ market: fields.market, asset_id: fields.asset_id }).slice(0, -1)
  const { market: _market, asset_id: _assetId, ...rest } = fields
  return { fields, head, tail: ',' + JSON.stringify(rest).slice(1) }
}

/**
 * `content` at `nowMs`: the summary in Polymarket's key order (market, asset_id, timestamp, hash,
 * then the rest) and its JSON, built from the pieces rather than stringified again: character for
 * character what JSON.stringify of the summary gives (book-cache.test.ts).
 */
export function stampedBook(content: BookContent, nowMs: number): StampedBook {
  const { head, tail, fields } = content
  const timestamp = String(nowMs)
  const before = `${head},"timestamp":"${timestamp}","hash":"`
  const hash = createHash('sha1').update(`${before}"${tail}`).digest('hex')
  const summary: OrderBookSummary = { market: fields.market, asset_id: fields.asset_id, timestamp, hash,
    bids: fields.bids, asks: fields.asks, min_order_size: fields.min_order_size, tick_size: fields.tick_size,
    neg_risk: fields.neg_risk, last_trade_price: fields.last_trade_price }
  return { summary, json: builtJsonOf(`${before}${hash}"${tail}`, summary) }
}
