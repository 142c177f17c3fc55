/**
 * The engine: Predex's single writer. `apply(command)` is the one door through which trading
 * state changes. It is pure: it reads no clock, draws no random numbers and does no I/O; the
 * sequence number and time come in with each command, so replaying the same commands gives the
 * same state, the same events and the same ids (docs/engine.md).
 */
import { Account } from './account.js'
import { amendOrder } from './amend.js'
import { emitAggregates } from './aggregate.js'
import { assert } from '../stdx/assert.js'
import { chainSync } from './chain-sync.js'
import { reverseTrade } from './trade-reversal.js'
import { cancelAll, cancelByClientOrderId, cancelMarketOrders, cancelOrder, cancelOrders } from './cancel.js'
import type { Command } from './command.js'
import type { EngineEvent } from './event.js'
import type { Done } from './result.js'
import { EventLog } from './event-log.js'
import { EventReader } from './event-reader.js'
import { ExpiryQueue } from './expiry.js'
import { ENDED_ORDERS_RETAINED } from './limits.js'
import { expireDue } from './lifecycle.js'
import { approve, credit, merge, redeem, split } from './ledger.js'
import type { Market } from './market.js'
import {
  createMarket,
  resolveMarket,
  setFeeRate,
  setMarketStatus,
  setTickSize,
} from './market-admin.js'
import { OrderIndex } from './order-index.js'
import { OrderTable } from './order-table.js'
import { placeOrder, placeOrders } from './placement.js'
import { Fills } from './matching.js'
import { relay } from './relay.js'
import { cancelReplace } from './replace.js'
import { massQuote } from './mass-quote.js'
import { orderGroupCommand, type OrderGroup } from './order-group.js'
import { OrderTerms } from './rules.js'
import { registerApiKey, revokeApiKey, type ApiKeyRecord } from './api-key.js'
import type { CommandResult } from './result.js'
import { Touches } from './touches.js'

/**
 * Whether a command's events say it changed state. Every change the engine makes is told by an
 * event (the read model is their projection); `orderRejected` tells a refusal, which changes
 * nothing. test/unit/engine/unrecorded.test.ts checks this on a seeded workload by state hash.
 */
export function changedState(events: readonly EngineEvent[]): boolean {
  for (const event of events) if (event.type !== 'orderRejected') return true
  return false
}

const DONE: Done = Object.freeze({ ok: true })

export interface EngineOptions {
  readonly hashSeed?: number
  readonly endedOrdersRetained?: number
}

export interface ApplyResult {
  readonly result: CommandResult
  readonly events: EngineEvent[]
}

/** Where a token id leads: its market and which outcome it is. */
export interface TokenRef {
  readonly market: Market
  readonly isNo: boolean
}

export class Engine {
  /** Sequence number and time of the last command applied. */
  seq = 0
  timeMs = 0
  /** Order numbers handed out so far (the last one given). */
  orderNumber = 0
  openOrderCount = 0
  creditedMicros = 0
  feesMicros = 0
  /** The last block of a real chain whose facts the ledger follows (chain-sync.ts); 0: none yet, or no chain. */
  chainBlock = 0

  readonly markets: Market[] = []
  readonly marketsById = new Map<string, Market>()
  readonly marketsByConditionId = new Map<string, Market>()
  readonly marketsBySlug = new Map<string, Market>()
  readonly tokens = new Map<string, TokenRef>()
  readonly accounts: Account[] = []
  readonly accountsByAddress = new Map<string, Account>()
  /** The orders in flight and at rest, as rows of typed arrays (order-table.ts). */
  readonly orderTable = new OrderTable()
  /** Every accepted order by id: its row while live, else its ended entry (order-index.ts). */
  readonly orders: OrderIndex
  readonly apiKeys = new Map<string, ApiKeyRecord>()
  /** `${address}/${nonce}` -> API key: one credential per address and nonce. */
  readonly apiKeysByAddressNonce = new Map<string, string>()
  readonly expiry = new ExpiryQueue()
  /** Order groups by groupKeyOf(owner, group id) (order-group.ts). */
  readonly orderGroups = new Map<string, OrderGroup>()
  readonly touches = new Touches()

