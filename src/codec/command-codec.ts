/**
 * The binary form of commands, shared by the command ring (front end -> engine worker) and the
 * journal (what the engine applied, stamped with its sequence number and time). Table-driven: a
 * command is its kind's index, then its fields in the order of the kind's schema. Each leaf value
 * carries a one-byte type tag, so the codec is faithful for any value: numbers as float64 (so
 * 0.5 or NaN round-trip exactly) and even a value of the wrong type, which the engine must see
 * in order to reject it, comes back as it went in. A relay's action is a command of its own,
 * nested: a marker, then (for an object of a relayable kind) that kind's tag and fields, or else
 * the value as a leaf, so that a malformed action also reaches the engine as it was sent.
 *
 * Versions live in the tags: a tag's layout never changes. When a kind gains a field it gets a
 * new tag (appended) and is always written with it; its old tag still decodes, with the new
 * field at its default. So tags 0 and 1 are orders as journaled before client order ids (read
 * with clientOrderId ''), and tags 20 and 21 the same kinds with it. Orders, most of the traffic,
 * have a compact layout besides (tags 29 and 30: no tag per value, writeCompactOrder), written
 * whenever every field has its usual type; an order with any other value keeps tags 25 and 26.
 */
import { assert } from '../stdx/assert.js'
import { ByteReader, ByteWriter } from '../stdx/bytes.js'
import { StringCache } from '../stdx/string-cache.js'
import { DECODED_STRING_CACHED_LENGTH_MAX, DECODED_STRINGS_CACHED_MAX } from '../limits.js'
import type { Command, CommandKind, MarketInput, OrderInput, UnstampedCommand } from '../engine/command.js'

type FieldType =
  | 'string' | 'number' | 'boolean' | 'strings' | 'order' | 'orders' | 'legacyOrder' | 'legacyOrders' | 'market'
  | 'action' | 'stpOrder' | 'stpOrders' | 'compactOrder' | 'compactOrders' | 'chainEntries' | 'chainEntriesInTx'
type Schema = readonly (readonly [string, FieldType])[]

const ORDER: Schema = [
  ['orderId', 'string'], ['owner', 'string'], ['maker', 'string'], ['signer', 'string'], ['tokenId', 'string'],
  ['side', 'string'], ['makerAmountMicros', 'number'], ['takerAmountMicros', 'number'], ['expirationSec', 'number'],
  ['feeRateBps', 'number'], ['timeInForce', 'string'], ['postOnly', 'boolean'], ['clientOrderId', 'string'],
]

/** Chain facts before they named their transaction (tag 32): read with an empty hash and block 0. */
const CHAIN_ENTRY: Schema = [
  ['kind', 'string'], ['from', 'string'], ['to', 'string'], ['tokenId', 'string'], ['amountMicros', 'number'],
]
const CHAIN_ENTRY_IN_TX: Schema = [...CHAIN_ENTRY, ['transactionHash', 'string'], ['blockNumber', 'number']]

const MARKET: Schema = [
  ['marketId', 'string'], ['conditionId', 'string'], ['question', 'string'], ['slug', 'string'],
  ['description', 'string'], ['yesTokenId', 'string'], ['noTokenId', 'string'], ['tickSizeMicros', 'number'],
  ['minOrderSizeMicros', 'number'], ['feeRateBps', 'number'], ['negRisk', 'boolean'], ['endDateMs', 'number'],
  ['status', 'string'],
]

/**
 * Every layout, in tag order (append only: the tag of a layout is its index, and journals keep
 * it). A kind is written with its last tag; its earlier tags are older layouts that still decode.
 */
