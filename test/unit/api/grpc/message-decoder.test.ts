/**
 * The compiled request decoder (src/api/grpc/message-decoder.ts) against protobuf-es's fromBinary,
 * over the request of every method the gRPC face serves: for random messages, and for the same
 * bytes corrupted (a byte changed, cut short, bytes inserted, a part repeated), the decoder must
 * return what fromBinary returns (strictly deep-equal) or throw when it throws. Seeded:
 * MESSAGE_DECODER_SEED replays a run.
 */
import t, { type Test } from 'tap'
import { isDeepStrictEqual } from 'node:util'
import { create, fromBinary, toBinary, type DescMessage } from '@bufbuild/protobuf'
import { messageDecoder } from '../../../../src/api/grpc/message-decoder.js'
import { AccountService } from '../../../../src/gen/predex/v1/account_pb.js'
import { MarketDataService } from '../../../../src/gen/predex/v1/market_data_pb.js'
import { OrderEntryService, SessionRequestSchema } from '../../../../src/gen/predex/v1/order_entry_pb.js'
import { StreamService } from '../../../../src/gen/predex/v1/streams_pb.js'
import { PlaceOrderRequestSchema, TradingService } from '../../../../src/gen/predex/v1/trading_pb.js'
import { Random } from '../../../../src/stdx/random.js'
import { initOf } from '../../../support/proto-random.js'
import { seedOf } from '../../../support/seed.js'

const SEED = seedOf('MESSAGE_DECODER_SEED')
const MESSAGES_PER_SCHEMA = 400
const CORRUPTIONS_PER_MESSAGE = 3

const REQUESTS: readonly DescMessage[] = [...new Map([AccountService, MarketDataService, OrderEntryService,
  StreamService, TradingService].flatMap((service) => service.methods.map((method) => [method.input.typeName,
  method.input] as const))).values()]

type Outcome = { readonly ok: true; readonly message: unknown } | { readonly ok: false; readonly error: string }

function outcomeOf(decode: () => unknown): Outcome {
  try {
    return { ok: true, message: decode() }
  } catch (error) {
    return { ok: false, error: String(error) }
  }
}

/** The bytes with one random change: a byte replaced, cut short, random bytes inserted, or a slice repeated. */
function corrupted(random: Random, bytes: Uint8Array): Uint8Array {
  const buffer = Buffer.from(bytes)
  const at = random.int(0, buffer.length)
  switch (random.int(0, 3)) {
    case 0: {
      if (buffer.length > 0) buffer[Math.min(at, buffer.length - 1)] = random.int(0, 255)
      return buffer
    }
    case 1: return buffer.subarray(0, at)
    case 2: return Buffer.concat([buffer.subarray(0, at),
      Buffer.from(Array.from({ length: random.int(1, 4) }, () => random.int(0, 255))), buffer.subarray(at)])
    default: {
      const from = random.int(0, buffer.length)
      return Buffer.concat([buffer, buffer.subarray(from, random.int(from, buffer.length))])
    }
  }
}

const counts = { same: 0, bothThrew: 0 }

function check(t: Test, schema: DescMessage, decode: (bytes: Uint8Array) => unknown, bytes: Uint8Array,
  what: string): boolean {
  // Both get the same Buffer, as grpc-js hands requests over (an unknown field's bytes are a view of it).
  const buffer = Buffer.from(bytes)
  const expected = outcomeOf(() => fromBinary(schema, buffer))
  const actual = outcomeOf(() => decode(buffer))
  if (isDeepStrictEqual(actual, expected)) {
    if (expected.ok) counts.same++
    else counts.bothThrew++
    return true
  }
  t.fail(`${schema.typeName}: ${what} decodes differently`, { bytes: Buffer.from(bytes).toString('hex').slice(0, 400),
    expected: String(JSON.stringify(expected, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).slice(0, 600),
    actual: String(JSON.stringify(actual, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).slice(0, 600) })
  return false
}

t.test(`every request schema: fromBinary's message or its error, on random and corrupted bytes (seed ${SEED})`,
  (t) => {
    const random = new Random(SEED)
    for (const schema of REQUESTS) {
      const decode = messageDecoder(schema)
      let ok = true
      for (let i = 0; i < MESSAGES_PER_SCHEMA && ok; i++) {
        const bytes = toBinary(schema, create(schema, initOf(random, schema)))
        ok = check(t, schema, decode, bytes, `message ${i}`)
        for (let c = 0; c < CORRUPTIONS_PER_MESSAGE && ok; c++) {
          ok = check(t, schema, decode, corrupted(random, bytes), `message ${i}, corruption ${c}`)
        }
      }
    }
    t.ok(counts.same > 0 && counts.bothThrew > 0, `${REQUESTS.length} schemas: ${counts.same} decoded alike, ` +
      `${counts.bothThrew} refused by both`)
    t.end()
  })

t.test('the plain case is the compiled reader\'s, the unusual ones fromBinary\'s, with the same result', (t) => {
  const decode = messageDecoder(SessionRequestSchema)
  const place = toBinary(SessionRequestSchema, create(SessionRequestSchema, { requestId: '7', action: { case: 'place',
    value: { order: { salt: '1', maker: '0xab', tokenId: '12', side: 1 }, clientOrderId: 'c-1', postOnly: true } } }))
  const plain = decode(Buffer.from(place))
  t.same(plain, fromBinary(SessionRequestSchema, place))
  t.equal(Object.hasOwn(plain, '$unknown'), false)
  // The same place twice: the second merges into the first (fromBinary's rule).
  const twice = Buffer.concat([place, place])
  t.ok(isDeepStrictEqual(decode(twice), fromBinary(SessionRequestSchema, twice)), 'a repeated message field merges')
  // An unknown field (number 99, varint) is kept as fromBinary keeps it.
  const unknown = Buffer.concat([place, Buffer.from([0x98, 0x06, 0x01])])
  const withUnknown = decode(unknown)
  t.ok(isDeepStrictEqual(withUnknown, fromBinary(SessionRequestSchema, unknown)), 'an unknown field is kept')
  t.equal(Object.hasOwn(withUnknown, '$unknown'), true)
  t.end()
})

t.test('a PlaceOrderRequest from a plain Uint8Array (not a Buffer) decodes the same', (t) => {
  const bytes = toBinary(PlaceOrderRequestSchema, create(PlaceOrderRequestSchema, { order: { order: { salt: '5',
    maker: '0x01', signer: '0x01', taker: '0x00', tokenId: '99', makerAmount: '100', takerAmount: '200',
    expiration: '0', nonce: '0', feeRateBps: '0', side: 0, signatureType: 0, signature: '0xsig' }, owner: 'k' } }))
  t.ok(isDeepStrictEqual(messageDecoder(PlaceOrderRequestSchema)(bytes), fromBinary(PlaceOrderRequestSchema, bytes)))
  t.end()
})
