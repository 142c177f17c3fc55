/**
 * A time-boxed live fuzz of the gRPC face (issue 14, "Fuzzing"): generated malformed and
 * adversarial calls to every method of every service in proto/predex/v1 (listed from the
 * generated descriptors the server registers, src/api/grpc/server.ts SERVICES) on one real
 * server, as test/fuzz/rest-live.test.ts does for REST:
 *
 * - unary calls whose bodies are random bytes, messages of the method's schema with fields of
 *   garbage (strings of anything, huge strings, ids of the wrong kind, extreme numbers, enum values
 *   the proto does not name, lists past every bound), valid messages with a few fields replaced
 *   so, and encodings damaged below the schema (proto-arbitrary.ts); with metadata that is absent,
 *   a valid L2 signature of a real (unfunded) key over the exact bytes (so the call reaches its
 *   handler), a real key's with one flaw (signature, timestamp, passphrase, address, body), or
 *   headers of garbage; deadlines already passed, of 0, or of a few milliseconds; cancels in flight;
 *   bursts of up to 100 calls at once; a few unknown methods;
 * - the book and user streams with the same bodies and metadata, cancelled at once or after their
 *   first message;
 * - the order-entry session: frames of garbage and of damaged requests of every action, pipelined,
 *   then a close, a half-close, a cancel once answered, a cancel mid-stream or a short deadline;
 * - raw HTTP/2 (node:http2): gRPC frames with wrong lengths, compressed flags and encodings,
 *   two messages or none, bad content types and timeouts, streams reset or connections destroyed
 *   in the middle of a frame.
 *
 * Asserted: every call ends within ANSWER_MS_MAX (no hang; a stream sends its first message or
 * ends; a session answers each frame it read, in order, echoing its request_id); a refusal's status
 * is its catalogue code's (src/errors.ts) with `predex-code` and a google.rpc.Status whose
 * ErrorInfo names the code (docs/grpc.md, "Errors"), never INTERNAL; statuses without a code only
 * where grpc-js itself answers (deadline, cancel, size limit, unknown method, broken framing in the
 * raw cases); answers decode as the method's output; nothing placed or cancelled; the server alive
 * after (GET /health, grpc.health.v1 SERVING, ListMarkets, a book stream's snapshot, a session's
 * pong); and the engine's state hash and seq unchanged.
 *
 * Seeded (printed): FUZZ_SEED replays the generated cases; FUZZ_SECONDS sets the time box (6 s).
 */
import t, { type Test } from 'tap'
import fc from 'fast-check'
import { randomUUID } from 'node:crypto'
import { connect as connectHttp2, constants as http2, type IncomingHttpHeaders } from 'node:http2'
import {
  Client, credentials as channelCredentials, loadPackageDefinition, Metadata, status as Status, type CallOptions,
  type ServiceError, type StatusObject,
} from '@grpc/grpc-js'
import { loadSync } from '@grpc/proto-loader'
import { protoPath as healthProtoPath } from 'grpc-health-check'
import { fromBinary, type DescMessage, type DescMethod } from '@bufbuild/protobuf'
import { anyUnpack } from '@bufbuild/protobuf/wkt'
import { CATALOGUE, type ErrorCode } from '../../src/errors.js'
import { GRPC_RECEIVE_MESSAGE_BYTES_MAX } from '../../src/limits.js'
import { ORDER_GROUPS_PER_KEY_MAX } from '../../src/engine/limits.js'
import { SERVICES } from '../../src/api/grpc/server.js'
import { ErrorInfoSchema } from '../../src/gen/google/rpc/error_details_pb.js'
import { MarketDataService } from '../../src/gen/predex/v1/market_data_pb.js'
import { StatusSchema } from '../../src/gen/google/rpc/status_pb.js'
import type { ErrorDetail } from '../../src/gen/predex/v1/common_pb.js'
import {
  OrderEntryService, SessionRequestSchema, SessionResponseSchema, type SessionResponse,
} from '../../src/gen/predex/v1/order_entry_pb.js'
import {
  BookStreamResponseSchema, StreamService, UserStreamResponseSchema,
} from '../../src/gen/predex/v1/streams_pb.js'
import type { QuoteLevel } from '../../src/gen/predex/v1/trading_pb.js'
import { l2Metadata, type GrpcSigner } from '../../src/client/grpc/transport.js'
import { signLimitOrder, signLimitOrderV2 } from '../../src/client/orders.js'
import { USDC, l2, placeLimit, startServer, termsOf } from '../support/rest-harness.js'
import { requestOf, type OrderRequestInit } from '../grpc/order-entry-support.js'
import { bytesArb, encode, type Pools } from './proto-arbitrary.js'

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 6)
const ANSWER_MS_MAX = 5_000

const server = await startServer()
t.teardown(() => server.stop())
const target = `127.0.0.1:${server.predex.grpcPort}`
const markets = [await server.createMarket({ minOrderSizeMicros: 1 * USDC }), await server.createMarket()]
const maker = await server.trader(100 * USDC)
const makerOrders: string[] = []
const RESTING = [{ side: 'BUY', price: '0.40', size: '10' },
  { outcome: 'No', side: 'BUY', price: '0.50', size: '5' }] as const
for (const order of RESTING) {
  const placed = await placeLimit(server, maker, markets[0]!, order)
  if (placed.status !== 200) throw new Error('the book did not fill')
  makerOrders.push(placed.signed.orderId)
}
const TOKENS = markets.flatMap((m) => [m.yesTokenId, m.noTokenId])
/** The key whose calls are signed right (it has no funds, so nothing it sends can trade): never blocked. */
const fuzzer = await server.trader()
/** A key presented with flawed signatures, timestamps, passphrases. */
const victim = await server.trader()
const signerOf = (trader: typeof fuzzer): GrpcSigner => ({ credentials: trader.credentials, address: trader.address })
/**
 * The fuzzer's key holds as many order groups as a key may, under ids no generated string meets:
 * a create is refused (ORDER_GROUPS_FULL) and a change names no group of the key
 * (ORDER_GROUP_NOT_FOUND), so the order-group calls reach their handlers and change nothing.
 */
