/**
 * The user feed (drop copy): each wallet's order updates (placement, fill, cancel, expiry: the
 * order as it is after that update) and trades, in the order the engine produced them, numbered
 * per wallet 1, 2, 3... without gaps within an epoch. Only durable outcomes reach it (the
 * fan-out hands it journaled commands, after the read model).
 *
 * Resume: the feed keeps each wallet's last USER_FEED_RETAINED_PER_WALLET updates, for at most
 * USER_FEED_WALLETS_MAX wallets and USER_FEED_UPDATES_MAX updates in all (the least recently
 * updated wallets lose theirs first). A subscriber that gives the epoch and the last number it
 * saw gets what it missed, then the live updates, with neither a gap nor a repeat: the replay and
 * the registration happen in the same tick, between two batches. When the missed updates are no
 * longer all retained (or the epoch is another, or the number was never given), it gets a gap
 * notice and a snapshot of the wallet's open orders at the current number instead.
 *
 * Epochs: each wallet's numbering has one, the feed's random id (chosen at start: numbers restart
 * with a server start) and a generation. The feed remembers a wallet's number only while it keeps
 * updates of the wallet or a stream follows it; a wallet forgotten (all its updates dropped, nobody
 * following) is numbered from 1 again in a new epoch. So a number never repeats within an epoch,
 * and the numbering's memory is bounded like the retention (USER_FEED_WALLETS_MAX) plus the open
 * streams, instead of growing with every wallet that ever traded.
 *
 * A subscription belongs to an API key: when the key is revoked (a durable `apiKey` event), its
 * subscriptions are ended with AUTH_UNKNOWN_KEY.
 *
 * On a real chain a trade comes again, numbered, at each later status of its settlement
 * (`settlementChanged`), as Polymarket's user channel sends MATCHED, MINED, CONFIRMED.
 *
 * Order groups (docs/engine.md, "Order groups"): a change of one of a key's groups (an
 * `orderGroup` event: created, updated, triggered, reset, deleted) goes to the subscriptions of
 * that key only, on the key's wallet (found through the credential store, synchronously): a group
 * belongs to one key, while a wallet's numbering is shared by all its keys. So a group's change is
 * not numbered (another key's subscribers would see a gap): it carries the wallet's current number,
 * that of the update before it (as a snapshot does), and is neither retained nor replayed. The
 * numbering and resume above are unchanged by it; the cancels a trigger makes are ordinary
 * numbered order updates, before the change in the same command.
 */
import { randomBytes } from 'node:crypto'
import { AuthCode } from '../../errors.js'
import type { CancelReason, EngineEvent, OrderGroupChanged, OrderStatus } from '../../engine/event.js'
import { PredexError } from '../../errors.js'
import type { Outcome } from '../../host/messages.js'
import { USER_FEED_RETAINED_PER_WALLET, USER_FEED_UPDATES_MAX, USER_FEED_WALLETS_MAX } from '../../limits.js'
import type { OrderRecord, TradeRecord } from '../../read/read-model.js'
import type { ServiceContext } from '../context.js'
import type { TradeSettlement } from '../testnet/settlement.js'
import { openOrdersOf, type Trader } from '../trading/trading.js'

interface Numbered {
  /** The wallet's sequence number of this update (of an order-group change: the wallet's current number). */
  readonly seq: number
  /** The epoch of `seq`: the wallet's numbering (see UserFeed). */
  readonly epoch: string
  /** The journal sequence number of the command behind it. */
  readonly engineSeq: number
  /** The command's time; of a settlement's later status, when the feed learned of it. */
  readonly timeMs: number
}

/**
 * An order of the wallet after one of its updates: its record (which the read model keeps
 * changing) and what changes, as this update left it. `orderAfter` puts them together.
 */
export interface OrderUpdate extends Numbered {
  readonly kind: 'order'
  /** The order's first update: its placement (the engine accepted it). */
  readonly placement: boolean
  readonly order: OrderRecord
  readonly status: OrderStatus
  readonly sizeMatchedMicros: number
  readonly remainingMicros: number
  readonly reason: CancelReason | null
  /** How many of the order's trades it had then (the first ones of its list). */
  readonly tradeCount: number
}

