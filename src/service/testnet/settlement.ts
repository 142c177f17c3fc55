/**
 * Settlement of matched trades on a real chain (issue 35 point 4; docs/testnet.md, "Settlement").
 * The engine matches and moves the ledger at once (MATCHED); this sends the trades to the
 * exchange in batches from the operator's key (MINED once the transaction is in a block) and the
 * chain mirror reports them CONFIRMED once their block has its confirmations.
 *
 * - Every trade is recorded (settlement-store.ts) before it is sent, and the exchange settles a
 *   trade id once, so sending one again is always safe: a restart sends every trade not known
 *   settled, after asking the exchange which are.
 * - A batch the exchange would refuse is never sent whole: it is simulated first, and a refused
 *   batch is sent one trade at a time, so that one bad trade fails alone (FAILED, with the
 *   exchange's error) and the others settle.
 * - A node that does not answer makes the trades wait (RETRYING) and go again at the next step:
 *   nothing is dropped, nothing is sent twice.
 * - A trade that FAILED is moved back in the ledger, which moved it when it matched: its
 *   reversal (src/engine/trade-reversal.ts) is journaled once, marked due in the same write that
 *   records the failure, and done when its `tradeReversed` event comes back (after a crash, from
 *   the journal's catch-up), so a restart journals exactly those still due.
 * - Trades of commands journaled before a crash that this had not recorded yet are found again by
 *   replaying the journal from the last seq it recorded (src/read/catch-up.ts).
 */
import { BaseError, ContractFunctionRevertedError, getAbiItem, type AbiEvent, type Hex } from 'viem'
import { toHex } from '../../crypto/hex.js'
import { keccakOfText } from '../../crypto/keccak.js'
import { artifactOf, exchangeAbiWithTokenErrors } from '../../chain/artifacts.js'
import type { SettledTrade } from '../../chain/chain-facts.js'
import { exchangeOrderOf, settlerOf, type ExchangeTrade } from '../../chain/exchange-orders.js'
import type { ChainClients } from '../../chain/node-chain.js'
import { isFinal, SettlementStore, type SettlementRecord, type SettlementStatus } from '../../chain/settlement-store.js'
import type { AnyOrderStruct } from '../../crypto/eip712.js'
import type { ReverseTrade } from '../../engine/command.js'
import type { EngineEvent, Trade } from '../../engine/event.js'
import { reversalOf, type reverseTrade } from '../../engine/trade-reversal.js'
import type { Outcome } from '../../host/messages.js'
import { SETTLEMENT_BACKLOG_RETRY_AFTER_SECONDS, SETTLEMENT_BATCH_MAX, SETTLEMENT_MINED_RECHECK_MS,
  SETTLEMENT_UNSETTLED_MAX } from '../../limits.js'
import { ApiCode, PredexError } from '../../errors.js'
import type { Log } from '../../log.js'
import { catchUp } from '../../read/catch-up.js'
import { firstLineOf } from '../../stdx/error-text.js'
import { OrderRetention } from '../trading/order-retention.js'

const MICROS = 1_000_000n
const TRADE_SETTLED = getAbiItem({ abi: artifactOf('PredexExchange').abi, name: 'TradeSettled' }) as AbiEvent

/** Journals a reversal in the engine and answers its result (the engine host's submit). */
export type Reverser = (command: Omit<ReverseTrade, 'seq' | 'timeMs'>) => Promise<ReturnType<typeof reverseTrade>>

/** A trade's settlement as the faces show it. */
export interface TradeSettlement {
  readonly status: SettlementStatus
  readonly transactionHash: string | null
  /** The block of that transaction; null until it is in one. */
  readonly blockNumber: number | null
  readonly updatedMs: number
}

export class Settlement {
  private running: Promise<void> | null = null
  private stopped = false
  private readonly timer: NodeJS.Timeout

  /** The trades of the outcomes published so far, recorded one batch after another (so lastSeq never runs ahead). */
  private recording: Promise<void> = Promise.resolve()
  /** The chain mirror's confirmations, recorded one batch after another (`confirmed`). */
  private confirming: Promise<void> = Promise.resolve()
  /** Told of each change of a trade's status after the match (the user WebSocket channel pushes it). */
  private readonly listeners = new Set<(tradeId: string, settlement: TradeSettlement) => void>()