const SCHEMAS: readonly (readonly [CommandKind, Schema])[] = [
  // Orders without a client order id (before tags 20 and 21).
  ['placeOrder', [['order', 'legacyOrder']]],
  ['placeOrders', [['orders', 'legacyOrders']]],
  ['cancelOrder', [['address', 'string'], ['orderId', 'string']]],
  ['cancelOrders', [['address', 'string'], ['orderIds', 'strings']]],
  ['cancelAll', [['address', 'string']]],
  ['cancelMarketOrders', [['address', 'string'], ['marketId', 'string'], ['tokenId', 'string']]],
  ['expire', []],
  ['createMarket', [['market', 'market']]],
  ['setMarketStatus', [['marketId', 'string'], ['status', 'string']]],
  ['setTickSize', [['marketId', 'string'], ['tickSizeMicros', 'number']]],
  ['setFeeRate', [['marketId', 'string'], ['feeRateBps', 'number']]],
  ['resolveMarket', [['marketId', 'string'], ['outcome', 'string']]],
  ['credit', [['address', 'string'], ['usdcMicros', 'number'], ['gasMicros', 'number']]],
  ['approve', [['address', 'string'], ['usdcAllowanceMicros', 'number']]],
  ['split', [['address', 'string'], ['marketId', 'string'], ['amountMicros', 'number']]],
  ['merge', [['address', 'string'], ['marketId', 'string'], ['amountMicros', 'number']]],
  ['redeem', [['address', 'string'], ['marketId', 'string']]],
  ['registerApiKey',
    [['apiKey', 'string'], ['address', 'string'], ['secret', 'string'], ['passphrase', 'string'], ['nonce', 'number']]],
  ['revokeApiKey', [['apiKey', 'string']]],
  ['relay', [['nonce', 'number'], ['deadlineSec', 'number'], ['action', 'action']]],
  ['placeOrder', [['order', 'order']]],
  ['placeOrders', [['orders', 'orders']]],
  ['cancelByClientOrderId', [['address', 'string'], ['owner', 'string'], ['clientOrderIds', 'strings']]],
  ['amendOrder', [['address', 'string'], ['orderId', 'string'], ['newSizeMicros', 'number'],
    ['reduceByMicros', 'number']]],
  ['cancelReplace', [['address', 'string'], ['orderId', 'string'], ['order', 'stpOrder']]],
  // Orders with a self-trade prevention mode (after the client order id).
  ['placeOrder', [['order', 'stpOrder']]],
  ['placeOrders', [['orders', 'stpOrders']]],
  ['massQuote', [['address', 'string'], ['owner', 'string'], ['marketId', 'string'], ['keep', 'strings'],
    ['orders', 'stpOrders']]],
  ['orderGroup', [['action', 'string'], ['address', 'string'], ['owner', 'string'], ['groupId', 'string'],
    ['contractsLimitMicros', 'number'], ['notionalLimitMicros', 'number'], ['windowMs', 'number'],
    ['freezeMs', 'number']]],
  // Orders whose every field has its usual type, without a tag per value (writeCompactOrder); any
  // other order is still written with tags 25 and 26.
  ['placeOrder', [['order', 'compactOrder']]],
  ['placeOrders', [['orders', 'compactOrders']]],
  // A real chain's confirmed facts (issue 35); then each with its transaction.
  ['chainSync', [['toBlock', 'number'], ['entries', 'chainEntries']]],
  ['chainSync', [['toBlock', 'number'], ['entries', 'chainEntriesInTx']]],
  // A trade whose settlement failed on chain, moved back.
  ['reverseTrade', [['tradeId', 'string'], ['takerAddress', 'string'], ['tokenId', 'string'], ['side', 'string'],
    ['priceMicros', 'number'], ['makerAddress', 'string'], ['makerTokenId', 'string'], ['makerSide', 'string'],
    ['makerPriceMicros', 'number'], ['sizeMicros', 'number'], ['feeMicros', 'number']]],
]

/** The kinds a relay may carry as its action (RelayAction). */
const RELAYABLE: ReadonlySet<unknown> = new Set<CommandKind>(['approve', 'split', 'merge', 'redeem'])
const ACTION_LEAF = 0
const ACTION_COMMAND = 1

// writeOrder/readOrder follow ORDER field by field; this keeps the table the single description.
assert(ORDER.map(([name]) => name).join() ===
  'orderId,owner,maker,signer,tokenId,side,makerAmountMicros,takerAmountMicros,expirationSec,feeRateBps,'
    + 'timeInForce,postOnly,clientOrderId',
  'the order layout matches writeOrder and readOrder')