for (let i = 0; i < ORDER_GROUPS_PER_KEY_MAX; i++) {
  const held = await l2(server, fuzzer, 'POST', '/order-groups', { group_id: `held-${randomUUID()}`,
    contracts_limit: '5', window_ms: 15_000 })
  if (held.status !== 201) throw new Error(`the fuzzer's groups: ${held.status}`)
}

const pools: Pools = {
  strings: [...TOKENS, ...markets.flatMap((m) => [m.conditionId, m.marketId, m.slug]), ...makerOrders,
    maker.address, fuzzer.address, victim.address, victim.credentials.apiKey, '0.4', '10', 'LIVE', 'MATCHED', 'MA==',
    'LTE=', 'OTk5OTk5OTk5OQ==', TOKENS[0]!.toUpperCase(), ` ${TOKENS[0]}`],
}

// ---- valid requests, the bases the generator garbles ---------------------------------------------

const terms = termsOf(markets[0]!)
const v2 = signLimitOrderV2(fuzzer.wallet, terms, { tokenId: TOKENS[1]!, side: 'BUY', price: '0.45', size: '3' })
const VALID_ORDERS: OrderRequestInit[] = [
  requestOf(signLimitOrder(fuzzer.wallet, terms, { tokenId: TOKENS[0]!, side: 'BUY', price: '0.45', size: '10' })),
  { ...requestOf(signLimitOrder(fuzzer.wallet, terms, { tokenId: TOKENS[0]!, side: 'SELL', price: '0.35', size: '5' }),
    { orderType: 3, clientOrderId: 'fok-1' }), orderGroupId: 'fuzz-group' },
  { order: { salt: v2.order.salt, maker: v2.order.maker, signer: v2.order.signer, tokenId: v2.order.tokenId,
    makerAmount: v2.order.makerAmount, takerAmount: v2.order.takerAmount, expiration: v2.expiration,
    side: v2.order.side, signatureType: v2.order.signatureType, signature: v2.signature, timestamp: v2.order.timestamp,
    metadata: v2.order.metadata, builder: v2.order.builder }, clientOrderId: 'v2-1' },
]
const market = { market: markets[0]!.conditionId, assetId: TOKENS[0] }
const page = { page: { limit: 5 } }
/** A valid request of each unary method, by local name (methods not listed start from an empty message). */
const BASES: Readonly<Record<string, Record<string, unknown>>> = {
  placeOrder: { order: VALID_ORDERS[0] }, placeOrders: { orders: VALID_ORDERS },
  verifyOrder: { order: VALID_ORDERS[2] },
  cancelOrder: { orderId: makerOrders[0] }, cancelOrders: { orderIds: makerOrders }, cancelMarketOrders: market,
  cancelByClientOrderIds: { clientOrderIds: ['fok-1', 'v2-1'] }, getOrder: { orderId: makerOrders[0] },
  amendOrder: { orderId: makerOrders[0], newSize: '5' },
  cancelReplace: { orderId: makerOrders[1], order: VALID_ORDERS[0] },
  massQuote: { market: markets[0]!.marketId, orders: VALID_ORDERS },
  createOrderGroup: { groupId: 'fuzz-group', contractsLimit: '5', notionalLimit: '10', windowMs: 15_000,
    freezeMs: 1_000 },
  updateOrderGroup: { groupId: 'fuzz-group', contractsLimit: '1', windowMs: 2_000, freezeMs: 0 },
  triggerOrderGroup: { groupId: 'fuzz-group' }, resetOrderGroup: { groupId: 'fuzz-group' },
  deleteOrderGroup: { groupId: 'fuzz-group' },
  listOpenOrders: { ...market, ...page }, listOrders: { marketId: markets[0]!.marketId, status: 'LIVE', ...page },
  listTrades: { ...market, ...page }, getBalanceAllowance: { assetType: 2, tokenId: TOKENS[0] },
  getWalletStatus: { address: fuzzer.address }, listMarkets: page, getMarket: { market: markets[0]!.marketId },
  getBooks: { tokenIds: TOKENS }, getPrice: { tokenId: TOKENS[0], side: 1 },
  getCandles: { symbol: TOKENS[0], interval: 3, from: BigInt(Math.floor(Date.now() / 1000) - 86_400) },
  bookStream: { tokenIds: TOKENS }, userStream: { fromSeq: 0n, epoch: '' },
}
const BY_TOKEN = ['getBook', 'getUnifiedBook', 'getMidpoint', 'getSpread', 'getLastTradePrice', 'getTickSize',
  'getFeeRate']
for (const name of BY_TOKEN) {
  (BASES as Record<string, unknown>)[name] = { tokenId: TOKENS[0] }
}
const SESSION_BASES: readonly Record<string, unknown>[] = [
  { requestId: 'ping', action: { case: 'ping', value: {} } },
  { requestId: 'open', action: { case: 'open', value: { cancelOnDisconnect: 2, deadManMs: 5_000 } } },
  ...VALID_ORDERS.map((order, i) => ({ requestId: `place-${i}`, action: { case: 'place', value: order } })),
  { requestId: 'batch', action: { case: 'placeBatch', value: { orders: VALID_ORDERS } } },
  { requestId: 'cancel', action: { case: 'cancel', value: { orderId: makerOrders[0] } } },
  { requestId: 'many', action: { case: 'cancelMany', value: { orderIds: makerOrders } } },
  { requestId: 'all', action: { case: 'cancelAll', value: {} } },
  { requestId: 'market', action: { case: 'cancelMarket', value: market } },
  { requestId: 'clients', action: { case: 'cancelByClientIds', value: { clientOrderIds: ['fok-1'] } } },
  { requestId: 'amend', action: { case: 'amend', value: { orderId: makerOrders[0], reduceBy: '1' } } },
  { requestId: 'replace', action: { case: 'cancelReplace',
    value: { orderId: makerOrders[1], order: VALID_ORDERS[1] } } },
  { requestId: 'quote', action: { case: 'massQuote',
    value: { market: markets[0]!.conditionId, orders: VALID_ORDERS.slice(0, 2) } } },
]

