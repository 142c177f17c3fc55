/**
 * The demo market maker's loop. It keeps a bid and an ask on both outcomes of each market it
 * was given, around a fair value read from the book stream (the mid of the OTHERS' best bid and
 * ask on Yes: its own quotes are taken out of the levels, or it would chase itself), and
 * replaces them when the fair value moves by a tick or one of them fills (the user stream says
 * so). Orders go through one order-entry session, post-only, so the maker never takes.
 *
 * It uses the market-maker controls (issue 31): each re-quote of a market is ONE mass quote (its
 * unchanged quotes sent again as they were signed, so they keep their place and cost no signature
 * check; the others signed afresh; the old ones the quote leaves out cancelled in the same engine
 * command), and when a fill leaves it holding a quote's size of an outcome it amends its bid on that
 * outcome down to half (keeping its place) instead of pulling it.
 *
 * Its own quotes stay "its own" on the book until the book has caught up with their cancel: a
 * cancel's journal sequence number is compared with the book's, so an old quote still shown by
 * the book stream is not mistaken for someone else's liquidity.
 */
import type { Market } from '../../src/gen/predex/v1/market_data_pb.js'
import type { Order } from '../../src/gen/predex/v1/common_pb.js'
import type { BookStream } from '../../src/client/grpc/book-stream.js'
import type { OrderEntrySession } from '../../src/client/grpc/order-entry-session.js'
import type { PredexGrpcClient } from '../../src/client/grpc/predex-grpc-client.js'
import type { UserStream } from '../../src/client/grpc/user-stream.js'
import { microsOf } from '../../src/client/grpc/local-book.js'
import type { TickSize } from '../../src/client/order-amounts.js'
import { signLimitOrder, type MarketTerms } from '../../src/client/orders.js'
import type { Wallet } from '../../src/crypto/wallet.js'
import {
  bestOfOthers, fairMicrosOf, notionalMicros, ONE_MICROS, microsText, quotesAround, sharesText, usdcText, type Quote,
} from './quoting.js'

export interface MakerOptions {
  /** Shares per quote. */
  readonly sizeMicros: bigint
  /** How far from the fair value each quote sits. */
  readonly edgeTicks: bigint
  readonly chainId: number
  readonly print: (line: string) => void
}

interface MarketState {
  readonly market: Market
  readonly label: string
  readonly terms: MarketTerms
  readonly tickMicros: bigint
  quotedFairMicros: bigint | null
  fairMicros: bigint
  /** A replacement is under way; `again`: another was asked for meanwhile. */
  busy: boolean
  again: boolean
  /** Changes since the start: shares of each outcome, and USDC. */
  yesMicros: bigint
  noMicros: bigint
  cashMicros: bigint
}

interface Resting {
  readonly orderId: string
  /** The order as signed: sent again as it is, a mass quote keeps it where it rests. */
  readonly signed: ReturnType<typeof signLimitOrder>
  readonly state: MarketState
  readonly tokenId: string
  readonly quote: Quote
  readonly sizeMicros: bigint
  filledMicros: bigint
  acked: boolean
  /** The maker sent its cancel (its end is no news). */
  cancelAsked: boolean
  /** The engine sequence number of the command that ended it (cancel, last fill); null while it rests. */
  goneAtEngineSeq: bigint | null
  canceledSeen: boolean
}

const LABEL_LENGTH = 24
/** After Ctrl-C: how long to watch the user stream for the server's cancels before exiting anyway. */
const CANCELS_WAIT_MS = 5_000

export class Maker {
  private readonly states: MarketState[]
  private readonly stateOfToken = new Map<string, MarketState>()
  private readonly orders = new Map<string, Resting>()
  private readonly books: BookStream
  private readonly user: UserStream
  /** Set by `stop()`: no new quote goes out. */
  stopping = false
  private cancelsSeen: (() => void) | null = null
  /** The quotes resting when the maker stopped: the server's cancel on disconnect must end them. */
  private leaving: readonly Resting[] = []

