/**
 * Trading, for an authenticated trader (L2: an API key and its wallet): place one signed order or
 * a batch, a dry run, cancels (one, many, by client order id, all, by market), and the trader's
 * own orders and trades.
 * Placement is the order intake (order-intake.ts), then one engine command; every refusal is a
 * catalogue error, and every order id stays readable after it ends, with its status and trades.
 */
import { Code } from '../../engine/codes.js'
import { checkAmendSize, checkClientOrderId } from '../../engine/rules.js'
import type { OrderInput } from '../../engine/command.js'
import type { OrderStatus } from '../../engine/event.js'
import type { Amended, Canceled, OrderPlaced, PlaceResult } from '../../engine/result.js'
import { ApiCode, PredexError } from '../../errors.js'
import { BATCH_ORDERS_MAX, CANCEL_IDS_MAX, QUEUE_QUERY_ORDERS_MAX } from '../../limits.js'
import { assert } from '../../stdx/assert.js'
import type { CommandOf } from '../../host/engine-door.js'
import type { OrderRecord, TradeRecord } from '../../read/read-model.js'
import { accepted, matchTransactionOf, rejectionError, submit } from '../commands.js'
import type { ServiceContext } from '../context.js'
import { checkedOrder, intakeSteps, type IntakeStep, type SignedOrder } from './order-intake.js'
import { marketById } from '../market-data/markets.js'
import type { Log } from '../../log.js'

/** The caller of a trading use case, as authentication established it. */
export interface Trader {
  readonly apiKey: string
  /** Lower-case address of the key's wallet. */
  readonly address: string
}

export interface Placement {
  readonly input: OrderInput
  readonly result: OrderPlaced
  /** The transaction of the command that placed it: it settles the trades the order made on arrival. */
  readonly transactionHash: string
  /** The journal sequence number of that command. */
  readonly seq: number
}

/** What a cancel did, and the journal sequence number of the cancel command. */
export type CancelOutcome = Canceled & { readonly seq: number }

/**
 * Throws SERVER_BUSY while the front end sheds placements of this trader (load-shedder.ts: heavy
 * traders only), else counts its `orders`. Every placement passes here first.
 */
export function admitPlacement(context: ServiceContext, address: string, orders = 1): void {
  context.shedder?.admitPlacement(address)
  context.shedder?.notePlacement(address, orders)
}

/**
 * The same refusals without counting: what the REST face asks, with the claimed address, before
 * it reads a body. Also the signature pool's own admission for one order, so that a trader whose
 * pool queue is full is refused before its body is read and parsed, not after (under the overload
 * test's flood with the native backend, the pool refused most batches, each one read, parsed and
 * authenticated first).
 */
export function checkPlacementLoad(context: ServiceContext, address: string): void {
  context.shedder?.admitPlacement(address)
  context.pool.admit(1, address)
}

export async function placeOrder(context: ServiceContext, order: SignedOrder, trader: Trader): Promise<Placement> {
  admitPlacement(context, trader.address)
  const { entry } = await submitOrder(context, await checkedOrder(context, order, trader))
  if (!entry.ok) throw entry.error
  return entry.placement
}

/** One order of a batch: placed, or refused with its error (and its id once it has one). */
export type BatchEntry =
  | { readonly ok: true; readonly placement: Placement }
  | { readonly ok: false; readonly error: PredexError; readonly orderId: string }

/** What an order's command did, and its journal sequence number (the engine's refusals have one too). */
export interface OrderOutcome {
  readonly seq: number
  readonly entry: BatchEntry
}

/**
 * The engine command of an order that passed the intake (checkedOrder): placed, or refused by
 * the engine. The command is written to the engine before this returns (host.submit writes the
 * ring at once), so calls made one after the other reach the engine in that order: what an
 * order-entry session relies on to check signatures in parallel and still keep its commands in
 * order (session.ts).
 */
export async function submitOrder(context: ServiceContext, input: OrderInput): Promise<OrderOutcome> {
  const { result, seq } = await submit(context, { kind: 'placeOrder', order: input })
  if (!result.ok) return { seq, entry: { ok: false, error: rejectionError(result), orderId: result.orderId } }
  const transactionHash = matchTransactionOf(context, seq)
  return { seq, entry: { ok: true, placement: { input, result, transactionHash, seq } } }
}

/**
 * Places up to BATCH_ORDERS_MAX orders, each on its own: an order refused before the engine (a
 * parse error the face passes in, ownership, signature, rules) does not stop the others; the
 * rest go to the engine as one command. The entries follow the request's order.
 */