/** The tag each kind is written with: its last (a Map keeps the last value set for a key). */
const TAG_OF = new Map<CommandKind, number>(SCHEMAS.map(([kind], tag) => [kind, tag]))
const PLACE_ORDER_TAG = TAG_OF.get('placeOrder')!
const PLACE_ORDERS_TAG = TAG_OF.get('placeOrders')!
/** Orders with a value of an unusual type (which the engine must see to refuse) keep their tagged layout. */
const PLACE_ORDER_TAGGED_TAG = 25
const PLACE_ORDERS_TAGGED_TAG = 26
const CANCEL_ORDER_TAG = TAG_OF.get('cancelOrder')!
const layoutOf = (tag: number): string => SCHEMAS[tag]![1].map(([name, type]) => `${name}:${type}`).join()
assert(layoutOf(PLACE_ORDER_TAG) === 'order:compactOrder' && layoutOf(PLACE_ORDERS_TAG) === 'orders:compactOrders'
  && layoutOf(PLACE_ORDER_TAGGED_TAG) === 'order:stpOrder' && layoutOf(PLACE_ORDERS_TAGGED_TAG) === 'orders:stpOrders'
  && layoutOf(CANCEL_ORDER_TAG) === 'address:string,orderId:string',
'the layouts readCommandInto reads field by field match the table')

type Fields = Record<string, unknown>

/**
 * A reader that decodes strings with Node's native UTF-8 decoder: TextDecoder's per-call cost
 * dominated decoding records made of short ids. It is called on the record's own bytes (any
 * Uint8Array), not through a Buffer made for each record: that Buffer cost the replay about 5 %
 * of its time (issue 29).
 */
export function readerOf(bytes: Uint8Array): ByteReader {
  return new ByteReader(bytes, decodeUtf8Native)
}

/** Buffer.prototype.utf8Slice: Node's decoder, which takes any Uint8Array as `this` (Node 20 to 24). */
type Utf8Slice = (this: Uint8Array, start: number, end: number) => string
const utf8Slice = (Buffer.prototype as unknown as { utf8Slice: Utf8Slice }).utf8Slice
assert(typeof utf8Slice === 'function', 'Node\'s Buffer has utf8Slice')

function decodeUtf8Native(bytes: Uint8Array, start: number, end: number): string {
  return utf8Slice.call(bytes, start, end)
}

/**
 * The strings of commands that repeat (addresses, API keys, token ids, every string of the rarer
 * commands), decoded once per thread and given back as the same string (stdx/string-cache.ts;
 * bounded by DECODED_STRINGS_CACHED_MAX in limits.ts).
 * Order ids and client order ids, which do not repeat, are decoded each time.
 */
const repeated = new StringCache(decodeUtf8Native, DECODED_STRINGS_CACHED_MAX, DECODED_STRING_CACHED_LENGTH_MAX)

/** Writes an unstamped command (the kind and its fields). */
export function writeCommand(w: ByteWriter, command: UnstampedCommand): void {
  if (command.kind === 'placeOrder' || command.kind === 'placeOrders') return writePlacement(w, command)
  const tag = TAG_OF.get(command.kind)
  assert(tag !== undefined, () => `a known command kind: ${String(command.kind)}`)
  writeTagged(w, tag, command)
}

function writeTagged(w: ByteWriter, tag: number, command: UnstampedCommand): void {
  w.uint(tag)
  writeFields(w, SCHEMAS[tag]![1], command as unknown as Fields)
}

/**
 * Orders in the compact layout (tags 29 and 30) when every one is of the usual types, each
 * order's flags worked out once; else in the tagged layout (tags 25 and 26), values as they are.
 */
function writePlacement(w: ByteWriter, command: Extract<UnstampedCommand, { kind: 'placeOrder' | 'placeOrders' }>):
  void {
  if (command.kind === 'placeOrder') {
    const flags = compactFlagsOf(command.order)
    if (flags < 0) return writeTagged(w, PLACE_ORDER_TAGGED_TAG, command)
    w.uint(PLACE_ORDER_TAG)
    return writeCompactOrder(w, command.order, flags)
  }
  const flags = Array.isArray(command.orders) ? command.orders.map(compactFlagsOf) : [-1]
  if (flags.includes(-1)) return writeTagged(w, PLACE_ORDERS_TAGGED_TAG, command)
  w.uint(PLACE_ORDERS_TAG)
  w.uint(flags.length)
  command.orders.forEach((order, i) => writeCompactOrder(w, order, flags[i]!))
}

export function readCommand(r: ByteReader): UnstampedCommand {
  return readCommandInto(r, { kind: '' }) as unknown as UnstampedCommand
}

