/**
 * The read model: what the front end answers reads from without asking the engine. It is a
 * projection of the engine's events (durable ones only: the host releases them after the
 * journal flush), applied in sequence order on the front end's thread before the results of the
 * same batch are released, so a client that gets its acknowledgement and reads at once sees its
 * own write. In memory it keeps what is bounded by the live state: the live orders and their
 * indexes, the markets, each token's own book (from `bookLevel` events), last trade prices and
 * volumes, each market's newest trades, and each wallet's running portfolio state. What grows with
 * history (orders that ended, trades, ledger records, each address's and token's lists, the
 * portfolio milestones) goes to a `History` (history.ts): on disk with a bounded cache in a
 * server (read-store.ts), in memory in tests.
 */
import type { Outcome, Side } from '../engine/command.js'
import type { CancelReason, ChainTransaction, EngineEvent, MarketRecord, OrderAccepted, OrderStatus, Trade }
  from '../engine/event.js'
import type { BookView } from '../engine/view.js'
import { notionalMicros } from '../engine/units.js'
import { LIVE_ACTIVITY_TRADES_MAX } from '../limits.js'
import type { Ticks } from './candles.js'
import { itemAt, itemsOf, MemoryHistory, type History, type ListItems, type ListName } from './history.js'
import { Portfolios, type WalletState } from './portfolio.js'

/** An accepted order as the read model keeps it: the acceptance event's fields, then its changing state. */
export interface OrderRecord extends Omit<OrderAccepted, 'type' | 'timeMs'> {
  readonly createdMs: number
  readonly seq: number
  /** Its place among the orders its command accepted (a batch accepts several in one seq). */
  readonly acceptIndex?: number
  sizeMatchedMicros: number
  remainingMicros: number
  status: OrderStatus
  reason: CancelReason | null
  readonly associateTrades: string[]
}

export interface TradeRecord extends Trade {
  readonly seq: number
}

/**
 * A ledger operation of the test network as it happened (an on-chain event): faucet credit,
 * approval, split, merge, redemption. Its transaction is its command's (src/chain/transaction.ts).
 */
export interface LedgerRecord {
  readonly seq: number
  /** Its place among the ledger records of its command. */
  readonly index: number
  readonly timeMs: number
  readonly action: 'credit' | 'approve' | 'split' | 'merge' | 'redeem'
  readonly address: string
  /** Empty for credits and approvals. */
  readonly marketId: string
  /** credit: USDC; approve: the USDC allowance; split/merge: full sets; redeem: shares burned. */
  readonly amountMicros: number
  /** credit: test gas; redeem: USDC paid out; otherwise 0. */
  readonly payoutMicros: number
  /** On a real chain, the chain's transaction it is of; absent on the builtin network (the command's is it). */
  readonly chainTransaction?: ChainTransaction
}

/**
 * One trade as seen from one token: its price on that token (a mint or merge trade prices the
 * other token at 1 - p).
 */
export interface Tick {
  readonly timeMs: number
  readonly priceMicros: number
  readonly sizeMicros: number
}

export interface TokenStats {
  lastTradePriceMicros: number | null
  lastTradeSide: Side | null
  volumeMicros: number
}

interface TokenBook {
  readonly marketId: string
  readonly bids: Map<number, number>
  readonly asks: Map<number, number>
}

/** What the read model keeps in memory across a restart besides the live orders (read-store.ts). */
export interface ModelState {
  readonly wallets: readonly [string, WalletState][]
  readonly tokenStats: readonly [string, TokenStats][]
  /** Market id -> its newest trades, oldest first. */
  readonly recentTrades: readonly [string, readonly TradeRecord[]][]
  readonly totals: Totals
}

/** Counts of everything projected so far (the admin's status). */
export interface Totals {
  orders: number
  trades: number
  /** Addresses that placed at least one order. */
  traders: number
}