export async function placeOrders(context: ServiceContext, orders: readonly (SignedOrder | PredexError)[],
  trader: Trader): Promise<BatchEntry[]> {
  return (await submitOrders(context, await checkedOrders(context, orders, trader))).entries
}

/** How many orders of a batch were placed and how many refused (every face's batch answer). */
export function tallyOf(entries: readonly BatchEntry[]): { readonly successful: number; readonly failed: number } {
  const successful = entries.filter((entry) => entry.ok).length
  return { successful, failed: entries.length - successful }
}

/** The intake's verdict on each order of a batch (the engine's input, or the refusal), in order. */
export type CheckedOrders = readonly PromiseSettledResult<OrderInput>[]

/** Each order of a batch through the intake, all at once (signatures in parallel on the pool). */
export async function checkedOrders(context: ServiceContext, orders: readonly (SignedOrder | PredexError)[],
  trader: Trader): Promise<CheckedOrders> {
  checkBatchSize(orders.length)
  admitPlacement(context, trader.address, orders.length)
  // Admitted whole or refused whole (503 with one Retry-After), not half verified and half refused.
  context.pool.admit(orders.filter((order) => !(order instanceof PredexError)).length, trader.address)
  return Promise.allSettled(orders.map((order) =>
    order instanceof PredexError ? Promise.reject(order) : checkedOrder(context, order, trader)))
}

/** What a batch did, and its command's journal sequence number (0: no order of it reached the engine). */
export interface BatchOutcome {
  readonly seq: number
  readonly entries: BatchEntry[]
}

/**
 * The one engine command of a batch's orders that passed the intake (checkedOrders), written
 * before this returns as submitOrder's; the entries follow the request's order.
 */
export async function submitOrders(context: ServiceContext, checked: CheckedOrders): Promise<BatchOutcome> {
  const inputs = checked.flatMap((c) => (c.status === 'fulfilled' ? [c.value] : []))
  let results: readonly PlaceResult[] = []
  let transactionHash = ''
  let seq = 0
  if (inputs.length > 0) {
    const outcome = await submit(context, { kind: 'placeOrders', orders: inputs })
    seq = outcome.seq
    transactionHash = matchTransactionOf(context, seq)
    results = accepted(outcome.result).results
  }
  let next = 0
  const entries = checked.map((c): BatchEntry => {
    if (c.status === 'rejected') return { ok: false, error: asPredexError(context, c.reason), orderId: '' }
    const input = inputs[next]!
    const result = results[next++]!
    return result.ok
      ? { ok: true, placement: { input, result, transactionHash, seq } }
      : { ok: false, error: rejectionError(result), orderId: result.orderId }
  })
  return { seq, entries }
}

/**
 * At most `max` orders in a batch: the face's own bound (NATIVE_BATCH_ORDERS_MAX, or Polymarket's
 * BATCH_ORDERS_MAX under /compat), checked before it parses them; placeOrders checks the engine's.
 */
export function checkBatchSize(count: number, max = BATCH_ORDERS_MAX): void {
  if (count > max) {
    throw new PredexError(Code.BATCH_TOO_LARGE, `Too many orders in payload: ${count}, max allowed: ${max}`, { max })
  }
}

/** An amend's size: the new remaining size, or how much to take off it (the other 0). */
export interface AmendSize {
  readonly newSizeMicros: number
  readonly reduceByMicros: number
}

/** What an amend did, and its command's journal sequence number. */
export type AmendOutcome = Amended & { readonly seq: number }

/**
 * The rulebook's check of an amend's size (exactly one of the two, a positive whole number of
 * lots), so that a malformed one costs no engine command; throws AMEND_SIZE_INVALID.
 */
export function checkAmend(size: AmendSize): void {
  const refusal = checkAmendSize(size.newSizeMicros, size.reduceByMicros)
  if (refusal !== null) throw rejectionError(refusal)
}

/**
 * Lowers one of the trader's live orders, which keeps its place in the queue (docs/engine.md,
 * "Amend"); API-key authentication is enough, since the signed order authorised the larger size.
 */
export async function amendOrder(context: ServiceContext, trader: Trader, orderId: string, size: AmendSize):
  Promise<AmendOutcome> {
  checkAmend(size)
  return submitAmend(context, trader, orderId, size)
}

/** The engine command of an amend whose size passed checkAmend (an order-entry session's commit step). */
export async function submitAmend(context: ServiceContext, trader: Trader, orderId: string, size: AmendSize):
  Promise<AmendOutcome> {
  const { result, seq } = await submit(context, { kind: 'amendOrder', address: trader.address, orderId,
    newSizeMicros: size.newSizeMicros, reduceByMicros: size.reduceByMicros })
  return { ...accepted(result), seq }
}