/** Reads a command's kind and fields into `target` (which may already hold seq and time). */
function readCommandInto(r: ByteReader, target: Fields): Fields {
  const tag = r.uint()
  const schema = SCHEMAS[tag]
  assert(schema !== undefined, () => `a known command tag: ${tag}`)
  target.kind = schema[0]
  // The two commands most of the traffic is made of, field by field (the same fields in the same
  // order as the table's): the generic reader's computed names are V8's slow path.
  if (tag === PLACE_ORDER_TAG) {
    target.order = readCompactOrder(r)
    return target
  }
  if (tag === CANCEL_ORDER_TAG) {
    target.address = readLeaf(r)
    target.orderId = readUniqueLeaf(r)
    return target
  }
  return readFieldsInto(r, schema[1], target)
}

// One writer for journal records, reused: each record is copied out of it.
const stampedWriter = new ByteWriter(1024)

/** A stamped command as the journal keeps it: seq, time, then the command. */
export function encodeStampedCommand(command: Command): Uint8Array {
  stampedWriter.reset()
  stampedWriter.uint(command.seq)
  stampedWriter.uint(command.timeMs)
  writeCommand(stampedWriter, command)
  return stampedWriter.finish()
}

export function decodeStampedCommand(bytes: Uint8Array): Command {
  const r = readerOf(bytes)
  const command = readStampedCommand(r)
  assert(r.isAtEnd(), 'a command record has no trailing bytes')
  return command
}

/** Seq, time, then the command: a stamped command's fields, read into one object. */
function readStampedCommand(r: ByteReader): Command {
  const seq = r.uint()
  const timeMs = r.uint()
  return readCommandInto(r, { kind: '', seq, timeMs }) as unknown as Command
}

/**
 * `count` stamped commands in a row, each after its length (a journal batch's body: batch-record.ts),
 * read with one reader; each must end where its length says, and the bytes with the last.
 */
export function decodeStampedCommands(bytes: Uint8Array, count: number): Command[] {
  const r = readerOf(bytes)
  const commands: Command[] = []
  for (let i = 0; i < count; i++) {
    const length = r.uint()
    const end = r.position + length
    commands.push(readStampedCommand(r))
    assert(r.position === end, 'a stamped command ends where its length says')
  }
  assert(r.isAtEnd(), 'a batch has no bytes after its commands')
  return commands
}

function writeFields(w: ByteWriter, schema: Schema, fields: Fields): void {
  for (let i = 0; i < schema.length; i++) {
    const field = schema[i]!
    writeValue(w, field[1], fields[field[0]])
  }
}

function writeValue(w: ByteWriter, type: FieldType, value: unknown): void {
  switch (type) {
    case 'string':
    case 'number':
    case 'boolean': return writeLeaf(w, value)
    case 'strings': {
      const items = value as readonly unknown[]
      assert(Array.isArray(items), 'a list of strings')
      w.uint(items.length)
      for (const item of items) writeLeaf(w, item)
      return
    }
    case 'compactOrder':
    case 'compactOrders': return assert(false, 'compact orders are written by writePlacement')
    case 'stpOrder': return writeOrder(w, value as OrderInput)
    case 'stpOrders': {
      const orders = value as readonly OrderInput[]
      w.uint(orders.length)
      for (const order of orders) writeOrder(w, order)
      return
    }
    case 'order':
    case 'orders':
    case 'legacyOrder':
    case 'legacyOrders': return assert(false, 'old layouts are read, never written')
    case 'market': return writeFields(w, MARKET, value as unknown as Fields)
    case 'action': return writeAction(w, value)
    case 'chainEntries': return assert(false, 'old layouts are read, never written')
    case 'chainEntriesInTx': {
      const entries = value as readonly Fields[]
      assert(Array.isArray(entries), 'a list of chain entries')
      w.uint(entries.length)
      for (const entry of entries) writeFields(w, CHAIN_ENTRY_IN_TX, entry)
      return
    }
  }
}

function writeAction(w: ByteWriter, value: unknown): void {
  if (typeof value === 'object' && value !== null && RELAYABLE.has((value as Fields).kind)) {
    w.uint(ACTION_COMMAND)
    writeCommand(w, value as UnstampedCommand)
  } else {
    w.uint(ACTION_LEAF)
    writeLeaf(w, value)
  }
}