export class ReadModel {
  /** Every command up to this seq is projected. */
  seq = 0
  readonly markets = new Map<string, MarketRecord>()
  readonly marketsByConditionId = new Map<string, MarketRecord>()
  readonly marketsBySlug = new Map<string, MarketRecord>()
  /** token id -> market id */
  readonly tokens = new Map<string, string>()
  /** The live orders (status LIVE): bounded by the engine's live orders. Ended ones are in the history. */
  private readonly liveOrders = new Map<string, OrderRecord>()
  /** clientKeyOf(owner, client order id) -> the id of the owner's live order that has it. */
  private readonly liveByClientKey = new Map<string, string>()
  /** Owner (API key) -> the ids of its live orders: bounded by the live orders, not by history. */
  private readonly liveByOwner = new Map<string, Set<string>>()
  /** Maker (address) -> the ids of its live orders, oldest first: its open orders without its history. */
  private readonly liveByMaker = new Map<string, Set<string>>()
  /**
   * Market id -> its newest trades, oldest first: at least LIVE_ACTIVITY_TRADES_MAX (when it has
   * that many), at most twice that (trimmed when full, so each trade costs O(1)).
   */
  private readonly recentTradesByMarket = new Map<string, TradeRecord[]>()
  readonly tokenStats = new Map<string, TokenStats>()
  /** Each wallet's portfolio history, fed with every trade and ledger record as it is projected. */
  readonly portfolios: Portfolios
  readonly totals: Totals = { orders: 0, trades: 0, traders: 0 }
  private readonly books = new Map<string, TokenBook>()
  /** Token id -> a counter bumped whenever anything of its book summary may change (levels, last trade, market). */
  private readonly versions = new Map<string, number>()
  /** Tokens and markets whose kept state changed since the last `drainState` (for persistence). */
  private changedTokens = new Set<string>()
  private changedMarkets = new Set<string>()
  /** Time and ledger records so far of the command being projected. */
  private commandTimeMs = 0
  private ledgerInCommand = 0
  /** Orders accepted so far by the command being projected. */
  private acceptedInCommand = 0

  constructor(readonly history: History = new MemoryHistory()) {
    this.portfolios = new Portfolios(history)
  }

  /** The time of the last command applied (the engine's stamp: replay gives the same). */
  get timeMs(): number {
    return this.commandTimeMs
  }

  /** Projects the events of one command, in order. */
  apply(seq: number, events: readonly EngineEvent[], timeMs: number): void {
    this.acceptedInCommand = 0
    this.ledgerInCommand = 0
    this.commandTimeMs = timeMs
    for (const event of events) this.project(seq, event)
    if (seq > this.seq) this.seq = seq
  }

  /** An order by id, live or ended, in its latest state. */
  order(orderId: string): OrderRecord | undefined {
    return this.liveOrders.get(orderId) ?? this.history.order(orderId)
  }

  trade(tradeId: string): TradeRecord | undefined {
    return this.history.trade(tradeId)
  }

  /** Every live order, in acceptance order. */
  allLiveOrders(): IterableIterator<OrderRecord> {
    return this.liveOrders.values()
  }

  /** How many items an address's or token's list holds (history.ts, ListItems). */
  count(list: ListName, key: string): number {
    return this.history.count(list, key)
  }

  /** Items `from` to `to` of an address's or token's list, in order. */
  range<L extends ListName>(list: L, key: string, from: number, to: number): ListItems[L][] {
    return this.history.range(list, key, from, to)
  }

  /** A token's trades' prices in time order, read where they are kept. */
  ticksOf(tokenId: string): Ticks {
    return { length: this.count('ticksByToken', tokenId),
      at: (index) => itemAt(this.history, 'ticksByToken', tokenId, index),
      from: (index) => this.items('ticksByToken', tokenId, index) }
  }

  /** The whole list, read in chunks as it is walked. */
  items<L extends ListName>(list: L, key: string, from = 0): Generator<ListItems[L]> {
    return itemsOf(this.history, list, key, from)
  }

  private project(seq: number, event: EngineEvent): void {
    switch (event.type) {
      case 'marketCreated': return this.putMarket(event.market)
      case 'marketUpdated': {
        const market = this.markets.get(event.marketId)
        if (market === undefined) return
        return this.putMarket({ ...market, status: event.status, tickSizeMicros: event.tickSizeMicros,
          feeRateBps: event.feeRateBps, winningOutcome: event.winningOutcome, resolvedMs: event.resolvedMs })
      }
      case 'orderAccepted': return this.onAccepted(seq, event)
      case 'orderUpdate': {
        const order = this.order(event.orderId)
        if (order === undefined) return
        order.status = event.status
        order.sizeMatchedMicros = event.sizeMatchedMicros
        order.remainingMicros = event.remainingMicros
        order.reason = event.reason
        if (event.status !== 'LIVE') this.forgetLive(order)
        this.history.putOrder(order)
        return
      }
      case 'trade': return this.onTrade(seq, event)
      case 'bookLevel':
        return this.onBookLevel(event.marketId, event.tokenId, event.side, event.priceMicros, event.sizeMicros)
      case 'ledger':
        return this.onLedger(seq, event.action, event.address, event.marketId, event.amountMicros, event.payoutMicros,
          event.chainTransaction)
      case 'allowance':
        return this.onLedger(seq, 'approve', event.address, '', event.usdcAllowanceMicros, 0, event.chainTransaction)
      case 'tradeReversed': {
        const trade = this.history.trade(event.tradeId)
        if (trade !== undefined) this.portfolios.reversal(trade, seq, this.commandTimeMs)
        return
      }
      default: return
    }
  }

