/**
 * An order-entry session: one trader's stream of trading requests (docs/grpc.md, "Order entry"),
 * whatever face carries it. What a session adds to the trading use cases:
 *
 * - Order: the engine commands of a session reach the engine in request order (a cancel sent
 *   after a place applies after it), while the signature checks of consecutive places run in
 *   parallel (in-order.ts). Results come back in request order too: the face writes them so.
 * - Cancel on disconnect: when the session ends without a clean close (the client went away, its
 *   stream failed, the dead-man timer fired, the server stops), it cancels the open orders of its
 *   API key (scope 'key': placed on any session or over REST) or those placed on this session
 *   (scope 'session'), once every request it read has been answered. The cancel is an ordinary
 *   engine command (cancelOrders, journaled), logged with the key.
 * - The dead-man timer: with cancel on disconnect, a session that receives no request (a ping
 *   counts) for `deadManMs` is ended by its face, and the cancel applies.
 */
import { ApiCode, PredexError } from '../../errors.js'
import {
  ORDER_ENTRY_DEAD_MAN_MS_DEFAULT,
  ORDER_ENTRY_DEAD_MAN_MS_MAX,
  ORDER_ENTRY_DEAD_MAN_MS_MIN,
  ORDER_ENTRY_TRACKED_ORDERS_PRUNE_MIN,
  ORDER_ENTRY_VERIFYING_MAX,
} from '../../limits.js'
import type { ServiceContext } from '../context.js'
import { InOrder } from './in-order.js'
import { checkedOrder, type SignedOrder } from './order-intake.js'
import * as trading from './trading.js'
import * as quotes from './quotes.js'
import type { BatchEntry, BatchOutcome, CancelOutcome, OrderOutcome, Trader } from './trading.js'
import type { Log } from '../../log.js'

/** Which open orders a session cancels when it ends without a clean close. */
export type CancelScope = 'none' | 'key' | 'session'

export interface SessionSettings {
  readonly cancelOnDisconnect: CancelScope
  /** The dead-man interval; 0: no timer (only without cancel on disconnect). */
  readonly deadManMs: number
}

/** A session that was not configured: nothing is cancelled, no timer. */
export const PLAIN_SESSION: SessionSettings = { cancelOnDisconnect: 'none', deadManMs: 0 }

/**
 * The settings a client asks for, checked: the dead-man interval within its bounds (0: the
 * default), and only with cancel on disconnect (a timer that cancels nothing would only end
 * streams).
 */
export function sessionSettingsOf(cancelOnDisconnect: CancelScope, deadManMs: number): SessionSettings {
  if (cancelOnDisconnect === 'none') {
    if (deadManMs !== 0) {
      throw new PredexError(ApiCode.INVALID_PARAMETER, 'a dead-man interval needs cancel on disconnect',
        { field: 'deadManMs' })
    }
    return PLAIN_SESSION
  }
  const intervalMs = deadManMs === 0 ? ORDER_ENTRY_DEAD_MAN_MS_DEFAULT : deadManMs
  if (!Number.isInteger(intervalMs) || intervalMs < ORDER_ENTRY_DEAD_MAN_MS_MIN ||
    intervalMs > ORDER_ENTRY_DEAD_MAN_MS_MAX) {
    throw new PredexError(ApiCode.INVALID_PARAMETER,
      `the dead-man interval must be ${ORDER_ENTRY_DEAD_MAN_MS_MIN}..${ORDER_ENTRY_DEAD_MAN_MS_MAX} ms`,
      { field: 'deadManMs', min: ORDER_ENTRY_DEAD_MAN_MS_MIN, max: ORDER_ENTRY_DEAD_MAN_MS_MAX })
  }
  return { cancelOnDisconnect, deadManMs: intervalMs }
}

/** A cancel request of a session (the trading service's cancels, by kind). */
export type CancelRequest =
  | { readonly kind: 'cancel'; readonly orderId: string }
  | { readonly kind: 'cancelMany'; readonly orderIds: readonly string[] }
  | { readonly kind: 'cancelByClientIds'; readonly clientOrderIds: readonly string[] }
  | { readonly kind: 'cancelAll' }
  | { readonly kind: 'cancelMarket'; readonly market: string | null; readonly tokenId: string | null }