// ---- generated calls ---------------------------------------------------------------------------

const UNARY = SERVICES.flatMap((service) => service.methods).filter((m) => m.methodKind === 'unary')
const pathOf = (method: DescMethod): string => `/${method.parent.typeName}/${method.name}`
const UNKNOWN_PATHS = ['/predex.v1.TradingService/Nothing', '/predex.v2.TradingService/PlaceOrder', '/', '/x/y/z',
  '/predex.v1.TradingService/', '/grpc.health.v1.Health/Nothing']

type Auth =
  | { readonly kind: 'none' }
  /** The fuzzer's key, signed right over the exact bytes: the call gets past the gate to its handler. */
  | { readonly kind: 'signed' }
  | { readonly kind: 'flawed'; readonly flaw: 'signature' | 'timestamp' | 'passphrase' | 'address' | 'body' }
  | { readonly kind: 'garbage'; readonly headers: readonly (readonly [string, string])[] }

const HEADER_NAMES = ['exchange-address', 'exchange-signature', 'exchange-timestamp', 'exchange-api-key',
  'exchange-passphrase', 'poly_address', 'poly_signature', 'poly_timestamp', 'poly_api_key', 'poly_passphrase',
  'exchange-signature-bin', 'x-anything', 'grpc-timeout-x']
const headerValue = fc.oneof({ weight: 4, arbitrary: fc.stringMatching(/^[ -~]{0,80}$/) },
  { weight: 2, arbitrary: fc.constantFrom(victim.address, victim.credentials.apiKey, victim.credentials.passphrase,
    String(Math.floor(Date.now() / 1000)), '-1', '1e309', '') },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 6_000 }).map((n) => 'y'.repeat(n)) })
const auth: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 5, arbitrary: fc.constant({ kind: 'signed' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('flawed' as const),
    flaw: fc.constantFrom('signature' as const, 'timestamp' as const, 'passphrase' as const, 'address' as const,
      'body' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('garbage' as const),
    headers: fc.array(fc.tuple(fc.constantFrom(...HEADER_NAMES), headerValue), { maxLength: 6 }) }) })

/** No deadline, one already passed, one of now (0 left), or a few milliseconds: ends mid-call. */
type Deadline = { readonly kind: 'none' } | { readonly kind: 'in'; readonly ms: number }
const deadline: fc.Arbitrary<Deadline> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('in' as const),
    ms: fc.oneof(fc.constantFrom(-1_000, -1, 0), fc.integer({ min: 1, max: 30 })) }) })

interface UnaryCall {
  /** The method, or null for an unknown path. */
  readonly method: DescMethod | null
  readonly path: string
  readonly body: Uint8Array
  readonly auth: Auth
  readonly deadline: Deadline
  /** Cancelled by the client this many ms after it is sent (null: not). */
  readonly cancelAfterMs: number | null
}

const STREAMS = [StreamService.method.bookStream, StreamService.method.userStream]
/** Request bytes of each method (built once: building arbitraries per case would cost more than running it). */
const BODIES = new Map([...UNARY, ...STREAMS].map((m) => [m, bytesArb(m.input, BASES[m.localName] ?? {}, pools)]))
const bodyOf = (method: DescMethod): fc.Arbitrary<Uint8Array> => BODIES.get(method)!

const unaryCall: fc.Arbitrary<UnaryCall> = fc.oneof(
  { weight: 30, arbitrary: fc.oneof(...UNARY.map((method) => fc.record({
    method: fc.constant(method), path: fc.constant(pathOf(method)), body: bodyOf(method),
    auth, deadline, cancelAfterMs: fc.option(fc.integer({ min: 0, max: 5 }), { freq: 10 }) }))) },
  // Unknown paths of characters a :path may hold (others are refused by Node's HTTP/2 layer, RST_STREAM before gRPC).
  { weight: 1, arbitrary: fc.record({ method: fc.constant(null), path: fc.oneof(fc.constantFrom(...UNKNOWN_PATHS),
    fc.stringMatching(/^\/[A-Za-z0-9._~/-]{0,40}$/)), body: fc.uint8Array({ maxLength: 40 }), auth, deadline,
  cancelAfterMs: fc.constant(null) }) })

type Ending =
  | { readonly kind: 'close' | 'halfClose' | 'cancel' | 'cancelNow' }
  | { readonly kind: 'deadline'; readonly ms: number }

type FuzzCase =
  | { readonly kind: 'unary'; readonly call: UnaryCall }
  | { readonly kind: 'burst'; readonly calls: readonly UnaryCall[] }
  | { readonly kind: 'stream'; readonly method: DescMethod; readonly body: Uint8Array; readonly auth: Auth;
    readonly deadline: Deadline; readonly cancelNow: boolean }
  | { readonly kind: 'session'; readonly auth: Auth; readonly frames: readonly Uint8Array[]; readonly ending: Ending }
  | { readonly kind: 'raw'; readonly path: string; readonly headers: Readonly<Record<string, string>>;
    readonly chunks: readonly Uint8Array[]; readonly end: 'end' | 'reset' | 'destroy' }

const streamCase = fc.oneof(...STREAMS.map((method) => fc.record({ kind: fc.constant('stream' as const),
  method: fc.constant(method), body: bodyOf(method), auth, deadline, cancelNow: fc.boolean() })))
const sessionFrame = fc.oneof(
  { weight: 6, arbitrary: fc.oneof(...SESSION_BASES.map((base) => bytesArb(SessionRequestSchema, base, pools))) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 100 }) })
const ending: fc.Arbitrary<Ending> = fc.oneof(
  fc.record({ kind: fc.constantFrom('close' as const, 'halfClose' as const, 'cancel' as const, 'cancelNow' as const) }),
  fc.record({ kind: fc.constant('deadline' as const), ms: fc.integer({ min: 1, max: 60 }) }))