  /** Which kept orders are still needed: the rest are forgotten (order-retention.ts). */
  private readonly retention: OrderRetention

  /** Set by `resume`: until then a failure's reversal stays due (resume journals the due ones). */
  private reverser: Reverser | null = null

  private constructor(private readonly clients: ChainClients, readonly store: SettlementStore,
    private readonly nowMs: () => number, private readonly log: Log, private readonly unsettledMax: number) {
    this.retention = new OrderRetention(store)
    this.timer = setInterval(() => void this.step(), clients.blockMs)
    this.timer.unref()
  }

  /** `unsettledMax`: SETTLEMENT_UNSETTLED_MAX but in tests of the bound. */
  static open(clients: ChainClients, dataDir: string, nowMs: () => number, log: Log,
    unsettledMax = SETTLEMENT_UNSETTLED_MAX): Settlement {
    return new Settlement(clients, SettlementStore.open(dataDir), nowMs, log, unsettledMax)
  }

  /** Keeps an order's signature, durably, before it goes to the engine (the intake calls it). */
  keepOrder(orderId: string, struct: AnyOrderStruct, signature: string, negRisk: boolean): Promise<void> {
    return this.store.keepOrder(orderId, { struct, signature, negRisk })
  }

  /**
   * Refuses a new order while more trades wait for settlement than `unsettledMax`
   * (SETTLEMENT_UNSETTLED_MAX): the node stopped answering, or settles slower than trades match.
   * Cancels are never refused.
   */
  checkBacklog(): void {
    const unsettledTrades = this.store.unsettledCount
    if (unsettledTrades < this.unsettledMax) return
    throw new PredexError(ApiCode.SETTLEMENT_BACKLOG, `${unsettledTrades} matched trades wait for settlement on chain `
      + `(at most ${this.unsettledMax}): new orders wait until it catches up`,
    { unsettledTrades, unsettledTradesMax: this.unsettledMax,
      retryAfterSeconds: SETTLEMENT_BACKLOG_RETRY_AFTER_SECONDS })
  }

  /** Trades matched and not yet CONFIRMED nor FAILED (/health). */
  unsettledCount(): number {
    return this.store.unsettledCount
  }

  /** A trade's settlement; one not recorded yet (its outcome is on its way here) is MATCHED since `matchedMs`. */
  of(tradeId: string, matchedMs: number): TradeSettlement {
    const record = this.store.trade(tradeId)
    return record === undefined ? { status: 'MATCHED', transactionHash: null, blockNumber: null, updatedMs: matchedMs }
      : settlementOf(record)
  }

  /**
   * From the journal's last seq the store has up to `seq` (what the read model has now: what comes
   * after reaches `publish`), then the kept orders that `hasEnded` (the read model) says ended are
   * forgotten unless a trade of theirs is not final, then the reversals of failed trades not
   * journaled yet are, then every trade not known settled is asked of the exchange.
   */
  async resume(dataDir: string, seq: number, hasEnded: (orderId: string) => boolean, reverser: Reverser,
  ): Promise<void> {
    // First in the recording chain: the outcomes published from now on are recorded after it.
    this.recording = this.recording.then(async () => {
      await this.catchUpTo(dataDir, seq)
      const forgotten = await this.retention.sweep(hasEnded)
      if (forgotten > 0) this.log.info('settlement: signed orders of ended orders forgotten', { forgotten })
    })
    await this.recording
    this.reverser = reverser // the due reversals are journaled by the steps, one at a time
    try {
      for (const record of this.store.unsettled()) await this.recheck(record)
    } catch (error) {
      // The node did not answer: what was not asked is sent again (the exchange settles an id once).
      this.log.warn('settlement: the chain did not answer at start; unsettled trades are sent again', { err: error })
    }
    await this.step()
  }

  private async catchUpTo(dataDir: string, seq: number): Promise<void> {
    if (this.store.lastSeq() === 0) {
      await this.store.setLastSeq(seq) // a data directory new to a real chain: no trade of it was ever on chain
      return
    }
    const found: { seq: number; events: readonly EngineEvent[] }[] = []
    catchUp(dataDir, { seq: this.store.lastSeq(), apply: (at, events) => found.push({ seq: at, events }) }, seq)
    for (const applied of found) await this.applied(applied.seq, applied.events)
    await this.store.setLastSeq(seq)
  }