function readAction(r: ByteReader): unknown {
  const marker = r.uint()
  if (marker === ACTION_LEAF) return readLeaf(r)
  assert(marker === ACTION_COMMAND, () => `a known action marker: ${marker}`)
  const action = readCommand(r)
  assert(RELAYABLE.has(action.kind), () => `a relayable action kind: ${action.kind}`)
  return action
}

/**
 * Orders are most of the traffic, so they have their own writer and reader (the generic ones
 * use computed property names, which V8 handles on a slow path): same layout as ORDER, then the
 * self-trade prevention mode and the order group id. Older layouts end sooner: a legacy order
 * (tags 0 and 1) before the client order id, which reads as '', and the orders of tags 20 and 21
 * before the mode and the group (absent).
 */
const LAYOUT_LEGACY = 0
const LAYOUT_CLIENT_ORDER_ID = 1
const LAYOUT_STP = 2

function writeOrder(w: ByteWriter, order: OrderInput): void {
  writeLeaf(w, order.orderId)
  writeLeaf(w, order.owner)
  writeLeaf(w, order.maker)
  writeLeaf(w, order.signer)
  writeLeaf(w, order.tokenId)
  writeLeaf(w, order.side)
  writeLeaf(w, order.makerAmountMicros)
  writeLeaf(w, order.takerAmountMicros)
  writeLeaf(w, order.expirationSec)
  writeLeaf(w, order.feeRateBps)
  writeLeaf(w, order.timeInForce)
  writeLeaf(w, order.postOnly)
  writeLeaf(w, order.clientOrderId)
  writeLeaf(w, order.selfTradePrevention)
  writeLeaf(w, order.orderGroupId)
}

const SIDES: readonly string[] = ['BUY', 'SELL']
const TIMES_IN_FORCE: readonly string[] = ['GTC', 'GTD', 'FOK', 'FAK']

const SELF_TRADE_PREVENTIONS: readonly string[] = ['cancel-maker', 'cancel-taker', 'cancel-both']

function readOrder(r: ByteReader, layout: number): OrderInput {
  const order = readOrderFields(r, layout)
  if (layout < LAYOUT_STP) return order
  const mode = readKnownLeaf(r, SELF_TRADE_PREVENTIONS)
  const group = readLeaf(r)
  if (mode === undefined && group === undefined) return order
  return { ...order, ...(mode === undefined ? {} : { selfTradePrevention: mode as OrderInput['selfTradePrevention'] }),
    ...(group === undefined ? {} : { orderGroupId: group as string }) }
}

function readOrderFields(r: ByteReader, layout: number): OrderInput {
  const legacy = layout === LAYOUT_LEGACY
  return {
    orderId: readUniqueLeaf(r) as string,
    owner: readLeaf(r) as string,
    maker: readLeaf(r) as string,
    signer: readLeaf(r) as string,
    tokenId: readLeaf(r) as string,
    side: readKnownLeaf(r, SIDES) as OrderInput['side'],
    makerAmountMicros: readLeaf(r) as number,
    takerAmountMicros: readLeaf(r) as number,
    expirationSec: readLeaf(r) as number,
    feeRateBps: readLeaf(r) as number,
    timeInForce: readKnownLeaf(r, TIMES_IN_FORCE) as OrderInput['timeInForce'],
    postOnly: readLeaf(r) as boolean,
    clientOrderId: legacy ? '' : readUniqueLeaf(r) as string,
  }
}

/**
 * The compact layout of an order whose every field has its usual type (isCompact): its flags (the
 * side, the time in force, post-only, the self-trade prevention mode, whether a signer other than
 * the maker, an order group and a fee rate follow; a LEB128 integer, one byte but for a V2 order's
 * absent fee rate), then its strings and numbers without a tag each. It decodes to the same order
 * as the tagged layout would (test/unit/codec/command-codec.test.ts).
 */
const FLAG_SELL = 1
const FLAG_TIME_IN_FORCE_SHIFT = 1
const FLAG_POST_ONLY = 8
const FLAG_STP_SHIFT = 4
const FLAG_GROUP = 64
const FLAG_OWN_SIGNER = 128
/** A V2 order signs no fee rate: null. */
const FLAG_NO_FEE_RATE = 256
const FLAGS_END = 512