/**
 * What a cancel-replace did: the old order cancelled (with the size it had left), and the new one
 * placed or refused for what only placing it could tell (funds, the book) after the cancel.
 */
export interface Replacement {
  readonly canceledOrderId: string
  readonly canceledRemainingMicros: number
  readonly entry: BatchEntry
  readonly seq: number
}

/**
 * Cancels one of the trader's live orders and places a signed order in its stead, as one engine
 * command (docs/engine.md, "Cancel-replace"). Throws, with nothing changed, when the new order
 * fails the intake or its terms, or the old order is not live (ORDER_NOT_FOUND,
 * ORDER_ALREADY_MATCHED, ORDER_ALREADY_CANCELED): a quoter's exposure never doubles.
 */
export async function cancelReplace(context: ServiceContext, trader: Trader, orderId: string,
  order: SignedOrder): Promise<Replacement> {
  admitPlacement(context, trader.address)
  return submitReplacement(context, trader, orderId, await checkedOrder(context, order, trader))
}

/** The engine command of a cancel-replace whose new order passed the intake (a session's commit step). */
export async function submitReplacement(context: ServiceContext, trader: Trader, orderId: string,
  input: OrderInput): Promise<Replacement> {
  const { result, seq } = await submit(context, { kind: 'cancelReplace', address: trader.address, orderId,
    order: input })
  if (!result.ok) throw rejectionError(result)
  const placed = result.placed
  const transactionHash = matchTransactionOf(context, seq)
  const entry: BatchEntry = placed.ok
    ? { ok: true, placement: { input, result: placed, transactionHash, seq } }
    : { ok: false, error: rejectionError(placed), orderId: placed.orderId }
  return { canceledOrderId: result.canceledOrderId, canceledRemainingMicros: result.canceledRemainingMicros, entry,
    seq }
}

/** At most CANCEL_IDS_MAX ids in one cancel (a face may check before it parses them). */
export function checkCancelCount(count: number): void {
  if (count > CANCEL_IDS_MAX) {
    throw new PredexError(Code.CANCEL_TOO_MANY, `Too many orders in payload, max allowed: ${CANCEL_IDS_MAX}`,
      { max: CANCEL_IDS_MAX })
  }
}

/** What a dry run found: every intake check with its verdict; nothing is placed. */
export interface DryRun {
  readonly valid: boolean
  readonly orderId: string | null
  readonly checks: readonly IntakeStep[]
}

/** The intake's checks of one order (its shape as the face parsed it, then the rest), placing nothing. */
export async function dryRun(
  context: ServiceContext,
  order: SignedOrder | PredexError,
  trader: Trader,
): Promise<DryRun> {
  const { checks, orderId } = await intakeSteps(context, order, trader)
  return { valid: checks.every((c) => c.ok), orderId, checks }
}

export function cancelOrder(context: ServiceContext, trader: Trader, orderId: string): Promise<CancelOutcome> {
  return canceled(context, { kind: 'cancelOrder', address: trader.address, orderId })
}

export function cancelOrders(context: ServiceContext, trader: Trader,
  orderIds: readonly string[]): Promise<CancelOutcome> {
  checkCancelCount(orderIds.length)
  return canceled(context, { kind: 'cancelOrders', address: trader.address, orderIds })
}

/**
 * Cancels any number of the trader's orders, in cancelOrders commands of at most CANCEL_IDS_MAX
 * ids (cancel on disconnect, heartbeat lapses); the number cancelled. A command that fails is
 * logged, and the others still apply.
 */
export async function cancelInChunks(context: ServiceContext, trader: Trader, orderIds: readonly string[],
  log: Log): Promise<number> {
  const chunks: Promise<CancelOutcome>[] = []
  for (let start = 0; start < orderIds.length; start += CANCEL_IDS_MAX) {
    const chunk = orderIds.slice(start, start + CANCEL_IDS_MAX)
    chunks.push(Promise.resolve().then(() => cancelOrders(context, trader, chunk)))
  }
  let count = 0
  for (const chunk of await Promise.allSettled(chunks)) {
    if (chunk.status === 'fulfilled') count += chunk.value.canceled.length
    else log.warn('cancel in chunks: a chunk failed', { apiKey: trader.apiKey, orders: orderIds.length,
      err: chunk.reason })
  }
  return count
}