/** A trade of the wallet (as taker or maker; the face shows it from the wallet's side). */
export interface TradeUpdate extends Numbered {
  readonly kind: 'trade'
  readonly trade: TradeRecord
  readonly address: string
  /**
   * The settlement this update tells (MATCHED at the match, then each later status); null without
   * a chain. Not the trade's status when a face renders it: a later change is its own update.
   */
  readonly settlement: TradeSettlement | null
}

/**
 * A change of one of an API key's order groups, for that key's subscriptions only. Not numbered:
 * `seq` is the wallet's current number (the update before it), and it is neither retained nor
 * replayed on a resume.
 */
export interface OrderGroupUpdate extends Numbered {
  readonly kind: 'orderGroup'
  /** The group's owner: the API key whose subscriptions get it. */
  readonly apiKey: string
  readonly change: OrderGroupChanged
}

/** The updates the feed numbers, retains and replays. */
export type NumberedUpdate = OrderUpdate | TradeUpdate

export type UserUpdate = NumberedUpdate | OrderGroupUpdate

/** Where a subscription's updates go (a stream); it must not throw and must not block. */
export interface UserSink {
  update(update: UserUpdate): void
  /** The subscription is over (its key was revoked); the feed has already dropped it. */
  end(error: PredexError): void
}

/** Where a subscription starts from: the wallet's open orders at `seq`, or the updates after the asked number. */
export type UserStart =
  | { readonly kind: 'live' }
  | { readonly kind: 'snapshot'; readonly orders: readonly OrderRecord[];
      /** Set when a resume was asked and cannot be honoured: the oldest number retained (0: none). */
      readonly gap: { readonly oldestRetainedSeq: number } | null }
  | { readonly kind: 'replay'; readonly updates: readonly NumberedUpdate[] }

export interface UserSubscription {
  readonly epoch: string
  /** The wallet's current number: a snapshot is at it; a replay ends at it. */
  readonly seq: number
  /** The journal sequence number of the last command in the read model. */
  readonly engineSeq: number
  readonly start: UserStart
  /** Stops the updates (idempotent). */
  readonly unsubscribe: () => void
}

/** Where to resume: `fromSeq` 0 starts with a snapshot; 'live' with the next update (nothing before it). */
export interface ResumePoint {
  readonly fromSeq: number
  readonly epoch: string
}

interface Subscriber {
  readonly sink: UserSink
  readonly apiKey: string
}

interface Numbering {
  seq: number
  readonly epoch: string
}

export class UserFeed {
  /** Random per start: a client's numbers from another start cannot be resumed. */
  private readonly startId = randomBytes(8).toString('hex')
  private generation = 0
  /** Wallet -> its numbering, while the wallet has retained updates or subscribers. */
  private readonly numbering = new Map<string, Numbering>()
  /** Wallet -> its retained updates, oldest first; the Map's order is least recently updated first. */
  private readonly retained = new Map<string, NumberedUpdate[]>()
  private retainedCount = 0
  private readonly subscribers = new Map<string, Set<Subscriber>>()

  constructor(private readonly context: ServiceContext) {}

  /** Follows `trader`'s wallet from `from`: see UserStart. */
  subscribe(trader: Trader, from: ResumePoint | 'live', sink: UserSink): UserSubscription {
    const address = trader.address
    const { seq, epoch } = this.numberingOf(address)
    const start = this.startOf(trader, from, seq, epoch)
    const subscriber: Subscriber = { sink, apiKey: trader.apiKey }
    let subscribers = this.subscribers.get(address)
    if (subscribers === undefined) this.subscribers.set(address, subscribers = new Set())
    subscribers.add(subscriber)
    const unsubscribe = (): void => {
      const set = this.subscribers.get(address)
      if (set?.delete(subscriber) === true && set.size === 0) {
        this.subscribers.delete(address)
        this.forgetIfIdle(address)
      }
    }
    return { epoch, seq, engineSeq: this.context.read.seq, start, unsubscribe }
  }

  /** The wallet's current number (0 before its first update of this epoch, or once it is forgotten). */
  seqOf(address: string): number {
    return this.numbering.get(address)?.seq ?? 0
  }

  /** Wallets whose numbering is remembered (for tests and metrics). */
  get numberedWallets(): number {
    return this.numbering.size
  }

  /** Retained updates in all (for tests and metrics). */
  get retainedUpdates(): number {
    return this.retainedCount
  }