const sessionCase = fc.record({ kind: fc.constant('session' as const),
  auth: fc.oneof({ weight: 4, arbitrary: fc.constant({ kind: 'signed' as const }) }, { weight: 1, arbitrary: auth }),
  frames: fc.array(sessionFrame, { maxLength: 12 }), ending })

/** A gRPC frame: the compressed flag, the length (as the payload's, or not), the payload. */
const grpcFrame = fc.record({
  flag: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) }),
  skew: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -20, max: 20 }) },
    { weight: 1, arbitrary: fc.constant(2 ** 31) }),
  payload: fc.oneof(...[...BODIES.values()]) })
  .map(({ flag, skew, payload }) => {
    const head = Buffer.alloc(5)
    head[0] = flag
    head.writeUInt32BE(Math.max(0, Math.min(2 ** 32 - 1, payload.length + skew)), 1)
    return Buffer.concat([head, payload])
  })
const rawCase = fc.record({
  kind: fc.constant('raw' as const),
  path: fc.oneof(fc.constantFrom(...UNARY, ...STREAMS, OrderEntryService.method.session).map(pathOf),
    fc.constantFrom(...UNKNOWN_PATHS)),
  headers: fc.record({
    'content-type': fc.constantFrom('application/grpc', 'application/grpc+proto', 'application/json', 'text/plain'),
    'grpc-encoding': fc.constantFrom('identity', 'gzip', 'deflate', 'zstd9'),
    'grpc-timeout': fc.constantFrom('1n', '0n', '5m', 'xyz', '99999999H'),
    te: fc.constant('trailers') }, { requiredKeys: ['content-type'] }),
  chunks: fc.array(fc.oneof({ weight: 4, arbitrary: grpcFrame },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 12 }) }), { maxLength: 3 }),
  end: fc.oneof({ weight: 4, arbitrary: fc.constant('end' as const) },
    { weight: 1, arbitrary: fc.constantFrom('reset' as const, 'destroy' as const) }),
})

const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  { weight: 12, arbitrary: unaryCall.map((call) => ({ kind: 'unary' as const, call })) },
  { weight: 1, arbitrary: fc.array(unaryCall, { minLength: 10, maxLength: 100 })
    .map((calls) => ({ kind: 'burst' as const, calls })) },
  { weight: 3, arbitrary: streamCase },
  { weight: 4, arbitrary: sessionCase },
  { weight: 2, arbitrary: rawCase })

function* prepend<T>(head: T, rest: Iterator<T>): Generator<T> {
  yield head
  for (let next = rest.next(); next.done !== true; next = rest.next()) yield next.value
}

/** The cases of `seed`, generated a batch at a time (generating them all first would eat the time box). */
function* casesOf(seed: number): Generator<FuzzCase> {
  // Each batch its own seed, mixed so that the batches of two nearby seeds differ.
  const mixed = Math.imul(seed ^ 0x5bd1e995, 0x27d4eb2f)
  for (let batch = 0; ; batch++) yield* fc.sample(fuzzCase, { seed: mixed + batch, numRuns: 20 })
}

// ---- checking what comes back ------------------------------------------------------------------

interface Tally {
  readonly problems: string[]
  /** Calls, streams, session frames and raw streams sent. */
  sent: number
  readonly codes: Map<string, number>
  /** Statuses grpc-js answered itself (no catalogue code), by status and message. */
  readonly transport: Map<string, number>
  /** Writes the server accepted (each would explain a changed state hash). */
  readonly accepted: string[]
}

const count = (map: Map<string, number>, key: string): void => void map.set(key, (map.get(key) ?? 0) + 1)
const describe = (value: unknown): string => {
  const text = JSON.stringify(value, (_key, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex').slice(0, 80)
    : v?.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString('hex').slice(0, 80)
      : typeof v === 'bigint' ? String(v) : v?.kind === 'rpc' ? pathOf(v as DescMethod) : v))
  return text.length > 400 ? `${text.slice(0, 400)}...` : text
}

/**
 * What is wrong with a call's end, or null. A status with a catalogue code must be that code's
 * (and never INTERNAL) and carry google.rpc.Status details naming it; one without is allowed only
 * when `transport` says grpc-js may answer it itself.
 */