  /**
   * The events of the commands executed since the log's last `take` or `clear`, as bytes
   * (event-log.ts): the host ships a batch of them as they are; `apply` reads a command's back.
   */
  readonly log = new EventLog(this.orderTable)
  /** Trades of the current command so far (the next one's index). */
  tradeCount = 0
  /** The current placement's fills, reset for each (matching.ts). */
  readonly fills = new Fills()
  /** The current placement's terms, as the rulebook found them (rules.ts). */
  readonly terms = new OrderTerms()
  /**
   * False while `applyForReplay` runs: the per-step events are not written and the aggregated
   * ones not computed. Nothing but events reads what they would hold, so the state is the same.
   */
  recording = true
  /**
   * Whether `balance` events are written. The host's engine worker turns them off: nothing on
   * its path reads them (host/messages.ts, EVENTS_CROSSING: balances are queried from the engine),
   * and writing them, sorted by address, was about an eighth of the engine's time. A balance that
   * changed still makes the command a change (`changed`), so what is journaled is the same, and
   * every other event is written as before (test/unit/engine/balance-events.test.ts).
   */
  balanceEvents = true

  /**
   * `hashSeed` only randomises the layout of the order index (against crafted collisions); it
   * has no effect on state, events or snapshots. The host passes a random one; tests may not.
   * `endedOrdersRetained` is how many ended order ids the engine remembers (order-index.ts):
   * ENDED_ORDERS_RETAINED unless a test wants to see eviction with a few orders.
   */
  constructor(options: EngineOptions = {}) {
    this.orders = new OrderIndex(this.orderTable, options.hashSeed ?? 0,
      options.endedOrdersRetained ?? ENDED_ORDERS_RETAINED)
  }

  /**
   * Applies a command, appending its events and its result to `log` (the host's path: it takes
   * the log's bytes once per batch); returns whether the result is ok. `changed` then says
   * whether the command changed state.
   */
  execute(command: Command): boolean {
    assert(command.seq === this.seq + 1, 'commands arrive with gap-free sequence numbers')
    // Arithmetic, not Number.isSafeInteger: a time past 2^31 passed to that call is boxed into a
    // new heap number each command (it was a third of what the engine allocated a command).
    const timeMs = command.timeMs
    assert(timeMs >= this.timeMs && timeMs <= Number.MAX_SAFE_INTEGER && Math.floor(timeMs) === timeMs,
      'command time is a safe integer that never goes back')
    this.seq = command.seq
    this.timeMs = timeMs
    this.log.timeMs = timeMs
    this.log.beginCommand()
    this.tradeCount = 0
    this.touches.begin(this.recording)
    expireDue(this)
    const ok = this.dispatch(command)
    if (this.recording) emitAggregates(this)
    return ok
  }

  /** Applies a command and reads its result and events back as objects (tests, tools, the read side's catch-up). */
  apply(command: Command): ApplyResult {
    this.log.clear()
    this.execute(command)
    const batch = this.log.take()
    const events: EngineEvent[] = []
    const result = new EventReader(batch).readUntil(batch.words.length, events)
    assert(result !== null, 'a command writes its result')
    return { result, events }
  }

  /**
   * Writes the result of a command that built it as an object (every kind but the three hot
   * ones, which write theirs themselves) and says whether it is ok.
   */
  answer(result: CommandResult): boolean {
    if (this.recording) this.log.result(result)
    return result.ok
  }

  /** Whether the command just executed changed state: it wrote an event other than `orderRejected`. */
  get changed(): boolean {
    return this.log.changes > 0
  }