  /**
   * On a real chain: the trade again, to both its wallets, once its settlement moves on (MINED,
   * CONFIRMED; RETRYING, FAILED: src/service/testnet/settlement.ts), numbered like any update, with
   * the settlement it moved to (the face shows that, however late it renders the update).
   * `engineSeq` is the command that matched it.
   */
  settlementChanged(tradeId: string, settlement: TradeSettlement): void {
    const trade = this.context.read.trade(tradeId)
    if (trade === undefined) return
    const timeMs = this.context.nowMs()
    for (const address of new Set([trade.takerAddress, trade.makerAddress])) {
      this.add(address, (seq, epoch) => ({ kind: 'trade', seq, epoch, engineSeq: trade.seq, timeMs, trade, address,
        settlement }))
    }
  }

  /** Numbers, keeps and hands out the updates of durable commands (the fan-out calls it after the read model). */
  publish(outcomes: readonly Outcome[]): void {
    for (const outcome of outcomes) this.publishCommand(outcome.seq, outcome.timeMs, outcome.events)
  }

  private startOf(trader: Trader, from: ResumePoint | 'live', seq: number, epoch: string): UserStart {
    if (from === 'live') return { kind: 'live' }
    const snapshot = (gap: { oldestRetainedSeq: number } | null): UserStart => ({ kind: 'snapshot', gap,
      orders: openOrdersOf(this.context, trader, { orderId: null, market: null, tokenId: null }) })
    if (from.fromSeq === 0) return snapshot(null)
    const kept = this.retained.get(trader.address) ?? []
    const oldestRetainedSeq = kept[0]?.seq ?? 0
    if (from.epoch !== epoch || from.fromSeq > seq) return snapshot({ oldestRetainedSeq })
    if (from.fromSeq === seq) return { kind: 'replay', updates: [] }
    if (oldestRetainedSeq === 0 || from.fromSeq + 1 < oldestRetainedSeq) return snapshot({ oldestRetainedSeq })
    return { kind: 'replay', updates: kept.slice(from.fromSeq + 1 - oldestRetainedSeq) }
  }

  private publishCommand(engineSeq: number, timeMs: number, events: readonly EngineEvent[]): void {
    const read = this.context.read
    // Trades of each order seen so far in this command: the order's trade list as of each of its updates.
    const tradesInCommand = new Map<string, number>()
    for (const event of events) {
      switch (event.type) {
        case 'orderAccepted': {
          const order = read.order(event.orderId)
          if (order === undefined) break
          this.add(order.maker, (seq, epoch) => ({ kind: 'order', seq, epoch, engineSeq, timeMs, placement: true,
            order, status: 'LIVE', sizeMatchedMicros: 0, remainingMicros: order.originalSizeMicros, reason: null,
            tradeCount: 0 }))
          break
        }
        case 'orderUpdate': {
          const order = read.order(event.orderId)
          if (order === undefined) break
          const tradeCount = tradesBefore(order, engineSeq, (id) => read.trade(id))
            + (tradesInCommand.get(order.orderId) ?? 0)
          this.add(order.maker, (seq, epoch) => ({ kind: 'order', seq, epoch, engineSeq, timeMs, placement: false,
            order, status: event.status,
            sizeMatchedMicros: event.sizeMatchedMicros, remainingMicros: event.remainingMicros, reason: event.reason,
            tradeCount }))
          break
        }
        case 'trade': {
          const trade = read.trade(event.tradeId)
          if (trade === undefined) break
          for (const orderId of [trade.takerOrderId, trade.makerOrderId]) {
            tradesInCommand.set(orderId, (tradesInCommand.get(orderId) ?? 0) + 1)
          }
          const settlement = this.context.settlement?.of(trade.tradeId, trade.timeMs) ?? null
          for (const address of new Set([trade.takerAddress, trade.makerAddress])) {
            this.add(address, (seq, epoch) => ({ kind: 'trade', seq, epoch, engineSeq, timeMs, trade, address,
              settlement }))
          }
          break
        }
        case 'apiKey':
          if (event.action === 'revoked') this.endKey(event.address, event.apiKey)
          break
        case 'orderGroup':
          this.groupChanged(engineSeq, timeMs, event)
          break
        default: break
      }
    }
  }