function statusProblem(end: Pick<StatusObject, 'code' | 'details' | 'metadata'>, transport: ReadonlySet<number>,
  tally: Tally): string | null {
  if (end.code === Status.OK) return null
  const code = end.metadata?.get('predex-code')[0]
  if (code === undefined) {
    const what = end.details.replace(/ (after|method) .*$|[,(].*$/, '').replace(/\d+/g, '#').slice(0, 60)
    count(tally.transport, `${Status[end.code]} ${what}`)
    return transport.has(end.code) ? null : `${Status[end.code]} without a catalogue code: ${end.details}`
  }
  const entry = CATALOGUE[String(code) as ErrorCode]
  if (entry === undefined) return `${Status[end.code]} with an unknown code ${String(code)}`
  count(tally.codes, String(code))
  if (end.code === Status.INTERNAL) return `INTERNAL (${String(code)}): ${end.details}`
  if (entry.grpc !== end.code) {
    return `${Status[end.code]} for ${String(code)}, whose catalogue status is ${Status[entry.grpc]}`
  }
  const bin = end.metadata.get('grpc-status-details-bin')[0]
  if (!(bin instanceof Buffer)) return `${String(code)} without grpc-status-details-bin`
  let details
  try {
    details = fromBinary(StatusSchema, bin)
  } catch (error) {
    return `${String(code)}: grpc-status-details-bin does not decode: ${String(error)}`
  }
  const info = details.details.map((any) => anyUnpack(any, ErrorInfoSchema)).find((i) => i !== undefined)
  if (details.code !== end.code || info?.reason !== code || info.domain !== 'predex') {
    return `${String(code)}: details ${describe({ code: details.code, info })} do not match the status`
  }
  const badContext = Object.entries(info.metadata).find(([, v]) => {
    try {
      JSON.parse(v)
      return false
    } catch {
      return true
    }
  })
  return badContext === undefined ? null : `${String(code)}: context ${badContext[0]} is not JSON: ${badContext[1]}`
}

/** The refusal inside an answer (a session's error, an ack's, a batch item's): a catalogue code. */
function detailProblem(detail: ErrorDetail | undefined, what: string, tally: Tally): string | null {
  if (detail === undefined) return `${what} without an error: something was done`
  count(tally.codes, detail.code)
  if (!(detail.code in CATALOGUE)) return `${what}: unknown code ${detail.code}`
  return detail.code === 'INTERNAL' ? `${what}: INTERNAL ${detail.message}` : null
}

const GROUP_WRITES = ['createOrderGroup', 'updateOrderGroup', 'triggerOrderGroup', 'resetOrderGroup',
  'deleteOrderGroup']
const WRITES = new Set(['placeOrder', 'placeOrders', 'cancelOrder', 'cancelOrders', 'cancelAll', 'cancelMarketOrders',
  'cancelByClientOrderIds', 'amendOrder', 'cancelReplace', 'massQuote', ...GROUP_WRITES])
/**
 * The writes whose every OK answer did something (an amend lowered an order, a cancel-replace
 * cancelled one, an order-group call changed a group).
 */
const ALWAYS_WRITES = new Set(['placeOrder', 'amendOrder', 'cancelReplace', ...GROUP_WRITES])

/** A successful answer must decode as the method's output; a write that did something is recorded. */
function answerProblem(method: DescMethod | null, answer: Buffer, tally: Tally): string | null {
  if (method === null) return 'an unknown method answered OK'
  let decoded: any
  try {
    decoded = fromBinary(method.output, answer)
  } catch (error) {
    return `the answer does not decode as ${method.output.typeName}: ${String(error)}`
  }
  if (!WRITES.has(method.localName)) return null
  const did = decoded.placement !== undefined || (decoded.totalSuccessful ?? 0) > 0 ||
    (decoded.result?.canceled?.length ?? 0) > 0 || quoteDid(decoded)
  if (did || ALWAYS_WRITES.has(method.localName)) tally.accepted.push(`${method.localName}: ${describe(decoded)}`)
  return null
}

/** Whether a mass quote's answer says it did something: an order cancelled, or a level not refused. */
function quoteDid(answer: { canceled?: unknown[]; levels?: QuoteLevel[] }): boolean {
  return (answer.canceled?.length ?? 0) > 0 ||
    (answer.levels ?? []).some((l) => l.outcome.case !== 'placement' || l.outcome.value.result.case !== 'refused')
}

// ---- running the cases -------------------------------------------------------------------------

/**
 * The fuzz's gRPC channel, replaced after CALLS_PER_CHANNEL calls: Node's HTTP/2 server (nghttp2's
 * defence against "rapid reset" and other glitches) closes a connection whose client resets about
 * 1 000 streams in a burst, with GOAWAY INTERNAL_ERROR, failing every call on it. A client that
 * cancels half its calls is the fuzz's own doing, not a fault of the server's (docs/operations.md,
 * "Fuzzing").
 */
const CALLS_PER_CHANNEL = 300
/** A channel of its own connection (grpc-js shares connections between channels to one target unless told not to). */
const newClient = (): Client =>
  new Client(target, channelCredentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 })
const clients = [newClient()]
t.teardown(() => clients.forEach((c) => c.close()))
let calls = 0
function clientFor(): Client {
  if (++calls >= CALLS_PER_CHANNEL) {
    calls = 0
    const old = clients.at(-1)!
    setTimeout(() => old.close(), 2 * ANSWER_MS_MAX).unref() // once its calls are over
    clients.push(newClient())
  }
  return clients.at(-1)!
}
const identity = (bytes: Uint8Array): Buffer => Buffer.from(bytes)

function metadataOf(given: Auth, method: DescMethod | null, bytes: Uint8Array): Metadata {
  if (given.kind === 'none' || method === null) return new Metadata()
  if (given.kind === 'signed') return l2Metadata(signerOf(fuzzer), method, bytes)
  if (given.kind === 'flawed') {
    const now = Math.floor(Date.now() / 1000)
    const signed = given.flaw === 'timestamp' ? l2Metadata(signerOf(victim), method, bytes, now - 86_400)
      : l2Metadata(signerOf(victim), method, given.flaw === 'body' ? Buffer.concat([bytes, Buffer.of(0)]) : bytes)
    if (given.flaw === 'signature') signed.set('exchange-signature', Buffer.alloc(32, 7).toString('base64url'))
    if (given.flaw === 'passphrase') signed.set('exchange-passphrase', 'f'.repeat(64))
    if (given.flaw === 'address') signed.set('exchange-address', fuzzer.address)
    return signed
  }
  const metadata = new Metadata()
  for (const [name, value] of given.headers) {
    if (name.endsWith('-bin')) metadata.add(name, Buffer.from(value))
    else metadata.add(name, value)
  }
  return metadata
}

function optionsOf(given: Deadline): CallOptions {
  return given.kind === 'none' ? {} : { deadline: Date.now() + given.ms }
}

/** The statuses grpc-js may answer itself for a call like this one. */
function transportStatuses(call: { method: DescMethod | null; body: Uint8Array; deadline: Deadline; auth: Auth },
  cancelled: boolean): Set<number> {
  const allowed = new Set<number>()
  if (call.method === null) allowed.add(Status.UNIMPLEMENTED)
  if (call.deadline.kind !== 'none') allowed.add(Status.DEADLINE_EXCEEDED)
  if (cancelled) allowed.add(Status.CANCELLED)
  const headerBytes = call.auth.kind === 'garbage'
    ? call.auth.headers.reduce((n, [k, v]) => n + k.length + v.length, 0) : 0
  if (call.body.length > GRPC_RECEIVE_MESSAGE_BYTES_MAX - 1024 || headerBytes > 8_000) {
    allowed.add(Status.RESOURCE_EXHAUSTED)
  }
  return allowed
}