  /**
   * Applies a journaled command during recovery: the same state as `apply` (the simulation and
   * the crash tests compare state hashes), but no events are written, since nobody reads them.
   */
  applyForReplay(command: Command): void {
    assert(this.recording, 'replay does not nest')
    const length = this.log.length
    this.recording = false
    try {
      this.execute(command)
    } finally {
      this.recording = true
    }
    assert(this.log.length === length, 'replay writes no events')
  }

  /**
   * Forgets the command just applied when it changed nothing (`changed` is false): the seq
   * and time go back to the previous command's. The host then does not journal it, so a replay,
   * which never sees it, reaches the same seq, time and state (docs/engine.md, "Unrecorded
   * commands"). Refused orders, cancels of unknown ids and other no-ops thus cost no journal.
   */
  rewind(seq: number, timeMs: number): void {
    assert(!this.changed, 'only a command that changed nothing is forgotten')
    assert(this.seq === seq + 1 && timeMs <= this.timeMs, 'rewind goes back one command')
    this.seq = seq
    this.timeMs = timeMs
  }

  private dispatch(command: Command): boolean {
    switch (command.kind) {
      case 'placeOrder': return placeOrder(this, command.order)
      case 'placeOrders': return placeOrders(this, command.orders)
      case 'cancelOrder': return cancelOrder(this, command)
      case 'cancelOrders': return this.answer(cancelOrders(this, command))
      case 'cancelByClientOrderId': return this.answer(cancelByClientOrderId(this, command))
      case 'cancelAll': return this.answer(cancelAll(this, command))
      case 'cancelMarketOrders': return this.answer(cancelMarketOrders(this, command))
      case 'amendOrder': return this.answer(amendOrder(this, command))
      case 'cancelReplace': return cancelReplace(this, command)
      case 'massQuote': return massQuote(this, command)
      case 'orderGroup': return this.answer(orderGroupCommand(this, command))
      case 'expire': return this.answer(DONE)
      case 'createMarket': return this.answer(createMarket(this, command.market))
      case 'setMarketStatus': return this.answer(setMarketStatus(this, command))
      case 'setTickSize': return this.answer(setTickSize(this, command))
      case 'setFeeRate': return this.answer(setFeeRate(this, command))
      case 'resolveMarket': return this.answer(resolveMarket(this, command))
      case 'credit': return this.answer(credit(this, command))
      case 'approve': return this.answer(approve(this, command))
      case 'split': return this.answer(split(this, command))
      case 'merge': return this.answer(merge(this, command))
      case 'redeem': return this.answer(redeem(this, command))
      case 'registerApiKey': return this.answer(registerApiKey(this, command))
      case 'revokeApiKey': return this.answer(revokeApiKey(this, command))
      case 'relay': return this.answer(relay(this, command))
      case 'chainSync': return this.answer(chainSync(this, command))
      case 'reverseTrade': return this.answer(reverseTrade(this, command))
    }
  }

  /** The rare kinds of event (markets, ledger, allowances, API keys); the hot ones have their own writers. */
  emit(event: EngineEvent): void {
    if (this.recording) this.log.other(event)
  }

  /** Lists a market and its tokens in every index (market creation and snapshot loading). */
  addMarket(market: Market): void {
    assert(market.index === this.markets.length, 'markets are indexed in creation order')
    this.markets.push(market)
    this.marketsById.set(market.marketId, market)
    this.marketsByConditionId.set(market.conditionId, market)
    this.marketsBySlug.set(market.slug, market)
    this.tokens.set(market.yesTokenId, { market, isNo: false })
    this.tokens.set(market.noTokenId, { market, isNo: true })
  }

  /** The account at an address, created empty on first use. */
  accountOf(address: string): Account {
    let account = this.accountsByAddress.get(address)
    if (account === undefined) {
      account = new Account(this.accounts.length, address)
      this.accounts.push(account)
      this.accountsByAddress.set(address, account)
    }
    return account
  }
}
