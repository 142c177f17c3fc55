/**
 * The init encoder (src/api/grpc/init-encoder.ts), every gRPC answer's serializer (definition.ts),
 * against protobuf-es itself: for random init shapes of the answer of every method the face serves
 * (every field of every message they hold, given or not, zero or not, long or short, ASCII or not),
 * the bytes must be exactly `toBinary(schema, create(schema, init))`'s; most draws go to the
 * session's answers and PlaceOrder's, the hot ones. Seeded: INIT_ENCODER_SEED replays a run.
 */
import t from 'tap'
import { create, toBinary, type DescMessage } from '@bufbuild/protobuf'
import { initEncoder } from '../../../../src/api/grpc/init-encoder.js'
import { GRPC_ENCODE_BUFFER_BYTES_KEPT_MAX } from '../../../../src/limits.js'
import { AccountService } from '../../../../src/gen/predex/v1/account_pb.js'
import { MarketDataService } from '../../../../src/gen/predex/v1/market_data_pb.js'
import { OrderEntryService, SessionResponseSchema } from '../../../../src/gen/predex/v1/order_entry_pb.js'
import { StreamService } from '../../../../src/gen/predex/v1/streams_pb.js'
import { PlaceOrderResponseSchema, TradingService } from '../../../../src/gen/predex/v1/trading_pb.js'
import { Random } from '../../../../src/stdx/random.js'
import { initOf } from '../../../support/proto-random.js'
import { seedOf } from '../../../support/seed.js'

const SEED = seedOf('INIT_ENCODER_SEED')
const HOT_MESSAGES = 3_000
const OTHER_MESSAGES = 200

const HOT: readonly DescMessage[] = [SessionResponseSchema, PlaceOrderResponseSchema]
const ANSWERS: readonly DescMessage[] = [...new Map([AccountService, MarketDataService, OrderEntryService,
  StreamService, TradingService].flatMap((service) => service.methods.map((method) => [method.output.typeName,
  method.output] as const))).values()]

for (const schema of ANSWERS) {
  const count = HOT.includes(schema) ? HOT_MESSAGES : OTHER_MESSAGES
  t.test(`${schema.typeName}: the bytes protobuf-es writes, for ${count} random inits (seed ${SEED})`,
    (t) => {
      const random = new Random(SEED)
      const encode = initEncoder(schema)
      let mismatches = 0
      for (let i = 0; i < count && mismatches === 0; i++) {
        const init = initOf(random, schema)
        const expected = Buffer.from(toBinary(schema, create(schema, init)))
        const actual = encode(init)
        if (!actual.equals(expected)) {
          mismatches++
          t.fail(`message ${i} differs`, { init: JSON.stringify(init, (_k, v: unknown) =>
            (typeof v === 'bigint' ? `${v}n` : v)).slice(0, 2_000), expected: expected.toString('hex').slice(0, 400),
          actual: actual.toString('hex').slice(0, 400) })
        }
      }
      if (mismatches === 0) t.pass(`${count} messages, byte for byte`)
      t.end()
    })
}

t.test('each answer is a Buffer of its own: a later encode leaves an earlier answer as it was', (t) => {
  const encode = initEncoder(SessionResponseSchema)
  const first = encode({ requestId: '1', result: { case: 'pong', value: {} } })
  const copy = Buffer.from(first)
  encode({ requestId: '2'.repeat(500), engineSeq: 7n })
  t.same(first, copy)
  t.end()
})

t.test('a message already created (not an init) encodes the same', (t) => {
  const encode = initEncoder(SessionResponseSchema)
  const message = create(SessionResponseSchema, { requestId: 'r', engineSeq: 12n,
    result: { case: 'order', value: { orderId: '0xab', status: 'live', tradeIds: ['t1', 't2'] } } })
  t.same(encode(message), Buffer.from(toBinary(SessionResponseSchema, message)))
  t.end()
})

t.test('a number out of its type\'s range throws, as toBinary throws: never a silent wrap', (t) => {
  const encode = initEncoder(SessionResponseSchema)
  const cases: [string, Record<string, unknown>][] = [
    ['uint32 below 0', { rateLimit: { remaining: -1 } }],
    ['uint32 not an integer', { rateLimit: { limit: 1.5 } }],
    ['uint32 past 2^32 - 1', { rateLimit: { resetMs: 2 ** 32 } }],
    ['uint64 below 0', { engineSeq: -1n }],
    ['uint64 past 2^64 - 1', { engineSeq: 2n ** 64n }],
  ]
  for (const [what, init] of cases) {
    t.throws(() => toBinary(SessionResponseSchema, create(SessionResponseSchema, init)), `${what}: protobuf-es throws`)
    t.throws(() => encode(init), `${what}: so does the encoder`)
  }
  t.end()
})

t.test('one large answer does not keep its buffer: past GRPC_ENCODE_BUFFER_BYTES_KEPT_MAX it is dropped after', (t) => {
  const encode = initEncoder(SessionResponseSchema)
  encode({ requestId: 'small' })
  const kept = encode.keptBytes
  t.ok(kept <= GRPC_ENCODE_BUFFER_BYTES_KEPT_MAX, `a small answer keeps ${kept} bytes`)
  const large = encode({ requestId: 'x'.repeat(4 * GRPC_ENCODE_BUFFER_BYTES_KEPT_MAX) })
  t.ok(large.length > 4 * GRPC_ENCODE_BUFFER_BYTES_KEPT_MAX, 'the large answer is written whole')
  t.ok(encode.keptBytes <= GRPC_ENCODE_BUFFER_BYTES_KEPT_MAX, `then ${encode.keptBytes} bytes are kept`)
  t.end()
})