async function runUnary(call: UnaryCall, tally: Tally): Promise<void> {
  tally.sent++
  const what = `${call.path} ${describe({ body: call.body, auth: call.auth, deadline: call.deadline,
    cancel: call.cancelAfterMs })}`
  let metadata: Metadata
  try {
    metadata = metadataOf(call.auth, call.method, call.body)
  } catch {
    return // grpc-js refused the header (a name or value it does not send): nothing went out
  }
  const outcome = await new Promise<{ error: ServiceError | null; answer: Buffer | null } | null>((resolve) => {
    const waitMs = ANSWER_MS_MAX + (call.deadline.kind === 'in' ? Math.max(call.deadline.ms, 0) : 0)
    const timer = setTimeout(() => resolve(null), waitMs)
    const options = optionsOf(call.deadline)
    const pending = clientFor().makeUnaryRequest(call.path, identity, identity, call.body, metadata, options,
      (error, answer) => {
        clearTimeout(timer)
        resolve({ error, answer: answer ?? null })
      })
    if (call.cancelAfterMs !== null) setTimeout(() => pending.cancel(), call.cancelAfterMs)
  })
  if (outcome === null) return void tally.problems.push(`no answer within ${ANSWER_MS_MAX} ms: ${what}`)
  const problem = outcome.error !== null
    ? statusProblem(outcome.error, transportStatuses(call, call.cancelAfterMs !== null), tally)
    : answerProblem(call.method, outcome.answer!, tally)
  if (problem !== null) tally.problems.push(`${problem}: ${what}`)
}

/** A book or user stream: its first message or its end in time, each message what the stream sends, then cancelled. */
async function runStream(c: Extract<FuzzCase, { kind: 'stream' }>, tally: Tally): Promise<void> {
  tally.sent++
  const what = `${pathOf(c.method)} ${describe({ body: c.body, auth: c.auth, deadline: c.deadline,
    cancelNow: c.cancelNow })}`
  const call = clientFor().makeServerStreamRequest(pathOf(c.method), identity, identity, c.body,
    metadataOf(c.auth, c.method, c.body), optionsOf(c.deadline))
  const messages: Buffer[] = []
  let end = null as StatusObject | null
  const ended = new Promise<void>((resolve) => call.on('status', (s: StatusObject) => {
    end = s
    resolve()
  }))
  call.on('data', (message: Buffer) => messages.push(message))
  call.on('error', () => undefined)
  if (c.cancelNow) call.cancel()
  const first = await within(Promise.race([ended, new Promise<void>((resolve) => call.once('data', () => resolve()))]))
  if (!first) tally.problems.push(`neither a message nor the end within ${ANSWER_MS_MAX} ms: ${what}`)
  call.cancel()
  if (!(await within(ended))) {
    tally.problems.push(`the stream did not end within ${ANSWER_MS_MAX} ms of its cancel: ${what}`)
  }
  for (const message of messages) {
    const problem = streamMessageProblem(c.method, message)
    if (problem !== null) tally.problems.push(`${problem}: ${what}`)
  }
  const problem = end === null ? null : statusProblem(end, transportStatuses({ ...c, method: c.method }, true), tally)
  if (problem !== null) tally.problems.push(`${problem}: ${what}`)
}

function streamMessageProblem(method: DescMethod, message: Buffer): string | null {
  try {
    if (method === StreamService.method.bookStream) {
      const update = fromBinary(BookStreamResponseSchema, message)
      // Nothing changes during the fuzz: a book stream only ever sends the snapshots of known tokens.
      const known = update.update.case === 'snapshot' && TOKENS.includes(update.tokenId)
      return known ? null : `book stream sent ${describe(update)}`
    }
    const update = fromBinary(UserStreamResponseSchema, message).update
    const empty = update.case === 'gap' || (update.case === 'snapshot' && update.value.orders.length === 0)
    return empty ? null : `user stream sent ${describe(update)}`
  } catch (error) {
    return `a stream message does not decode: ${String(error)}`
  }
}

/** Resolves true when `promise` settles within ANSWER_MS_MAX, false otherwise. */
function within(promise: Promise<unknown>, ms = ANSWER_MS_MAX): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    void promise.then(() => {
      clearTimeout(timer)
      resolve(true)
    })
  })
}

/** The request ids the server must answer, in order: every frame it reads, up to and including a close. */
function expectedAnswers(frames: readonly Uint8Array[]): { ids: string[]; closed: boolean } {
  const ids: string[] = []
  for (const frame of frames) {
    let request
    try {
      request = fromBinary(SessionRequestSchema, frame)
    } catch {
      ids.push('')
      continue
    }
    ids.push(request.requestId)
    if (request.action.case === 'close') return { ids, closed: true }
  }
  return { ids, closed: false }
}