  constructor(client: PredexGrpcClient, private readonly session: OrderEntrySession, private readonly wallet: Wallet,
    markets: readonly Market[], private readonly options: MakerOptions) {
    this.states = markets.map((market) => this.stateOf(market))
    for (const state of this.states) {
      this.stateOfToken.set(state.market.yesTokenId, state)
      this.stateOfToken.set(state.market.noTokenId, state)
    }
    this.books = client.bookStream([...this.stateOfToken.keys()])
    this.user = client.userStream()
  }

  /** Quotes until `stop()`; resolves when both streams have ended (the client closed). */
  async run(): Promise<void> {
    await Promise.all([this.followBooks(), this.followUser()])
  }

  /**
   * Stops quoting and drops the session WITHOUT `close`: the server's cancel on disconnect
   * (SESSION) cancels every order of the session, which is the point of the demo; a crash would
   * be cleaned up the same way. It then watches the user stream for those cancels (bounded).
   */
  async stop(): Promise<void> {
    if (this.stopping) return
    this.stopping = true
    const leaving = this.resting()
    this.leaving = leaving
    this.say('STOP', `dropping the session without close: cancel on disconnect cancels ${leaving.length} orders`)
    this.session.disconnect()
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CANCELS_WAIT_MS)
      this.cancelsSeen = () => {
        clearTimeout(timer)
        resolve()
      }
      this.checkCancelsSeen()
    })
    const seen = leaving.filter((order) => order.canceledSeen).length
    this.say('DONE', `${seen}/${leaving.length} quotes canceled by the server; P&L ${usdcText(this.pnlMicros())} USDC`)
  }

  private stateOf(market: Market): MarketState {
    const tickSize = market.tickSize as TickSize
    return {
      market, label: (market.slug || market.id).slice(0, LABEL_LENGTH).padEnd(LABEL_LENGTH),
      terms: { tickSize, negRisk: market.negRisk, feeRateBps: market.feeRateBps, chainId: this.options.chainId },
      tickMicros: microsOf(market.tickSize), quotedFairMicros: null, fairMicros: ONE_MICROS / 2n, busy: false,
      again: false, yesMicros: 0n, noMicros: 0n, cashMicros: 0n,
    }
  }

  private async followBooks(): Promise<void> {
    for await (const update of this.books) {
      if (this.stopping) break
      const state = this.stateOfToken.get(update.tokenId)
      if (state === undefined || update.kind === 'trade') continue
      this.forgetGone(update.tokenId, update.book.engineSeq)
      this.consider(state)
    }
  }

  /** Quotes that ended by `engineSeq` are off the token's book as the stream shows it: no longer ours there. */
  private forgetGone(tokenId: string, engineSeq: bigint): void {
    for (const order of this.orders.values()) {
      const gone = order.goneAtEngineSeq
      if (order.tokenId === tokenId && gone !== null && gone <= engineSeq) this.orders.delete(order.orderId)
    }
  }

  private async followUser(): Promise<void> {
    for await (const update of this.user) {
      const value = update.update
      if (value.case === 'order') this.onOrder(value.value, update.engineSeq)
      else if (value.case === 'snapshot') for (const order of value.value.orders) this.onOrder(order, update.engineSeq)
      else if (value.case === 'gap') this.say('GAP', 'the user stream could not resume: re-read from a snapshot')
      if (this.stopping) this.checkCancelsSeen()
    }
  }

  /** Requotes a market whose fair value moved by a tick or more (or was never quoted). */
  private consider(state: MarketState): void {
    const book = this.books.books.get(state.market.yesTokenId)
    if (book === undefined || !book.ready) return
    const own = { BUY: new Map<bigint, bigint>(), SELL: new Map<bigint, bigint>() }
    for (const order of this.orders.values()) {
      if (order.tokenId !== book.tokenId) continue
      const sizes = own[order.quote.side]
      const left = order.sizeMicros - order.filledMicros
      sizes.set(order.quote.priceMicros, (sizes.get(order.quote.priceMicros) ?? 0n) + left)
    }
    const fair = fairMicrosOf(bestOfOthers(book.bids(), own.BUY), bestOfOthers(book.asks(), own.SELL),
      state.tickMicros)
    state.fairMicros = fair
    const quoted = state.quotedFairMicros
    if (quoted !== null && (fair > quoted ? fair - quoted : quoted - fair) < state.tickMicros) return
    if (quoted !== null) this.say('MOVE', `${state.label} fair ${microsText(quoted)} -> ${microsText(fair)}`)
    this.requote(state)
  }

  private requote(state: MarketState): void {
    if (this.stopping) return
    if (state.busy) {
      state.again = true
      return
    }
    state.busy = true
    void (async () => {
      try {
        do {
          state.again = false
          await this.replaceQuotes(state)
        } while (state.again && !this.stopping)
      } catch (error) {
        if (!this.stopping) this.say('ERROR', `${state.label} ${(error as Error).message}`)
      } finally {
        state.busy = false
      }
    })()
  }

  /**
   * Sets the market's four quotes around the fair value in one mass quote: a quote already resting
   * whole at its price is sent again as it was signed (kept, its place unchanged), the others are
   * signed afresh, and the old ones left out are cancelled by the same engine command.
   */
  private async replaceQuotes(state: MarketState): Promise<void> {
    const live = this.resting().filter((order) => order.state === state)
    const fair = state.fairMicros
    const quotes = quotesAround(fair, state.tickMicros, this.options.edgeTicks)
    const levels = quotes.map((quote) => live.find((order) => sameQuote(order.quote, quote) &&
      order.filledMicros === 0n && order.sizeMicros === this.options.sizeMicros) ?? this.signed(state, quote))
    for (const order of levels) this.orders.set(order.orderId, order)
    for (const order of live) if (!levels.includes(order)) order.cancelAsked = true
    state.quotedFairMicros = fair
    const { value } = await this.session.massQuote(state.market.id, levels.map((order) => ({ signed: order.signed,
      postOnly: true })))
    for (const order of live) if (value.canceled.includes(order.orderId)) order.goneAtEngineSeq = value.engineSeq
    const refused: string[] = []
    let kept = 0
    value.levels.forEach((level, index) => {
      const resting = levels[index]!
      if (level.outcome.case === 'kept') kept++
      if (level.outcome.case === 'kept' || level.outcome.value === undefined ||
        (level.outcome.case === 'placement' && level.outcome.value.result.case === 'placed')) {
        resting.acked = true
        return
      }
      this.orders.delete(resting.orderId)
      const result = level.outcome.case === 'placement' ? level.outcome.value.result : null
      const code = level.outcome.case === 'gone' ? 'gone' : result?.case === 'refused' ? result.value.code : 'refused'
      const { side, outcome, priceMicros } = resting.quote
      refused.push(`${side} ${outcome} ${microsText(priceMicros)}: ${code}`)
    })
    const text = (outcome: 'Yes' | 'No'): string => quotes.filter((q) => q.outcome === outcome)
      .map((q) => microsText(q.priceMicros)).join(' / ')
    const refusals = refused.length > 0 ? `  refused: ${refused.join(', ')}` : ''
    this.say('QUOTE', `${state.label} Yes ${text('Yes')}  No ${text('No')}  x${microsText(this.options.sizeMicros)}`
      + `  fair ${microsText(fair)}  kept ${kept}, cancelled ${value.canceled.length}${refusals}`)
  }

  private signed(state: MarketState, quote: Quote): Resting {
    const tokenId = quote.outcome === 'Yes' ? state.market.yesTokenId : state.market.noTokenId
    const signed = signLimitOrder(this.wallet, state.terms, { tokenId, side: quote.side,
      price: microsText(quote.priceMicros), size: microsText(this.options.sizeMicros) })
    return { orderId: signed.orderId, signed, state, tokenId, quote, sizeMicros: this.options.sizeMicros,
      filledMicros: 0n, acked: false, cancelAsked: false, goneAtEngineSeq: null, canceledSeen: false }
  }

  /** An order update of the user stream: a fill moves the position; an end takes the quote off. */
  private onOrder(update: Order, engineSeq: bigint): void {
    const order = this.orders.get(update.id)
    if (order === undefined) return
    const matchedMicros = microsOf(update.sizeMatched || '0')
    const fillMicros = matchedMicros - order.filledMicros
    if (fillMicros > 0n) this.filled(order, fillMicros)
    order.filledMicros = matchedMicros
    if (update.status === 'CANCELED') order.canceledSeen = true
    if (update.status !== 'LIVE' && order.goneAtEngineSeq === null) order.goneAtEngineSeq = engineSeq
    // A fill (the quote is smaller now) or an end the maker did not ask for: quote the market afresh.
    if (fillMicros > 0n || (update.status !== 'LIVE' && !order.cancelAsked)) this.requote(order.state)
  }

  private filled(order: Resting, sharesMicros: bigint): void {
    const state = order.state
    const { outcome, side, priceMicros } = order.quote
    const signed = side === 'BUY' ? sharesMicros : -sharesMicros
    if (outcome === 'Yes') state.yesMicros += signed
    else state.noMicros += signed
    const usdcMicros = notionalMicros(priceMicros, sharesMicros)
    state.cashMicros += side === 'BUY' ? -usdcMicros : usdcMicros
    this.say('FILL', `${state.label} ${side} ${outcome} ${microsText(sharesMicros)} @ ${microsText(priceMicros)}`
      + `  pos Yes ${sharesText(state.yesMicros)} No ${sharesText(state.noMicros)}`
      + `  P&L ${usdcText(this.marketPnlMicros(state))} USDC (total ${usdcText(this.pnlMicros())})`)
    if (side === 'BUY') void this.lowerBid(state, outcome)
  }

  /**
   * Holding a quote's size or more of an outcome, the maker halves its bid on it with an amend:
   * the bid keeps its place in the queue, and no new order is signed.
   */
  private async lowerBid(state: MarketState, outcome: 'Yes' | 'No'): Promise<void> {
    const held = outcome === 'Yes' ? state.yesMicros : state.noMicros
    if (held < this.options.sizeMicros || this.stopping) return
    const bid = this.resting().find((order) => order.state === state && order.quote.outcome === outcome &&
      order.quote.side === 'BUY')
    const half = this.options.sizeMicros / 2n
    if (bid === undefined || bid.sizeMicros - bid.filledMicros <= half) return
    try {
      const { value } = await this.session.amend(bid.orderId, { newSize: microsText(half) })
      this.say('AMEND', `${state.label} BUY ${outcome} ${microsText(bid.quote.priceMicros)} down to `
        + `${value.sizeRemaining} (holding ${sharesText(held)}): its place kept`)
    } catch (error) {
      if (!this.stopping) this.say('AMEND', `${state.label} not amended: ${(error as Error).message}`)
    }
  }

  /** Cash plus the shares bought or sold since the start, marked at the fair value. */
  private marketPnlMicros(state: MarketState): bigint {
    return state.cashMicros + notionalMicros(state.fairMicros, state.yesMicros)
      + notionalMicros(ONE_MICROS - state.fairMicros, state.noMicros)
  }

  private pnlMicros(): bigint {
    return this.states.reduce((sum, state) => sum + this.marketPnlMicros(state), 0n)
  }

  /** Quotes acknowledged and still resting (as far as this maker knows). */
  private resting(): Resting[] {
    return [...this.orders.values()].filter((order) => order.acked && order.goneAtEngineSeq === null)
  }

  private checkCancelsSeen(): void {
    if (this.cancelsSeen === null || this.leaving.some((order) => !order.canceledSeen)) return
    const done = this.cancelsSeen
    this.cancelsSeen = null
    done()
  }

  private say(kind: string, text: string): void {
    this.options.print(`${new Date().toISOString().slice(11, 23)} ${kind.padEnd(5)} ${text}`)
  }
}


function sameQuote(a: Quote, b: Quote): boolean {
  return a.side === b.side && a.outcome === b.outcome && a.priceMicros === b.priceMicros
}