/**
 * Cancels the trader's live orders named by their client order ids (those placed with this API
 * key). `canceled` lists the order ids cancelled; each client order id that names no live order
 * of the key is in `notCanceled`, as `orderId`, with ORDER_NOT_FOUND's message.
 */
export function cancelByClientOrderIds(context: ServiceContext, trader: Trader,
  clientOrderIds: readonly string[]): Promise<CancelOutcome> {
  checkCancelCount(clientOrderIds.length)
  // Each id has the shape an order's has (the rulebook's step 1), so a cancel refuses what no order can carry.
  for (const clientOrderId of clientOrderIds) {
    const rejection = checkClientOrderId(clientOrderId)
    if (rejection !== null) throw rejectionError(rejection)
  }
  return canceled(context,
    { kind: 'cancelByClientOrderId', address: trader.address, owner: trader.apiKey, clientOrderIds })
}

export function cancelAll(context: ServiceContext, trader: Trader): Promise<CancelOutcome> {
  return canceled(context, { kind: 'cancelAll', address: trader.address })
}

/** The trader's open orders in a market (UUID, condition id or slug) and/or a token; '' or null: any. */
export function cancelMarketOrders(context: ServiceContext, trader: Trader, market: string | null,
  tokenId: string | null): Promise<CancelOutcome> {
  const marketId = market === null || market === '' ? '' : marketById(context, market).marketId
  return canceled(context, { kind: 'cancelMarketOrders', address: trader.address, marketId, tokenId: tokenId ?? '' })
}

type CancelCommand =
  | CommandOf<'cancelOrder'>
  | CommandOf<'cancelOrders'>
  | CommandOf<'cancelByClientOrderId'>
  | CommandOf<'cancelAll'>
  | CommandOf<'cancelMarketOrders'>

async function canceled(context: ServiceContext, command: CancelCommand): Promise<CancelOutcome> {
  const { result, seq } = await submit(context, command)
  return { ...accepted(result), seq }
}

/**
 * The micro-shares resting ahead of each open order in its level's queue (docs/engine.md, "Queue
 * position"), by order id; ended orders are left out. One engine read (released once every command
 * before it is durable), none when no order is open.
 */
export async function queueAheadOf(context: ServiceContext, orders: readonly OrderRecord[]):
  Promise<ReadonlyMap<string, number>> {
  const orderIds = orders.filter((order) => order.status === 'LIVE').map((order) => order.orderId)
  const ahead = new Map<string, number>()
  if (orderIds.length === 0) return ahead
  assert(orderIds.length <= QUEUE_QUERY_ORDERS_MAX, 'a page of orders fits one queue read')
  const answer = await context.host.query({ kind: 'queue', orderIds })
  if (answer.kind !== 'queue') throw new PredexError(ApiCode.INTERNAL, 'the engine answered another query')
  orderIds.forEach((orderId, i) => {
    const micros = answer.aheadMicros[i]
    if (micros !== null && micros !== undefined) ahead.set(orderId, micros)
  })
  return ahead
}

/** One of the trader's orders, open or ended; ORDER_UNKNOWN if it is not theirs. */
export function orderOf(context: ServiceContext, trader: Trader, orderId: string): OrderRecord {
  const order = context.read.order(orderId.toLowerCase())
  if (order === undefined || (order.maker !== trader.address && order.signer !== trader.address)) {
    throw new PredexError(ApiCode.ORDER_UNKNOWN, 'order not found', { orderID: orderId })
  }
  return order
}

/** The trader's live order with this client order id (placed with the trader's key); ORDER_UNKNOWN if none. */
export function orderOfClientOrderId(context: ServiceContext, trader: Trader, clientOrderId: string): OrderRecord {
  const order = context.read.liveOrderOfClient(trader.apiKey, clientOrderId)
  if (order === undefined) {
    throw new PredexError(ApiCode.ORDER_UNKNOWN, 'order not found', { clientOrderId })
  }
  return order
}

/** What a refused repeat of a client order id names: the live order that has it. */
export interface ClientOrderIdDuplicate {
  readonly orderId: string
  readonly status: OrderStatus
  readonly clientOrderId: string
}

/**
 * The original order when `error` is a CLIENT_ORDER_ID_DUPLICATED refusal (a placement, or an
 * order of a batch, repeated a client order id of a live order of its key), else null: a face
 * answers such a repeat with the original's id and status.
 */