  private onAccepted(seq: number, event: OrderAccepted): void {
    const order = orderRecordOf(event, seq, this.acceptedInCommand++)
    this.addOrder(order)
    this.history.putOrder(order)
  }

  /** A new order into the maker's list and, when live, the live indexes. */
  private addOrder(order: OrderRecord): void {
    if (this.history.count('ordersByMaker', order.maker) === 0) this.totals.traders++
    this.totals.orders++
    this.history.append('ordersByMaker', order.maker, order.orderId)
    this.indexLive(order)
  }

  /**
   * The live order of `owner` (an API key) that has this client order id, if any. The engine
   * decides duplicates; this answers reads (which order is "my order X") without asking it.
   */
  liveOrderOfClient(owner: string, clientOrderId: string): OrderRecord | undefined {
    if (clientOrderId === '') return undefined
    const orderId = this.liveByClientKey.get(clientKeyOf(owner, clientOrderId))
    return orderId === undefined ? undefined : this.liveOrders.get(orderId)
  }

  /**
   * The live orders of `owner` (an API key), oldest first: what an order-entry session's cancel on
   * disconnect (scope key) cancels, found without walking the wallet's whole history.
   */
  liveOrdersOfOwner(owner: string): OrderRecord[] {
    return [...this.liveByOwner.get(owner) ?? []].map((orderId) => this.liveOrders.get(orderId)!)
  }

  /** The live orders of a wallet (its maker address), oldest first. */
  liveOrdersOfMaker(address: string): OrderRecord[] {
    return [...this.liveByMaker.get(address) ?? []].map((orderId) => this.liveOrders.get(orderId)!)
  }

  /** The token of a market's outcome, or null for an unknown market. */
  tokenOf(marketId: string, outcome: Outcome): string | null {
    const market = this.markets.get(marketId)
    return market === undefined ? null : outcome === 'Yes' ? market.yesTokenId : market.noTokenId
  }

  private indexLive(order: OrderRecord): void {
    if (order.status !== 'LIVE') return
    this.liveOrders.set(order.orderId, order)
    addTo(this.liveByOwner, order.owner, order.orderId)
    addTo(this.liveByMaker, order.maker, order.orderId)
    if (order.clientOrderId === '') return
    this.liveByClientKey.set(clientKeyOf(order.owner, order.clientOrderId), order.orderId)
  }

  private forgetLive(order: OrderRecord): void {
    this.liveOrders.delete(order.orderId)
    removeFrom(this.liveByOwner, order.owner, order.orderId)
    removeFrom(this.liveByMaker, order.maker, order.orderId)
    if (order.clientOrderId === '') return
    const key = clientKeyOf(order.owner, order.clientOrderId)
    if (this.liveByClientKey.get(key) === order.orderId) this.liveByClientKey.delete(key)
  }

  private onTrade(seq: number, trade: Trade): void {
    const record = tradeRecordOf(trade, seq)
    this.history.putTrade(record)
    this.totals.trades++
    this.history.append('tradesByAddress', trade.takerAddress, trade.tradeId)
    if (trade.makerAddress !== trade.takerAddress) {
      this.history.append('tradesByAddress', trade.makerAddress, trade.tradeId)
    }
    this.keepRecent(record)
    this.portfolios.trade(record)
    for (const orderId of [trade.takerOrderId, trade.makerOrderId]) {
      const order = this.order(orderId)
      if (order === undefined) continue
      order.associateTrades.push(trade.tradeId)
      this.history.putOrder(order)
    }
    this.statTrade(trade)
  }

  /** A market's newest trades (at most LIVE_ACTIVITY_TRADES_MAX), newest first. */
  recentTradesOf(marketId: string): TradeRecord[] {
    return (this.recentTradesByMarket.get(marketId) ?? []).slice(-LIVE_ACTIVITY_TRADES_MAX).reverse()
  }