async function runSession(c: Extract<FuzzCase, { kind: 'session' }>, tally: Tally): Promise<void> {
  const what = `session ${describe({ auth: c.auth, frames: c.frames, ending: c.ending })}`
  const method = OrderEntryService.method.session
  const call = clientFor().makeBidiStreamRequest(pathOf(method), identity, identity,
    metadataOf(c.auth, method, new Uint8Array(0)),
    c.ending.kind === 'deadline' ? { deadline: Date.now() + c.ending.ms } : {})
  const answers: Buffer[] = []
  let end = null as StatusObject | null
  const ended = new Promise<void>((resolve) => call.on('status', (s: StatusObject) => {
    end = s
    resolve()
  }))
  call.on('data', (answer: Buffer) => answers.push(answer))
  call.on('error', () => undefined)
  const close = encode(SessionRequestSchema, { requestId: 'fuzz-close', action: { case: 'close', value: {} } })
  const frames = c.ending.kind === 'close' ? [...c.frames, close] : c.frames
  for (const frame of frames) call.write(frame)
  tally.sent += frames.length + 1
  const expected = expectedAnswers(frames)
  if (c.ending.kind === 'halfClose') call.end()
  // Cancelled mid-stream, once the frames are handed to the transport: a grpc-js client call cancelled in the same
  // tick it was made may leave its HTTP/2 stream open (the server then sees a live, idle session holding a slot).
  if (c.ending.kind === 'cancelNow') setImmediate(() => call.cancel())
  if (c.ending.kind === 'cancel') {
    const answered = await within(Promise.race([ended, until(() => answers.length >= expected.ids.length)]))
    if (!answered) {
      tally.problems.push(`${answers.length} of ${expected.ids.length} frames answered in ${ANSWER_MS_MAX} ms: ${what}`)
    }
    call.cancel()
  }
  if (!(await within(ended))) {
    call.cancel()
    return void tally.problems.push(`the session did not end within ${ANSWER_MS_MAX} ms: ${what}`)
  }
  const cancelled = c.ending.kind === 'cancel' || c.ending.kind === 'cancelNow'
  const largest = frames.reduce((a, b) => (b.length > a.length ? b : a), new Uint8Array(0))
  const problem = statusProblem(end!, transportStatuses({ method, body: largest, auth: c.auth,
    deadline: c.ending.kind === 'deadline' ? { kind: 'in', ms: c.ending.ms } : { kind: 'none' } }, cancelled), tally)
  if (problem !== null) tally.problems.push(`${problem}: ${what}`)
  const finishedOk = end!.code === Status.OK &&
    (c.ending.kind === 'close' || c.ending.kind === 'halfClose' || expected.closed)
  if (finishedOk && answers.length !== expected.ids.length) {
    tally.problems.push(`ended OK with ${answers.length} answers to ${expected.ids.length} frames read: ${what}`)
  }
  answers.forEach((answer, i) => {
    const problem = sessionAnswerProblem(answer, expected.ids[i], tally)
    if (problem !== null) tally.problems.push(`answer ${i}: ${problem}: ${what}`)
  })
}

function sessionAnswerProblem(bytes: Buffer, requestId: string | undefined, tally: Tally): string | null {
  let answer: SessionResponse
  try {
    answer = fromBinary(SessionResponseSchema, bytes)
  } catch (error) {
    return `does not decode: ${String(error)}`
  }
  if (requestId === undefined) return `one answer too many: ${describe(answer)}`
  if (answer.requestId !== requestId) return `answers request "${answer.requestId}" where "${requestId}" was next`
  const result = answer.result
  switch (result.case) {
    case 'error': return detailProblem(result.value, 'a refusal', tally)
    case 'order': return detailProblem(result.value.error, 'an order ack', tally)
    case 'batch': {
      const problems = result.value.orders.map((ack) => detailProblem(ack.error, 'a batch ack', tally))
      return problems.find((p) => p !== null) ?? null
    }
    case 'canceled': return result.value.canceled.length === 0 ? null : `cancelled ${describe(result.value)}`
    case 'amended': return `amended ${describe(result.value)}`
    case 'replaced': return `replaced ${describe(result.value)}`
    case 'quoted': {
      if (quoteDid(result.value)) return `quoted ${describe(result.value)}`
      const problems = result.value.levels.map(({ outcome }) => detailProblem(outcome.case === 'placement' &&
        outcome.value.result.case === 'refused' ? outcome.value.result.value : undefined, 'a quote level', tally))
      return problems.find((p) => p !== null) ?? null
    }
    case 'opened': case 'pong': case 'closed': return null
    default: return `an answer without a result: ${describe(answer)}`
  }
}

/** Resolves once `check` holds; stops looking after `ms` (and then never resolves). */
function until(check: () => boolean, ms = ANSWER_MS_MAX): Promise<void> {
  const deadline = performance.now() + ms
  return new Promise((resolve) => {
    const poll = (): void => {
      if (check()) resolve()
      else if (performance.now() < deadline) setTimeout(poll, 2)
    }
    poll()
  })
}

/** Raw HTTP/2: the server answers (headers, then data or the end) or resets, in time; statuses as for any call. */
async function runRaw(c: Extract<FuzzCase, { kind: 'raw' }>, tally: Tally): Promise<void> {
  tally.sent++
  const what = `raw ${c.path} ${describe({ headers: c.headers, chunks: c.chunks, end: c.end })}`
  const session = connectHttp2(`http://${target}`)
  session.on('error', () => undefined)
  try {
    const stream = session.request({ ':method': 'POST', ':path': c.path, ...c.headers })
    stream.on('error', () => undefined)
    let headers: IncomingHttpHeaders = {}
    let data = false
    stream.on('response', (h) => (headers = { ...headers, ...h }))
    stream.on('trailers', (h) => (headers = { ...headers, ...h }))
    stream.on('data', () => (data = true))
    const closed = new Promise<void>((resolve) => stream.on('close', resolve))
    for (const chunk of c.chunks) stream.write(chunk)
    if (c.end === 'reset') return void stream.close(http2.NGHTTP2_CANCEL)
    if (c.end === 'destroy') return void session.destroy()
    stream.end()
    if (!(await within(Promise.race([closed, until(() => data)])))) {
      return void tally.problems.push(`no answer within ${ANSWER_MS_MAX} ms: ${what}`)
    }
    const problem = rawProblem(c, headers, data, tally)
    if (problem !== null) tally.problems.push(`${problem}: ${what}`)
  } finally {
    session.destroy()
  }
}

function rawProblem(c: Extract<FuzzCase, { kind: 'raw' }>, headers: IncomingHttpHeaders, data: boolean,
  tally: Tally): string | null {
  const httpStatus = Number(headers[':status'])
  if (httpStatus >= 500) return `HTTP ${httpStatus}`
  if (httpStatus !== 200) return c.headers['content-type']!.startsWith('application/grpc') ? `HTTP ${httpStatus}` : null
  const grpcStatus = headers['grpc-status']
  if (grpcStatus === undefined) return data ? null : 'HTTP 200 without a grpc-status or a message'
  const metadata = new Metadata()
  for (const name of ['predex-code', 'grpc-status-details-bin']) {
    const value = headers[name]
    if (typeof value === 'string') metadata.set(name, name.endsWith('-bin') ? Buffer.from(value, 'base64') : value)
  }
  // grpc-js answers broken framing itself: no message or two, a length past the limit, a payload it
  // cannot decompress, an encoding it does not know, a grpc-timeout it cannot read (INTERNAL, as gRPC
  // specifies for those two), an unknown method.
  const transport = new Set([Status.UNIMPLEMENTED, Status.RESOURCE_EXHAUSTED, Status.DEADLINE_EXCEEDED,
    ...(c.headers['grpc-encoding'] !== undefined || c.headers['grpc-timeout'] !== undefined ? [Status.INTERNAL] : [])])
  const details = decodeURIComponent(String(headers['grpc-message'] ?? ''))
  return statusProblem({ code: Number(grpcStatus), details, metadata }, transport, tally)
}