export function clientOrderIdDuplicateOf(error: unknown): ClientOrderIdDuplicate | null {
  if (!(error instanceof PredexError) || error.code !== Code.CLIENT_ORDER_ID_DUPLICATED) return null
  const { orderId, status, clientOrderId } = error.context ?? {}
  if (typeof orderId !== 'string' || typeof clientOrderId !== 'string') return null
  if (status !== 'LIVE' && status !== 'MATCHED' && status !== 'CANCELED') return null
  return { orderId, status, clientOrderId }
}

/** The trader's orders, oldest first, that pass `filter`. */
function ordersWhere(context: ServiceContext, trader: Trader, filter: (order: OrderRecord) => boolean): OrderRecord[] {
  const orders: OrderRecord[] = []
  for (const orderId of context.read.items('ordersByMaker', trader.address)) {
    // Undefined: an unfilled order past its retention, removed from the read store.
    const order = context.read.order(orderId)
    if (order !== undefined && filter(order)) orders.push(order)
  }
  return orders
}

export interface OpenOrderFilter {
  readonly orderId: string | null
  /** A market's UUID, condition id or slug. */
  readonly market: string | null
  readonly tokenId: string | null
}

/** The trader's open orders, oldest first, filtered (a null or '' filter matches all). */
export function openOrdersOf(context: ServiceContext, trader: Trader, filter: OpenOrderFilter): OrderRecord[] {
  const marketId = marketIdOf(context, filter.market)
  const orderId = filter.orderId?.toLowerCase() ?? null
  const anyToken = filter.tokenId === null || filter.tokenId === ''
  // From the live orders (bounded), not the wallet's whole history.
  return context.read.liveOrdersOfMaker(trader.address).filter((o) => (orderId === null || o.orderId === orderId) &&
    (marketId === null || o.marketId === marketId) && (anyToken || o.tokenId === filter.tokenId))
}

export type OrderStatusFilter = 'open' | 'matched' | 'canceled' | 'all'

const STATUS_OF_FILTER: Readonly<Record<OrderStatusFilter, string | null>> = {
  open: 'LIVE', matched: 'MATCHED', canceled: 'CANCELED', all: null,
}

/**
 * A status filter as a client writes it, in any case (each face maps an absent one to 'all');
 * INVALID_PARAMETER for anything else. Own keys only: `constructor` is no filter.
 */
export function orderStatusFilterOf(text: string): OrderStatusFilter {
  const status = text.toLowerCase()
  if (!Object.hasOwn(STATUS_OF_FILTER, status)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'status must be open, matched, canceled or all',
      { field: 'status' })
  }
  return status as OrderStatusFilter
}

/** All the trader's orders, oldest first, in a market and with a status. */
export function ordersOf(
  context: ServiceContext,
  trader: Trader,
  market: string | null,
  status: OrderStatusFilter,
): OrderRecord[] {
  const marketId = marketIdOf(context, market)
  const wanted = STATUS_OF_FILTER[status]
  return ordersWhere(context, trader,
    (o) => (marketId === null || o.marketId === marketId) && (wanted === null || o.status === wanted))
}

export interface TradeFilter {
  readonly tradeId: string | null
  readonly market: string | null
  readonly tokenId: string | null
  /** Unix seconds: trades strictly before / after. */
  readonly beforeSec: number | null
  readonly afterSec: number | null
}

/** The trader's trades, as taker or maker, oldest first, filtered. */
export function tradesOf(context: ServiceContext, trader: Trader, filter: TradeFilter): TradeRecord[] {
  const marketId = marketIdOf(context, filter.market)
  const { tradeId, tokenId, beforeSec, afterSec } = filter
  return [...context.read.items('tradesByAddress', trader.address)].map((id) => context.read.trade(id)!)
    .filter((t) => (tradeId === null || t.tradeId === tradeId) && (marketId === null || t.marketId === marketId) &&
      (tokenId === null || tokenId === '' || t.tokenId === tokenId || t.makerTokenId === tokenId) &&
      (beforeSec === null || t.timeMs < beforeSec * 1000) && (afterSec === null || t.timeMs > afterSec * 1000))
}

function marketIdOf(context: ServiceContext, market: string | null): string | null {
  return market === null || market === '' ? null : marketById(context, market).marketId
}

/**
 * A batch entry's failure as the client sees it. Anything but a catalogue error is a fault: the
 * client gets INTERNAL with nothing of it (as a lone request's 500), the operator the details.
 */
function asPredexError(context: ServiceContext, error: unknown): PredexError {
  if (error instanceof PredexError) return error
  context.log.error('batch placement: an order failed unexpectedly', { err: error })
  return new PredexError(ApiCode.INTERNAL, 'internal error')
}