  publish(outcomes: readonly Outcome[]): void {
    if (this.stopped) return
    const seq = outcomes.at(-1)?.seq ?? 0
    this.recording = this.recording.then(async () => {
      for (const outcome of outcomes) await this.applied(outcome.seq, outcome.events)
      await this.store.setLastSeq(seq)
    }).catch((error: unknown) => this.log.error('settlement: recording trades failed', { err: error }))
  }

  /**
   * A command's trades recorded, then the orders it ended let go of (a trade comes before its
   * order's end); a reversal journaled is done.
   */
  private async applied(seq: number, events: readonly EngineEvent[]): Promise<void> {
    for (const { trade, at } of tradesOf(seq, events)) await this.record(trade, at)
    await this.retention.eventsApplied(events)
    for (const event of events) if (event.type === 'tradeReversed') await this.reversalDone(event.tradeId)
  }

  private async reversalDone(tradeId: string): Promise<void> {
    const record = this.store.trade(tradeId)
    if (record?.reversed === 'due') await this.store.putTrade({ ...record, reversed: 'done' })
  }

  /** Journals the reversal of each FAILED trade not journaled yet (one whose journaling failed before). */
  private async reverseDue(): Promise<void> {
    for (const record of this.store.reversalsDue()) await this.reverseFailed(record)
  }

  /**
   * Journals a FAILED trade's reversal: the ledger moved the trade when it matched, the chain
   * never did. Stays due when the engine does not answer (the next step journals it again).
   */
  private async reverseFailed(record: SettlementRecord): Promise<void> {
    if (this.reverser === null || record.reversed !== 'due') return
    if (record.reversal === undefined) {
      this.log.error('settlement: a failed trade recorded without its amounts cannot be moved back: the ledger '
        + 'stays ahead of the chain by it', { tradeId: record.tradeId })
      await this.store.putTrade({ ...record, reversed: 'refused' })
      return
    }
    let result: Awaited<ReturnType<Reverser>>
    try {
      result = await this.reverser(record.reversal)
    } catch (error) {
      this.log.warn('settlement: journaling a failed trade\'s reversal failed; it goes again', { err: error,
        tradeId: record.tradeId })
      return
    }
    if (result.ok) {
      await this.reversalDone(record.tradeId)
      return
    }
    this.log.error('settlement: the engine refused a failed trade\'s reversal', { tradeId: record.tradeId,
      code: result.code, context: result.context })
    await this.store.putTrade({ ...this.store.trade(record.tradeId)!, reversed: 'refused' })
  }

  /**
   * Calls `listener` with the trade id and the settlement of each status change after the match,
   * in order; returns its removal. A face tells the settlement given, not the trade's status when
   * it gets to render it (a later change may have come by then: it is told next).
   */
  onChange(listener: (tradeId: string, settlement: TradeSettlement) => void): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  /**
   * The chain mirror's confirmed settlements, recorded one after another; stop() waits for them.
   * One that comes once stop() began is left: the next start rechecks the trade on chain (recheck).
   * Resolves once they are recorded (never rejects): the mirror waits for it before it reads on,
   * so confirmations never queue up here.
   */
  confirmed(trades: readonly SettledTrade[]): Promise<void> {
    if (this.stopped) return Promise.resolve()
    this.confirming = this.confirming.then(async () => {
      for (const settled of trades) {
        const record = this.store.tradeOfChainId(settled.tradeId)
        if (record === undefined || record.status === 'CONFIRMED') continue
        await this.update(record, 'CONFIRMED', { transactionHash: settled.transactionHash,
          blockNumber: settled.blockNumber })
      }
    }).catch((error: unknown) => this.log.error('settlement: recording a confirmation failed', { err: error }))
    return this.confirming
  }

  step(): Promise<void> {
    this.running ??= this.sendQueued().finally(() => { this.running = null })
    return this.running
  }