  private keepRecent(trade: TradeRecord): void {
    push(this.recentTradesByMarket, trade.marketId, trade)
    this.changedMarkets.add(trade.marketId)
    const kept = this.recentTradesByMarket.get(trade.marketId)!
    if (kept.length >= 2 * LIVE_ACTIVITY_TRADES_MAX) kept.splice(0, kept.length - LIVE_ACTIVITY_TRADES_MAX)
  }

  /** A trade's tick on its token and, when the maker's token differs (a mint or merge), on the maker's. */
  private statTrade(trade: Trade): void {
    this.stat(trade.tokenId, trade.priceMicros, trade.side, trade.sizeMicros, trade.timeMs)
    if (trade.makerTokenId !== trade.tokenId) {
      this.stat(trade.makerTokenId, trade.makerPriceMicros, trade.makerSide, trade.sizeMicros, trade.timeMs)
    }
  }

  private onLedger(seq: number, action: LedgerRecord['action'], address: string, marketId: string, amountMicros: number,
    payoutMicros: number, chainTransaction: ChainTransaction | undefined): void {
    const record: LedgerRecord = { seq, index: this.ledgerInCommand++, timeMs: this.commandTimeMs, action, address,
      marketId, amountMicros, payoutMicros, ...(chainTransaction === undefined ? {} : { chainTransaction }) }
    this.indexLedger(record)
    this.portfolios.ledger(record)
  }

  private indexLedger(record: LedgerRecord): void {
    this.history.append('ledgerByAddress', record.address, record)
    if (record.action === 'redeem') this.history.append('redemptionsByAddress', record.address, record)
  }

  private stat(tokenId: string, priceMicros: number, side: Side, sizeMicros: number, timeMs: number): void {
    this.bump(tokenId)
    this.history.append('ticksByToken', tokenId, { timeMs, priceMicros, sizeMicros })
    this.changedTokens.add(tokenId)
    const stats = this.statsOf(tokenId)
    stats.lastTradePriceMicros = priceMicros
    stats.lastTradeSide = side
    stats.volumeMicros += notionalMicros(priceMicros, sizeMicros)
  }

  statsOf(tokenId: string): TokenStats {
    let stats = this.tokenStats.get(tokenId)
    if (stats === undefined) {
      stats = { lastTradePriceMicros: null, lastTradeSide: null, volumeMicros: 0 }
      this.tokenStats.set(tokenId, stats)
    }
    return stats
  }

  /** Changes whenever the token's book, its last trade or its market changes (for caches of formatted books). */
  versionOf(tokenId: string): number {
    return this.versions.get(tokenId) ?? 0
  }

  private bump(tokenId: string): void {
    this.versions.set(tokenId, this.versionOf(tokenId) + 1)
  }

  private onBookLevel(marketId: string, tokenId: string, side: Side, priceMicros: number, sizeMicros: number): void {
    this.bump(tokenId)
    const book = this.bookOf(tokenId, marketId)
    const levels = side === 'BUY' ? book.bids : book.asks
    if (sizeMicros === 0) levels.delete(priceMicros)
    else levels.set(priceMicros, sizeMicros)
  }

  private bookOf(tokenId: string, marketId: string): TokenBook {
    let book = this.books.get(tokenId)
    if (book === undefined) {
      book = { marketId, bids: new Map(), asks: new Map() }
      this.books.set(tokenId, book)
    }
    return book
  }

  putMarket(market: MarketRecord): void {
    this.markets.set(market.marketId, market)
    this.marketsByConditionId.set(market.conditionId, market)
    this.marketsBySlug.set(market.slug, market)
    this.tokens.set(market.yesTokenId, market.marketId)
    this.tokens.set(market.noTokenId, market.marketId)
    this.bump(market.yesTokenId)
    this.bump(market.noTokenId)
    this.bookOf(market.yesTokenId, market.marketId)
    this.bookOf(market.noTokenId, market.marketId)
  }

  /** Replaces a token's book (start-up: the engine's own view). */
  setBook(view: BookView): void {
    this.bump(view.tokenId)
    const book = this.bookOf(view.tokenId, view.marketId)
    book.bids.clear()
    book.asks.clear()
    for (const level of view.bids) book.bids.set(level.priceMicros, level.sizeMicros)
    for (const level of view.asks) book.asks.set(level.priceMicros, level.sizeMicros)
  }

  /** The best bid and ask of a token's own book (null: that side is empty), without sorting it. */
  bestPrices(tokenId: string): { bidMicros: number | null; askMicros: number | null } {
    const book = this.books.get(tokenId)
    let bidMicros: number | null = null
    let askMicros: number | null = null
    for (const price of book?.bids.keys() ?? []) if (bidMicros === null || price > bidMicros) bidMicros = price
    for (const price of book?.asks.keys() ?? []) if (askMicros === null || price < askMicros) askMicros = price
    return { bidMicros, askMicros }
  }