  /**
   * Gives a group's change to the subscriptions of its key (on the key's wallet), at the wallet's
   * current number: not numbered, not retained. A wallet nobody follows has nothing to get it.
   */
  private groupChanged(engineSeq: number, timeMs: number, change: OrderGroupChanged): void {
    const address = walletOfKey(this.context, change.owner)
    if (address === undefined) return
    const numbering = this.numbering.get(address)
    const subscribers = this.subscribers.get(address)
    if (numbering === undefined || subscribers === undefined) return
    let update: OrderGroupUpdate | null = null
    for (const subscriber of subscribers) {
      if (subscriber.apiKey !== change.owner) continue
      update ??= { kind: 'orderGroup', seq: numbering.seq, epoch: numbering.epoch, engineSeq, timeMs,
        apiKey: change.owner, change }
      subscriber.sink.update(update)
    }
  }

  /** Numbers an update of `address`, keeps it, and gives it to the wallet's subscribers. */
  private add(address: string, updateOf: (seq: number, epoch: string) => NumberedUpdate): void {
    const numbering = this.numberingOf(address)
    numbering.seq += 1
    const update = updateOf(numbering.seq, numbering.epoch)
    this.retain(address, update)
    for (const subscriber of this.subscribers.get(address) ?? []) subscriber.sink.update(update)
  }

  private retain(address: string, update: NumberedUpdate): void {
    let kept = this.retained.get(address)
    if (kept === undefined) kept = []
    else this.retained.delete(address) // re-inserted last: the most recently updated
    this.retained.set(address, kept)
    kept.push(update)
    this.retainedCount++
    if (kept.length > USER_FEED_RETAINED_PER_WALLET) {
      kept.shift()
      this.retainedCount--
    }
    while (this.retained.size > USER_FEED_WALLETS_MAX || this.retainedCount > USER_FEED_UPDATES_MAX) {
      const [oldest, updates] = this.retained.entries().next().value!
      this.retained.delete(oldest)
      this.retainedCount -= updates.length
      this.forgetIfIdle(oldest)
    }
  }

  /** The wallet's numbering; a wallet not remembered starts a new epoch at 0. */
  private numberingOf(address: string): Numbering {
    let numbering = this.numbering.get(address)
    if (numbering === undefined) {
      numbering = { seq: 0, epoch: `${this.startId}-${this.generation++}` }
      this.numbering.set(address, numbering)
    }
    return numbering
  }

  /** Forgets the wallet's numbering once nothing of it is kept and nobody follows it. */
  private forgetIfIdle(address: string): void {
    if (!this.retained.has(address) && !this.subscribers.has(address)) this.numbering.delete(address)
  }

  private endKey(address: string, apiKey: string): void {
    for (const subscriber of [...this.subscribers.get(address) ?? []]) {
      if (subscriber.apiKey !== apiKey) continue
      this.subscribers.get(address)?.delete(subscriber)
      subscriber.sink.end(new PredexError(AuthCode.AUTH_UNKNOWN_KEY,
        'the API key was revoked: this subscription has ended'))
    }
    if (this.subscribers.get(address)?.size === 0) {
      this.subscribers.delete(address)
      this.forgetIfIdle(address)
    }
  }
}

/**
 * The wallet of an API key (the owner of an order group's event), from the credential store: a
 * synchronous lookup; undefined once the key is revoked (its subscriptions have ended then).
 */
export function walletOfKey(context: ServiceContext, apiKey: string): string | undefined {
  return context.credentials.lookup(apiKey)?.address
}

/** The order as `update` left it (the read model's record holds its latest state). */
export function orderAfter(update: OrderUpdate): OrderRecord {
  const { order, status, sizeMatchedMicros, remainingMicros, reason, tradeCount } = update
  return { ...order, status, sizeMatchedMicros, remainingMicros, reason,
    associateTrades: order.associateTrades.slice(0, tradeCount) }
}

/** How many of `order`'s trades come from commands before `engineSeq` (its list is in command order). */
function tradesBefore(order: OrderRecord, engineSeq: number, tradeOf: (tradeId: string) => TradeRecord | undefined):
  number {
  let count = order.associateTrades.length
  while (count > 0 && (tradeOf(order.associateTrades[count - 1]!)?.seq ?? 0) >= engineSeq) count--
  return count
}