/**
 * The compact layout's flags for `order`, or -1 when a field is not of its usual type (the order
 * then keeps the tagged layout): the check and the flags in one pass, once per order written.
 */
function compactFlagsOf(order: unknown): number {
  if (typeof order !== 'object' || order === null) return -1
  const o = order as Record<keyof OrderInput, unknown>
  const side = SIDES.indexOf(o.side as string)
  const timeInForce = TIMES_IN_FORCE.indexOf(o.timeInForce as string)
  const mode = o.selfTradePrevention
  // 0: no mode; 1-3: a known one; -1 (indexOf's miss) only for a mode none of them, which is not usual.
  const stp = mode === undefined ? 0 : SELF_TRADE_PREVENTIONS.indexOf(mode as string) + 1 || -1
  const usual = typeof o.orderId === 'string' && typeof o.owner === 'string' && typeof o.maker === 'string'
    && typeof o.signer === 'string' && typeof o.tokenId === 'string' && side >= 0
    && typeof o.makerAmountMicros === 'number' && typeof o.takerAmountMicros === 'number'
    && typeof o.expirationSec === 'number' && (typeof o.feeRateBps === 'number' || o.feeRateBps === null)
    && timeInForce >= 0 && typeof o.postOnly === 'boolean' && typeof o.clientOrderId === 'string'
    && stp >= 0 && (o.orderGroupId === undefined || typeof o.orderGroupId === 'string')
  if (!usual) return -1
  return (side === 1 ? FLAG_SELL : 0) | (timeInForce << FLAG_TIME_IN_FORCE_SHIFT)
    | (o.postOnly === true ? FLAG_POST_ONLY : 0) | (stp << FLAG_STP_SHIFT)
    | (o.orderGroupId === undefined ? 0 : FLAG_GROUP) | (o.signer !== o.maker ? FLAG_OWN_SIGNER : 0)
    | (o.feeRateBps === null ? FLAG_NO_FEE_RATE : 0)
}

/** An order in the compact layout, with the flags compactFlagsOf gave it (not -1). */
function writeCompactOrder(w: ByteWriter, order: OrderInput, flags: number): void {
  w.uint(flags)
  w.string(order.orderId)
  w.string(order.owner)
  w.string(order.maker)
  if ((flags & FLAG_OWN_SIGNER) !== 0) w.string(order.signer)
  w.string(order.tokenId)
  w.float64(order.makerAmountMicros)
  w.float64(order.takerAmountMicros)
  w.float64(order.expirationSec)
  if (order.feeRateBps !== null) w.float64(order.feeRateBps)
  w.string(order.clientOrderId)
  if (order.orderGroupId !== undefined) w.string(order.orderGroupId)
}

function readCompactOrder(r: ByteReader): OrderInput {
  const flags = r.uint()
  assert(flags < FLAGS_END && (flags >> FLAG_TIME_IN_FORCE_SHIFT & 3) < TIMES_IN_FORCE.length
    && (flags >> FLAG_STP_SHIFT & 3) <= SELF_TRADE_PREVENTIONS.length, () => `known order flags: ${flags}`)
  const orderId = r.string()
  const owner = r.cachedString(repeated)
  const maker = r.cachedString(repeated)
  const order: OrderInput = {
    orderId,
    owner,
    maker,
    signer: (flags & FLAG_OWN_SIGNER) === 0 ? maker : r.cachedString(repeated),
    tokenId: r.cachedString(repeated),
    side: (flags & FLAG_SELL) === 0 ? 'BUY' : 'SELL',
    makerAmountMicros: r.float64(),
    takerAmountMicros: r.float64(),
    expirationSec: r.float64(),
    feeRateBps: (flags & FLAG_NO_FEE_RATE) === 0 ? r.float64() : null,
    timeInForce: TIMES_IN_FORCE[flags >> FLAG_TIME_IN_FORCE_SHIFT & 3] as OrderInput['timeInForce'],
    postOnly: (flags & FLAG_POST_ONLY) !== 0,
    clientOrderId: r.string(),
  }
  const stp = flags >> FLAG_STP_SHIFT & 3
  const group = (flags & FLAG_GROUP) === 0 ? undefined : r.cachedString(repeated)
  if (stp === 0 && group === undefined) return order
  return { ...order, ...(stp === 0 ? {} : { selfTradePrevention: SELF_TRADE_PREVENTIONS[stp - 1] as
    OrderInput['selfTradePrevention'] }), ...(group === undefined ? {} : { orderGroupId: group }) }
}