/** How a session ended, for its cancel on disconnect and the log. */
export interface SessionEnd {
  /** A `close` request: nothing is cancelled. */
  readonly clean: boolean
  /** Why, for the log ("client went away", "dead-man timer"...). */
  readonly reason: string
}

export class TradingSession {
  private settings: SessionSettings = PLAIN_SESSION
  private readonly inOrder = new InOrder(ORDER_ENTRY_VERIFYING_MAX)
  /** Every request not yet answered: the session's end waits for them. */
  private readonly inFlight = new Set<Promise<unknown>>()
  /** Scope 'session': ids of the orders placed here while they may still be open. */
  private readonly placedHere = new Set<string>()
  private pruneAtSize = ORDER_ENTRY_TRACKED_ORDERS_PRUNE_MIN
  private deadMan: NodeJS.Timeout | null = null
  private ending: Promise<void> | null = null
  /** Settles once the session's last mass quote is answered (massQuote). */
  private lastQuote: Promise<void> = Promise.resolve()

  /** `onDeadMan`: the dead-man interval passed without a request; the face ends the session. */
  constructor(private readonly context: ServiceContext, readonly trader: Trader,
    private readonly log: Log, private readonly onDeadMan: () => void) {}

  get options(): SessionSettings {
    return this.settings
  }

  /** Applies the client's settings (once, before any trading request) and starts the dead-man timer. */
  configure(settings: SessionSettings): void {
    this.settings = settings
    if (settings.deadManMs === 0 || this.ending !== null) return
    this.deadMan = setTimeout(() => this.deadManFired(), settings.deadManMs)
  }

  /** A request arrived: the dead-man interval starts again. */
  touch(): void {
    this.deadMan?.refresh()
  }

  /** Places one order: its placement, or its refusal (by the intake, or by the engine with the command's seq). */
  place(order: SignedOrder | PredexError): Promise<OrderOutcome> {
    return this.track(this.inOrder.run(
      async () => {
        if (order instanceof PredexError) throw order
        trading.admitPlacement(this.context, this.trader.address)
        return checkedOrder(this.context, order, this.trader)
      },
      (input) => trading.submitOrder(this.context, input),
      order instanceof PredexError ? 0 : 1,
    ).then((outcome) => {
      this.remember([outcome.entry])
      return outcome
    }, (error: unknown): OrderOutcome => ({ seq: 0, entry: { ok: false, error: this.refusal(error), orderId: '' } })))
  }

  /** Places a batch, each order on its own (as trading.placeOrders); throws when the whole batch is refused. */
  placeBatch(orders: readonly (SignedOrder | PredexError)[]): Promise<BatchOutcome> {
    return this.track(this.inOrder.run(
      () => trading.checkedOrders(this.context, orders, this.trader),
      (checked) => trading.submitOrders(this.context, checked),
      orders.length,
    ).then((outcome) => {
      this.remember(outcome.entries)
      return outcome
    }))
  }

  /** Lowers one of the trader's orders (trading.amendOrder), in its turn. */
  amend(orderId: string, size: trading.AmendSize): Promise<trading.AmendOutcome> {
    return this.track(this.inOrder.run(
      () => Promise.resolve().then(() => trading.checkAmend(size)),
      () => trading.submitAmend(this.context, this.trader, orderId, size),
      0,
    ))
  }

  /**
   * A cancel-replace (trading.cancelReplace), in its turn: the new order's signature is checked
   * while earlier requests are, its command written after theirs. Throws when nothing changed.
   */
  cancelReplace(orderId: string, order: SignedOrder | PredexError): Promise<trading.Replacement> {
    return this.track(this.inOrder.run(
      async () => {
        if (order instanceof PredexError) throw order
        trading.admitPlacement(this.context, this.trader.address)
        return checkedOrder(this.context, order, this.trader)
      },
      (input) => trading.submitReplacement(this.context, this.trader, orderId, input),
      order instanceof PredexError ? 0 : 1,
    ).then((outcome) => {
      this.remember([outcome.entry])
      return outcome
    }))
  }

