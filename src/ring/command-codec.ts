/**
 * The binary form of commands, shared by the command ring (front end -> engine worker) and the
 * journal (what the engine applied, stamped with its sequence number and time). Table-driven: a
 * command is its kind's index, then its fields in the order of the kind's schema. Each leaf value
 * carries a one-byte type tag, so the codec is faithful for any value: numbers as float64 (so
 * 0.5 or NaN round-trip exactly) and even a value of the wrong type, which the engine must see
 * in order to reject it, comes back as it went in.
 */
import { assert } from '../engine/assert.js'
import { ByteReader, ByteWriter } from '../engine/bytes.js'
import type { Command, CommandKind, MarketInput, OrderInput, UnstampedCommand } from '../engine/command.js'

type FieldType = 'string' | 'number' | 'boolean' | 'strings' | 'order' | 'orders' | 'market'
type Schema = readonly (readonly [string, FieldType])[]

const ORDER: Schema = [
  ['orderId', 'string'], ['owner', 'string'], ['maker', 'string'], ['signer', 'string'], ['tokenId', 'string'],
  ['side', 'string'], ['makerAmountMicros', 'number'], ['takerAmountMicros', 'number'], ['expirationSec', 'number'],
  ['feeRateBps', 'number'], ['timeInForce', 'string'], ['postOnly', 'boolean'],
]

const MARKET: Schema = [
  ['marketId', 'string'], ['conditionId', 'string'], ['question', 'string'], ['slug', 'string'],
  ['description', 'string'], ['yesTokenId', 'string'], ['noTokenId', 'string'], ['tickSizeMicros', 'number'],
  ['minOrderSizeMicros', 'number'], ['feeRateBps', 'number'], ['negRisk', 'boolean'], ['endDateMs', 'number'],
  ['status', 'string'],
]

/** Every kind, in tag order (append only: the tag of a kind is its index, and journals keep it). */
const SCHEMAS: readonly (readonly [CommandKind, Schema])[] = [
  ['placeOrder', [['order', 'order']]],
  ['placeOrders', [['orders', 'orders']]],
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
  ['registerApiKey', [['apiKey', 'string'], ['address', 'string'], ['secret', 'string'], ['passphrase', 'string'], ['nonce', 'number']]],
  ['revokeApiKey', [['apiKey', 'string']]],
]

const TAG_OF = new Map<CommandKind, number>(SCHEMAS.map(([kind], tag) => [kind, tag]))

type Fields = Record<string, unknown>

/** Writes an unstamped command (the kind and its fields). */
export function writeCommand(w: ByteWriter, command: UnstampedCommand): void {
  const tag = TAG_OF.get(command.kind)
  assert(tag !== undefined, `a known command kind: ${String(command.kind)}`)
  w.uint(tag)
  writeFields(w, SCHEMAS[tag]![1], command as unknown as Fields)
}

export function readCommand(r: ByteReader): UnstampedCommand {
  const tag = r.uint()
  const schema = SCHEMAS[tag]
  assert(schema !== undefined, `a known command tag: ${tag}`)
  return { kind: schema[0], ...readFields(r, schema[1]) } as UnstampedCommand
}

/** A stamped command as the journal keeps it: seq, time, then the command. */
export function encodeStampedCommand(command: Command): Uint8Array {
  const w = new ByteWriter(256)
  w.uint(command.seq)
  w.uint(command.timeMs)
  writeCommand(w, command)
  return w.finish()
}

export function decodeStampedCommand(bytes: Uint8Array): Command {
  const r = new ByteReader(bytes)
  const seq = r.uint()
  const timeMs = r.uint()
  const command = { ...readCommand(r), seq, timeMs } as Command
  assert(r.isAtEnd(), 'a command record has no trailing bytes')
  return command
}

function writeFields(w: ByteWriter, schema: Schema, fields: Fields): void {
  for (const [name, type] of schema) writeValue(w, type, fields[name])
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
    case 'order': return writeFields(w, ORDER, value as Fields)
    case 'orders': {
      const orders = value as readonly OrderInput[]
      w.uint(orders.length)
      for (const order of orders) writeFields(w, ORDER, order as unknown as Fields)
      return
    }
    case 'market': return writeFields(w, MARKET, value as unknown as Fields)
  }
}

function readFields(r: ByteReader, schema: Schema): Fields {
  const fields: Fields = {}
  for (const [name, type] of schema) fields[name] = readValue(r, type)
  return fields
}

function readValue(r: ByteReader, type: FieldType): unknown {
  switch (type) {
    case 'string':
    case 'number':
    case 'boolean': return readLeaf(r)
    case 'strings': return Array.from({ length: r.uint() }, () => readLeaf(r))
    case 'order': return readFields(r, ORDER) as unknown as OrderInput
    case 'orders': return Array.from({ length: r.uint() }, () => readFields(r, ORDER) as unknown as OrderInput)
    case 'market': return readFields(r, MARKET) as unknown as MarketInput
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
  const tag = r.uint()
  switch (tag) {
    case LEAF_STRING: return r.string()
    case LEAF_NUMBER: return r.float64()
    case LEAF_TRUE: return true
    case LEAF_FALSE: return false
    case LEAF_NULL: return null
    case LEAF_UNDEFINED: return undefined
    case LEAF_JSON: return JSON.parse(r.string()) as unknown
  }
  assert(false, `a known value tag: ${tag}`)
}