  /** A token's own book, best first, or null for an unknown token. */
  book(tokenId: string): BookView | null {
    const book = this.books.get(tokenId)
    if (book === undefined) return null
    const sorted = (levels: Map<number, number>, descending: boolean) => [...levels]
      .sort((a, b) => (descending ? b[0] - a[0] : a[0] - b[0]))
      .map(([priceMicros, sizeMicros]) => ({ priceMicros, sizeMicros }))
    return { marketId: book.marketId, tokenId, bids: sorted(book.bids, true), asks: sorted(book.asks, false) }
  }

  /**
   * A token's book with the implied liquidity of the other token of its market: a bid for No at
   * q is an ask for Yes at 1 - q, and an ask for No at q a bid for Yes at 1 - q.
   */
  unifiedBook(tokenId: string): BookView | null {
    const own = this.book(tokenId)
    const market = own === null ? undefined : this.markets.get(own.marketId)
    if (own === null || market === undefined) return null
    const other = this.book(tokenId === market.yesTokenId ? market.noTokenId : market.yesTokenId)!
    type Levels = readonly { priceMicros: number; sizeMicros: number }[]
    const merge = (a: Levels, implied: Levels, descending: boolean) => {
      const levels = new Map<number, number>()
      for (const level of a) levels.set(level.priceMicros, level.sizeMicros)
      for (const level of implied) {
        const price = 1_000_000 - level.priceMicros
        levels.set(price, (levels.get(price) ?? 0) + level.sizeMicros)
      }
      return [...levels].sort((x, y) => (descending ? y[0] - x[0] : x[0] - y[0]))
        .map(([priceMicros, sizeMicros]) => ({ priceMicros, sizeMicros }))
    }
    return { marketId: own.marketId, tokenId, bids: merge(own.bids, other.asks, true),
      asks: merge(own.asks, other.bids, false) }
  }

  /** What changed of the kept state since the last call (read-store.ts writes it with the history). */
  drainState(): ModelState {
    const tokenStats = [...this.changedTokens].map((tokenId): [string, TokenStats] => [tokenId, this.statsOf(tokenId)])
    const recentTrades = [...this.changedMarkets].map((marketId): [string, TradeRecord[]] =>
      [marketId, this.recentTradesByMarket.get(marketId) ?? []])
    this.changedTokens = new Set()
    this.changedMarkets = new Set()
    return { wallets: this.portfolios.drainChanged(), tokenStats, recentTrades, totals: { ...this.totals } }
  }

  /** Back to a kept state and live orders (start-up; the markets and books come from the engine). */
  restore(state: ModelState, liveOrders: Iterable<OrderRecord>): void {
    for (const [address, wallet] of state.wallets) this.portfolios.restore(address, wallet)
    for (const [tokenId, stats] of state.tokenStats) this.tokenStats.set(tokenId, { ...stats })
    for (const [marketId, trades] of state.recentTrades) this.recentTradesByMarket.set(marketId, [...trades])
    Object.assign(this.totals, state.totals)
    const sorted = [...liveOrders].sort((a, b) => a.seq - b.seq || (a.acceptIndex ?? 0) - (b.acceptIndex ?? 0))
    for (const order of sorted) this.indexLive(withClientOrderId(order))
  }

  /**
   * Loads the records of a read store written before the history lists (format 1), rebuilding
   * the lists, the live indexes and the portfolios from them: once, at the first start after an
   * upgrade (read-store.ts), which then keeps them in the new form.
   */
  loadRecords(orders: Iterable<OrderRecord>, trades: Iterable<TradeRecord>, ledger: Iterable<LedgerRecord> = []): void {
    const sortedLedger = [...ledger].sort((a, b) => a.seq - b.seq || a.index - b.index)
    for (const record of sortedLedger) this.indexLedger(record)
    // Acceptance order: by command, then by place within the command (the orders of a batch).
    const sortedOrders = [...orders].sort((a, b) => a.seq - b.seq || (a.acceptIndex ?? 0) - (b.acceptIndex ?? 0))
    for (const stored of sortedOrders) {
      const order = withClientOrderId(stored)
      this.addOrder(order)
      this.history.putOrder(order)
    }
    const sortedTrades = [...trades].sort((a, b) => a.seq - b.seq || (a.tradeId < b.tradeId ? -1 : 1))
    for (const trade of sortedTrades) {
      this.history.putTrade(trade)
      this.totals.trades++
      this.history.append('tradesByAddress', trade.takerAddress, trade.tradeId)
      if (trade.makerAddress !== trade.takerAddress) {
        this.history.append('tradesByAddress', trade.makerAddress, trade.tradeId)
      }
      this.keepRecent(trade)
      this.statTrade(trade)
    }
    this.loadPortfolios(sortedTrades, sortedLedger)
  }