  private stopping: Promise<void> | null = null

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopped = true
      clearInterval(this.timer)
      await this.running
      await this.recording
      await this.confirming // a read after the store's close began would throw from an lmdb-js timer
      await this.store.close()
    })()
    return this.stopping
  }

  private async record(trade: Trade, seq: number): Promise<void> {
    if (this.store.trade(trade.tradeId) !== undefined) return
    const record: SettlementRecord = {
      tradeId: trade.tradeId, chainTradeId: chainTradeIdOf(trade.tradeId), seq,
      takerOrderId: trade.takerOrderId, makerOrderId: trade.makerOrderId, sizeMicros: trade.sizeMicros,
      takerCollateralMicros: collateralOf(trade.priceMicros, trade.sizeMicros),
      makerCollateralMicros: collateralOf(trade.makerPriceMicros, trade.sizeMicros), feeMicros: trade.feeMicros,
      status: 'MATCHED', transactionHash: null, blockNumber: null, reason: null, attempts: 0, updatedMs: trade.timeMs,
      reversal: reversalOf(trade),
    }
    await this.store.putTrade(record)
    this.retention.tradeRecorded(record)
  }

  /**
   * After a restart: a trade the exchange settled is MINED or CONFIRMED from the exchange's own
   * log (the chain mirror may have passed its block, and would not report it again); one it did
   * not settle is sent again by the next step.
   */
  private async recheck(record: SettlementRecord): Promise<void> {
    const { client, contracts } = this.clients
    const [log] = await client.getLogs({ address: settlerOf(contracts), event: TRADE_SETTLED,
      args: { tradeId: record.chainTradeId as Hex }, fromBlock: 0n })
    if (log === undefined) {
      // Sent, but its transaction is not on chain (dropped by a reorg, or lost with the node): again.
      if (record.status !== 'MINED') return
      await this.update(record, 'RETRYING', { reason: 'its transaction is not on chain' })
      return
    }
    const head = await client.getBlockNumber({ cacheTime: 0 })
    const confirmed = head - log.blockNumber >= BigInt(this.clients.confirmations)
    await this.update(record, confirmed ? 'CONFIRMED' : 'MINED',
      { transactionHash: log.transactionHash, blockNumber: Number(log.blockNumber) })
  }

  /**
   * Sends the unsettled trades not in a block yet, SETTLEMENT_BATCH_MAX a transaction, oldest
   * first; first asks the exchange about trades MINED for SETTLEMENT_MINED_RECHECK_MS without a
   * confirmation (a reorg may have dropped their transaction).
   */
  private async sendQueued(): Promise<void> {
    await this.reverseDue()
    try {
      const stale = this.store.unsettled().filter((r) => r.status === 'MINED' &&
        this.nowMs() - r.updatedMs > SETTLEMENT_MINED_RECHECK_MS).slice(0, SETTLEMENT_BATCH_MAX)
      for (const record of stale) await this.recheck(record)
    } catch {
      return // the node did not answer: the next step asks again
    }
    while (!this.stopped) {
      const records = this.store.unsettled().filter((r) => r.status === 'MATCHED' || r.status === 'RETRYING')
        .slice(0, SETTLEMENT_BATCH_MAX)
      if (records.length === 0) return
      try {
        await this.sendBatch(records)
      } catch (error) {
        // The node did not answer (or answered nonsense): the batch waits for the next step.
        const reason = firstLineOf(error)
        for (const record of records) await this.update(record, 'RETRYING', { reason, attempts: record.attempts + 1 })
        return
      }
    }
  }

  private async sendBatch(records: readonly SettlementRecord[]): Promise<void> {
    const ready: { record: SettlementRecord; trade: ExchangeTrade }[] = []
    for (const record of records) {
      const trade = this.exchangeTradeOf(record)
      if (trade === null) await this.update(record, 'FAILED', { reason: 'a signed order of the trade is not kept' })
      else ready.push({ record, trade })
    }
    if (ready.length === 0) return
    const refusal = await this.refusalOf(ready.map((r) => r.trade))
    if (refusal !== null && ready.length > 1) {
      for (const one of ready) await this.sendBatch([one.record])
      return
    }
    if (refusal !== null) {
      await this.update(ready[0]!.record, 'FAILED', { reason: refusal })
      return
    }
    const hash = await this.clients.operator.writeContract({ address: settlerOf(this.clients.contracts),
      abi: artifactOf('PredexExchange').abi, functionName: 'settle', args: [ready.map((r) => r.trade)] })
    const receipt = await this.clients.client.waitForTransactionReceipt({ hash })
    const status: SettlementStatus = receipt.status === 'success' ? 'MINED' : 'RETRYING'
    for (const { record } of ready) {
      await this.update(record, status, { transactionHash: hash, blockNumber: Number(receipt.blockNumber),
        attempts: record.attempts + 1, reason: status === 'MINED' ? null : 'the settlement transaction reverted' })
    }
  }

  /** The exchange's error for the batch, from a call that sends nothing; null when it would settle. */
  private async refusalOf(trades: readonly ExchangeTrade[]): Promise<string | null> {
    try {
      await this.clients.client.simulateContract({ address: settlerOf(this.clients.contracts),
        abi: exchangeAbiWithTokenErrors(), functionName: 'settle', args: [trades],
        account: this.clients.operator.account })
      return null
    } catch (error) {
      const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null
      if (reverted instanceof ContractFunctionRevertedError) {
        const data = reverted.data
        if (data !== undefined) return `${data.errorName}(${(data.args ?? []).map(String).join(', ')})`
        return reverted.reason ?? reverted.shortMessage
      }
      throw error // not a refusal: the node's failure, retried
    }
  }

  private exchangeTradeOf(record: SettlementRecord): ExchangeTrade | null {
    const taker = this.store.order(record.takerOrderId)
    const maker = this.store.order(record.makerOrderId)
    if (taker === undefined || maker === undefined) return null
    return {
      a: exchangeOrderOf(taker.struct, taker.signature, taker.negRisk),
      b: exchangeOrderOf(maker.struct, maker.signature, maker.negRisk),
      fill: { tradeId: record.chainTradeId as Hex, size: BigInt(record.sizeMicros),
        collateralA: BigInt(record.takerCollateralMicros), collateralB: BigInt(record.makerCollateralMicros),
        feeA: BigInt(record.feeMicros) },
    }
  }

  private async update(record: SettlementRecord, status: SettlementStatus,
    changes: Partial<Pick<SettlementRecord, 'transactionHash' | 'blockNumber' | 'reason' | 'attempts'>>,
  ): Promise<void> {
    const before = this.store.trade(record.tradeId) ?? record
    if (before.status === 'CONFIRMED') return // the chain's last word
    if (status === 'CONFIRMED' && (before.status === 'MATCHED' || before.status === 'RETRYING')) {
      // The mirror saw the block confirmed before the receipt came back here: a follower is told
      // MINED first all the same, since a trade is in a block before that block is confirmed.
      await this.update(before, 'MINED', changes)
    }
    const current = this.store.trade(record.tradeId) ?? before
    // A failure's reversal is due from the very write that records the failure.
    const failing = status === 'FAILED' && current.status !== 'FAILED'
    const updated: SettlementRecord = { ...current, ...changes, status, updatedMs: this.nowMs(),
      ...(failing ? { reversed: 'due' } : {}) }
    await this.store.putTrade(updated)
    if (!isFinal(current.status) && isFinal(status)) await this.retention.tradeFinal(current)
    if (failing) {
      // The ledger and the chain had parted (or an order will not settle): an operator should know.
      this.log.warn('settlement: a trade FAILED on chain; the ledger moves it back', { tradeId: record.tradeId,
        reason: updated.reason })
      await this.reverseFailed(updated)
    }
    if (status === current.status) return
    const told = settlementOf(updated)
    for (const listener of this.listeners) {
      try {
        listener(record.tradeId, told)
      } catch (error) {
        this.log.error('settlement: a status listener failed', { err: error })
      }
    }
  }
}

function settlementOf(record: SettlementRecord): TradeSettlement {
  return { status: record.status, transactionHash: record.transactionHash, blockNumber: record.blockNumber,
    updatedMs: record.updatedMs }
}

interface SeqTrade {
  readonly trade: Trade
  readonly at: number
}

function tradesOf(seq: number, events: readonly EngineEvent[]): SeqTrade[] {
  return events.filter((event): event is Trade => event.type === 'trade').map((trade) => ({ trade, at: seq }))
}

/** The trade's id on chain: keccak256 of its id. */
export function chainTradeIdOf(tradeId: string): Hex {
  return toHex(keccakOfText(tradeId)) as Hex
}

/** USDC of `sizeMicros` shares at `priceMicros` a share, exact (the engine's amounts are whole micro-units). */
function collateralOf(priceMicros: number, sizeMicros: number): number {
  const product = BigInt(priceMicros) * BigInt(sizeMicros)
  if (product % MICROS !== 0n) throw new RangeError(`price ${priceMicros} x size ${sizeMicros} is not whole micro-USDC`)
  return Number(product / MICROS)
}