function readFields(r: ByteReader, schema: Schema): Fields {
  return readFieldsInto(r, schema, {})
}

function readFieldsInto(r: ByteReader, schema: Schema, fields: Fields): Fields {
  for (let i = 0; i < schema.length; i++) {
    const field = schema[i]!
    fields[field[0]] = readValue(r, field[1])
  }
  return fields
}

function readValue(r: ByteReader, type: FieldType): unknown {
  switch (type) {
    case 'string':
    case 'number':
    case 'boolean': return readLeaf(r)
    case 'strings': return Array.from({ length: r.uint() }, () => readLeaf(r))
    case 'compactOrder': return readCompactOrder(r)
    case 'compactOrders': return Array.from({ length: r.uint() }, () => readCompactOrder(r))
    case 'stpOrder': return readOrder(r, LAYOUT_STP)
    case 'stpOrders': return Array.from({ length: r.uint() }, () => readOrder(r, LAYOUT_STP))
    case 'order': return readOrder(r, LAYOUT_CLIENT_ORDER_ID)
    case 'orders': return Array.from({ length: r.uint() }, () => readOrder(r, LAYOUT_CLIENT_ORDER_ID))
    case 'legacyOrder': return readOrder(r, LAYOUT_LEGACY)
    case 'legacyOrders': return Array.from({ length: r.uint() }, () => readOrder(r, LAYOUT_LEGACY))
    case 'market': return readFields(r, MARKET) as unknown as MarketInput
    case 'action': return readAction(r)
    case 'chainEntries': {
      const noTransaction = (): Fields => ({ transactionHash: '', blockNumber: 0 })
      return Array.from({ length: r.uint() }, () => readFieldsInto(r, CHAIN_ENTRY, noTransaction()))
    }
    case 'chainEntriesInTx': return Array.from({ length: r.uint() }, () => readFields(r, CHAIN_ENTRY_IN_TX))
  }
}

const LEAF_STRING = 0
const LEAF_NUMBER = 1
const LEAF_TRUE = 2
const LEAF_FALSE = 3
const LEAF_NULL = 4
const LEAF_UNDEFINED = 5
/** Anything else (an object where a string belongs): its JSON text. */
const LEAF_JSON = 6

function writeLeaf(w: ByteWriter, value: unknown): void {
  if (typeof value === 'string') {
    w.uint(LEAF_STRING)
    w.string(value)
  } else if (typeof value === 'number') {
    w.uint(LEAF_NUMBER)
    w.float64(value)
  } else if (typeof value === 'boolean') {
    w.uint(value ? LEAF_TRUE : LEAF_FALSE)
  } else if (value === null) {
    w.uint(LEAF_NULL)
  } else if (value === undefined) {
    w.uint(LEAF_UNDEFINED)
  } else {
    w.uint(LEAF_JSON)
    w.string(JSON.stringify(value) ?? 'null')
  }
}

function readLeaf(r: ByteReader): unknown {
  return readTaggedLeaf(r, r.uint())
}

/** A leaf whose string does not repeat (an order id): decoded, not cached. */
function readUniqueLeaf(r: ByteReader): unknown {
  const tag = r.uint()
  return tag === LEAF_STRING ? r.string() : readTaggedLeaf(r, tag)
}

/**
 * A leaf that is usually one of `known` (ASCII constants): the constant itself, not a decoded
 * copy (one decoder call fewer per field); any other value reads as readLeaf reads it.
 */
function readKnownLeaf(r: ByteReader, known: readonly string[]): unknown {
  const tag = r.uint()
  return tag === LEAF_STRING ? r.knownString(known) : readTaggedLeaf(r, tag)
}

function readTaggedLeaf(r: ByteReader, tag: number): unknown {
  switch (tag) {
    case LEAF_STRING: return r.cachedString(repeated)
    case LEAF_NUMBER: return r.float64()
    case LEAF_TRUE: return true
    case LEAF_FALSE: return false
    case LEAF_NULL: return null
    case LEAF_UNDEFINED: return undefined
    case LEAF_JSON: return JSON.parse(r.string()) as unknown
  }
  assert(false, () => `a known value tag: ${tag}`)
}