  /**
   * A mass quote (quotes.ts), in its turn: its new levels' signatures checked while earlier
   * requests are, its command written after theirs.
   */
  massQuote(marketRef: string, orders: readonly (SignedOrder | PredexError)[]): Promise<quotes.QuoteOutcome> {
    // Which levels rest already is read from the read model: a quote sent right after another waits
    // for that one's answer, or it would take the levels the other placed for new ones.
    const previous = this.lastQuote
    const outcome = this.track(this.inOrder.run(
      () => previous.then(() => quotes.checkedQuote(this.context, this.trader, marketRef, orders)),
      (checked) => quotes.submitQuote(this.context, this.trader, checked),
      orders.length,
    ).then((outcome) => {
      this.remember(outcome.levels.flatMap((level) => (level.kind === 'new' ? [level.entry] : [])))
      return outcome
    }))
    this.lastQuote = outcome.then(() => undefined, () => undefined)
    return outcome
  }

  /** One of the trading service's cancels, in its turn. */
  cancel(request: CancelRequest): Promise<CancelOutcome> {
    return this.track(this.inOrder.run(() => Promise.resolve(request), (r) => this.cancelNow(r), 0))
  }

  /**
   * Ends the session (once; later calls wait for the first): stops the timer, waits until every
   * request read has been answered, then, unless the end is clean, cancels as configured.
   */
  end(how: SessionEnd): Promise<void> {
    if (this.ending === null) this.ending = this.finish(how)
    return this.ending
  }

  private async finish(how: SessionEnd): Promise<void> {
    if (this.deadMan !== null) clearTimeout(this.deadMan)
    this.deadMan = null
    await Promise.allSettled([...this.inFlight])
    if (how.clean || this.settings.cancelOnDisconnect === 'none') return
    const orderIds = this.openOrderIds()
    const canceled = await trading.cancelInChunks(this.context, this.trader, orderIds, this.log)
    this.log.info('order entry: a session ended; cancel on disconnect', { apiKey: this.trader.apiKey,
      reason: how.reason, scope: this.settings.cancelOnDisconnect, canceled, open: orderIds.length })
  }

  private cancelNow(request: CancelRequest): Promise<CancelOutcome> {
    const { context, trader } = this
    switch (request.kind) {
      case 'cancel': return trading.cancelOrder(context, trader, request.orderId)
      case 'cancelMany': return trading.cancelOrders(context, trader, request.orderIds)
      case 'cancelByClientIds': return trading.cancelByClientOrderIds(context, trader, request.clientOrderIds)
      case 'cancelAll': return trading.cancelAll(context, trader)
      case 'cancelMarket': return trading.cancelMarketOrders(context, trader, request.market, request.tokenId)
    }
  }

  /** The open orders the configured scope names, from the read model (every earlier command applied). */
  private openOrderIds(): string[] {
    if (this.settings.cancelOnDisconnect === 'session') {
      return [...this.placedHere].filter((id) => this.context.read.order(id)?.status === 'LIVE')
    }
    return this.context.read.liveOrdersOfOwner(this.trader.apiKey).map((order) => order.orderId)
  }

  /** Scope 'session': remembers the orders placed here that rest; forgets ended ones now and then. */
  private remember(entries: readonly BatchEntry[]): void {
    if (this.settings.cancelOnDisconnect !== 'session') return
    for (const entry of entries) {
      if (entry.ok && entry.placement.result.status === 'LIVE') this.placedHere.add(entry.placement.result.orderId)
    }
    if (this.placedHere.size < this.pruneAtSize) return
    // Amortised O(1) per order: the next prune waits until the set has doubled what survived this one.
    for (const id of this.placedHere) {
      if (this.context.read.order(id)?.status !== 'LIVE') this.placedHere.delete(id)
    }
    this.pruneAtSize = Math.max(ORDER_ENTRY_TRACKED_ORDERS_PRUNE_MIN, 2 * this.placedHere.size)
  }

  private track<T>(answer: Promise<T>): Promise<T> {
    this.inFlight.add(answer)
    const settled = (): void => void this.inFlight.delete(answer)
    answer.then(settled, settled)
    return answer
  }

  /** A refusal as the client sees it; anything but a catalogue error is a bug: logged, and INTERNAL. */
  private refusal(error: unknown): PredexError {
    if (error instanceof PredexError) return error
    this.log.error('order entry: internal error', { err: error })
    return new PredexError(ApiCode.INTERNAL, 'internal error')
  }

  private deadManFired(): void {
    this.deadMan = null
    this.log.info('order entry: the dead-man timer of a session fired',
      { apiKey: this.trader.apiKey, idleMs: this.settings.deadManMs })
    this.onDeadMan()
  }
}