  /**
   * The portfolio histories from the loaded records, in journal order: by command, and within one
   * the trades before the ledger records (no command makes both for one wallet; this is the order
   * the histories have always been replayed in).
   */
  private loadPortfolios(trades: readonly TradeRecord[], ledger: readonly LedgerRecord[]): void {
    let next = 0
    for (const trade of trades) {
      while (next < ledger.length && ledger[next]!.seq < trade.seq) this.portfolios.ledger(ledger[next++]!)
      this.portfolios.trade(trade)
    }
    while (next < ledger.length) this.portfolios.ledger(ledger[next++]!)
  }
}

/** Records stored before client order ids have none. */
function withClientOrderId(order: OrderRecord): OrderRecord {
  return order.clientOrderId === undefined ? { ...order, clientOrderId: '' } : order
}

/** One string for the pair, the owner's length first so that no two pairs share it. */
function clientKeyOf(owner: string, clientOrderId: string): string {
  return `${owner.length}:${owner}${clientOrderId}`
}

function addTo(index: Map<string, Set<string>>, key: string, value: string): void {
  let set = index.get(key)
  if (set === undefined) index.set(key, set = new Set())
  set.add(value)
}

/** Removes `value` from `key`'s set, and the set once it is empty (the index stays bounded by what is live). */
function removeFrom(index: Map<string, Set<string>>, key: string, value: string): void {
  const set = index.get(key)
  if (set?.delete(value) === true && set.size === 0) index.delete(key)
}

function push<T>(index: Map<string, T[]>, key: string, value: T): void {
  let list = index.get(key)
  if (list === undefined) {
    list = []
    index.set(key, list)
  }
  list.push(value)
}

/**
 * A new order's record, its fields written out. It was an object rest and spread of the event
 * (`{ type, timeMs, ...fields }`, then `{ ...fields, createdMs, ... }`): in bench:growth's stream
 * (200 000 commands, --cpu-prof, two runs each way) that took 2.3-2.4 s of the main thread's
 * 17-18 s, and 1.0-1.4 s more of its collections; written out, 0.5 s and 13.7-14.7 s in all, and
 * 19-22 % more commands a second.
 */
function orderRecordOf(event: OrderAccepted, seq: number, acceptIndex: number): OrderRecord {
  return { orderId: event.orderId, marketId: event.marketId, tokenId: event.tokenId, outcome: event.outcome,
    side: event.side, owner: event.owner, maker: event.maker, signer: event.signer, priceMicros: event.priceMicros,
    originalSizeMicros: event.originalSizeMicros, makerAmountMicros: event.makerAmountMicros,
    takerAmountMicros: event.takerAmountMicros, timeInForce: event.timeInForce, postOnly: event.postOnly,
    expirationSec: event.expirationSec, clientOrderId: event.clientOrderId, createdMs: event.timeMs, seq, acceptIndex,
    sizeMatchedMicros: 0, remainingMicros: event.originalSizeMicros, status: 'LIVE', reason: null, associateTrades: [] }
}

/** A trade's record, its fields written out (orderRecordOf says why). */
function tradeRecordOf(trade: Trade, seq: number): TradeRecord {
  return { type: trade.type, tradeId: trade.tradeId, marketId: trade.marketId, matchType: trade.matchType,
    takerOrderId: trade.takerOrderId, takerAddress: trade.takerAddress, takerOwner: trade.takerOwner,
    tokenId: trade.tokenId, outcome: trade.outcome, side: trade.side, priceMicros: trade.priceMicros,
    sizeMicros: trade.sizeMicros, feeMicros: trade.feeMicros, feeRateBps: trade.feeRateBps,
    makerOrderId: trade.makerOrderId, makerAddress: trade.makerAddress, makerOwner: trade.makerOwner,
    makerTokenId: trade.makerTokenId, makerOutcome: trade.makerOutcome, makerSide: trade.makerSide,
    makerPriceMicros: trade.makerPriceMicros, timeMs: trade.timeMs, seq }
}