// ---- the run -----------------------------------------------------------------------------------

async function runCase(c: FuzzCase, tally: Tally): Promise<void> {
  switch (c.kind) {
    case 'unary': return runUnary(c.call, tally)
    case 'burst': return void (await Promise.all(c.calls.map((call) => runUnary(call, tally))))
    case 'stream': return runStream(c, tally)
    case 'session': return runSession(c, tally)
    case 'raw': return runRaw(c, tally)
  }
}

function unary<O extends DescMessage>(method: DescMethod & { output: O }, init: Record<string, unknown>,
  signed: boolean): Promise<{ error: ServiceError | null; answer: Buffer | null }> {
  const body = encode(method.input, init)
  return new Promise((resolve) => clientFor().makeUnaryRequest(pathOf(method), identity, identity, body,
    signed ? l2Metadata(signerOf(fuzzer), method, body) : new Metadata(), {},
    (error, answer) => resolve({ error, answer: answer ?? null })))
}

/** The server answers after the fuzz: health, a public call (after any rate limit's wait), a stream, a session. */
async function alive(t: Test): Promise<void> {
  t.equal((await fetch(`${server.base}/health`)).status, 200, 'GET /health: 200')
  const Health = (loadPackageDefinition(loadSync(healthProtoPath, { enums: String })) as any).grpc.health.v1.Health
  const health = new Health(target, channelCredentials.createInsecure())
  const check = await new Promise<any>((resolve) =>
    health.Check({ service: '' }, (e: unknown, a: unknown) => resolve(e ?? a)))
  health.close()
  t.equal(check.status, 'SERVING', 'grpc.health.v1: SERVING')
  const listMarkets = MarketDataService.method.listMarkets
  let listed = await unary(listMarkets, { page: { limit: 1 } }, false)
  for (let i = 0; i < 3 && listed.error?.code === Status.RESOURCE_EXHAUSTED; i++) {
    await new Promise((resolve) => setTimeout(resolve, 2_000)) // the fuzz may have spent this address's budget
    listed = await unary(listMarkets, { page: { limit: 1 } }, false)
  }
  t.equal(listed.error, null, 'ListMarkets answered')
  const book = clientFor().makeServerStreamRequest(pathOf(StreamService.method.bookStream), identity, identity,
    encode(StreamService.method.bookStream.input, { tokenIds: [TOKENS[0]] }), new Metadata(), {})
  book.on('error', () => undefined)
  const snapshot = await new Promise<Buffer | null>((resolve) => {
    book.once('data', resolve)
    setTimeout(() => resolve(null), ANSWER_MS_MAX)
  })
  book.cancel()
  t.equal(snapshot === null ? null : fromBinary(BookStreamResponseSchema, snapshot).update.case, 'snapshot',
    'a book stream sends its snapshot')
  const session = clientFor().makeBidiStreamRequest(pathOf(OrderEntryService.method.session), identity, identity,
    l2Metadata(signerOf(fuzzer), OrderEntryService.method.session, new Uint8Array(0)), {})
  session.on('error', () => undefined)
  session.write(encode(SessionRequestSchema, { requestId: 'alive', action: { case: 'ping', value: {} } }))
  const pong = await new Promise<Buffer | null>((resolve) => {
    session.once('data', resolve)
    setTimeout(() => resolve(null), ANSWER_MS_MAX)
  })
  session.cancel()
  t.equal(pong === null ? null : fromBinary(SessionResponseSchema, pong).result.case, 'pong',
    'a session answers a ping')
}

t.test(`gRPC input: answered in time, catalogue statuses, nothing changed (seed ${SEED})`, async (t) => {
  t.comment(`replay: FUZZ_SEED=${SEED} npx tap test/fuzz/grpc-live.test.ts; FUZZ_SECONDS=${SECONDS}`)
  const stateHash = (): Promise<unknown> => server.predex.context.host.query({ kind: 'stateHash' })
  const before = await stateHash()
  const tally: Tally = { problems: [], sent: 0, codes: new Map(), transport: new Map(), accepted: [] }
  const generated = casesOf(SEED)
  // The first batch builds and warms the generators (seconds on a loaded machine): not part of the time box.
  const first = generated.next()
  const deadlineMs = performance.now() + SECONDS * 1000
  let cases = 0
  for (const c of prepend(first.value as FuzzCase, generated)) {
    if (performance.now() > deadlineMs || tally.problems.length > 5) break
    cases++
    try {
      await runCase(c, tally)
    } catch (error) {
      tally.problems.push(`${describe(c)}: ${(error as Error).stack ?? String(error)}`)
    }
  }
  t.same(tally.problems, [], `${cases} cases, ${tally.sent} calls, streams and frames: answered in time, ` +
    'each refusal with its catalogue status')
  t.comment(`refusals: ${[...tally.codes].map(([code, n]) => `${code} ${n}`).join(', ')}`)
  t.comment(`answered by grpc-js itself: ${[...tally.transport].map(([what, n]) => `${what} (${n})`).join('; ')}`)
  t.ok(cases >= 30, `enough cases in the time box (${cases})`)
  await alive(t)
  const accepted = tally.accepted.slice(0, 3).join('; ') || 'none'
  t.same(await stateHash(), before, `the state hash and seq are unchanged (writes accepted: ${accepted})`)
})
