/**
 * The cases of the live gRPC fuzz (grpc-live.test.ts): arbitraries of unary calls, bursts, streams,
 * order-entry sessions and raw HTTP/2 streams, built over a live server's ids (its markets, resting
 * orders, keys: GrpcFuzzWorld), so that a garbled request still names things that exist.
 */
import fc from 'fast-check'
import type { DescMethod } from '@bufbuild/protobuf'
import { SERVICES } from '../../src/api/grpc/server.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { SessionRequestSchema, OrderEntryService } from '../../src/gen/predex/v1/order_entry_pb.js'
import { StreamService } from '../../src/gen/predex/v1/streams_pb.js'
import { signLimitOrder, signLimitOrderV2 } from '../../src/client/orders.js'
import { termsOf, type Trader } from '../support/rest-harness.js'
import { requestOf, type OrderRequestInit } from '../grpc/order-entry-support.js'
import { bytesArb, type Pools } from './proto-arbitrary.js'

/** What the cases name: the live server's markets, the maker's resting orders, the keys. */
export interface GrpcFuzzWorld {
  readonly markets: readonly MarketRecord[]
  readonly makerOrders: readonly string[]
  readonly tokens: readonly string[]
  /** The key whose calls are signed right (it has no funds, so nothing it sends can trade): never blocked. */
  readonly fuzzer: Trader
  /** A key presented with flawed signatures, timestamps, passphrases. */
  readonly victim: Trader
  readonly pools: Pools
}

export const UNARY = SERVICES.flatMap((service) => service.methods).filter((m) => m.methodKind === 'unary')
export const pathOf = (method: DescMethod): string => `/${method.parent.typeName}/${method.name}`
export const UNKNOWN_PATHS = ['/predex.v1.TradingService/Nothing', '/predex.v2.TradingService/PlaceOrder', '/', '/x/y/z',
  '/predex.v1.TradingService/', '/grpc.health.v1.Health/Nothing']
export type Auth =
  | { readonly kind: 'none' }
  /** The fuzzer's key, signed right over the exact bytes: the call gets past the gate to its handler. */
  | { readonly kind: 'signed' }
  | { readonly kind: 'flawed'; readonly flaw: 'signature' | 'timestamp' | 'passphrase' | 'address' | 'body' }
  | { readonly kind: 'garbage'; readonly headers: readonly (readonly [string, string])[] }
/** No deadline, one already passed, one of now (0 left), or a few milliseconds: ends mid-call. */
export type Deadline = { readonly kind: 'none' } | { readonly kind: 'in'; readonly ms: number }
export interface UnaryCall {
  /** The method, or null for an unknown path. */
  readonly method: DescMethod | null
  readonly path: string
  readonly body: Uint8Array
  readonly auth: Auth
  readonly deadline: Deadline
  /** Cancelled by the client this many ms after it is sent (null: not). */
  readonly cancelAfterMs: number | null
}
export const STREAMS = [StreamService.method.bookStream, StreamService.method.userStream]
export type Ending =
  | { readonly kind: 'close' | 'halfClose' | 'cancel' | 'cancelNow' }
  | { readonly kind: 'deadline'; readonly ms: number }

export type FuzzCase =
  | { readonly kind: 'unary'; readonly call: UnaryCall }
  | { readonly kind: 'burst'; readonly calls: readonly UnaryCall[] }
  | { readonly kind: 'stream'; readonly method: DescMethod; readonly body: Uint8Array; readonly auth: Auth;
    readonly deadline: Deadline; readonly cancelNow: boolean }
  | { readonly kind: 'session'; readonly auth: Auth; readonly frames: readonly Uint8Array[]; readonly ending: Ending }
  | { readonly kind: 'raw'; readonly path: string; readonly headers: Readonly<Record<string, string>>;
    readonly chunks: readonly Uint8Array[]; readonly end: 'end' | 'reset' | 'destroy' }

/** The cases of a seed, generated a batch at a time (generating them all first would eat the time box). */
export function grpcFuzzCases(world: GrpcFuzzWorld): (seed: number) => Generator<FuzzCase> {
  const { markets, makerOrders, tokens, fuzzer, victim, pools } = world
  const terms = termsOf(markets[0]!)
  const v2 = signLimitOrderV2(fuzzer.wallet, terms, { tokenId: tokens[1]!, side: 'BUY', price: '0.45', size: '3' })
  const VALID_ORDERS: OrderRequestInit[] = [
    requestOf(signLimitOrder(fuzzer.wallet, terms, { tokenId: tokens[0]!, side: 'BUY', price: '0.45', size: '10' })),
    { ...requestOf(signLimitOrder(fuzzer.wallet, terms, { tokenId: tokens[0]!, side: 'SELL', price: '0.35', size: '5' }),
      { orderType: 3, clientOrderId: 'fok-1' }), orderGroupId: 'fuzz-group' },
    { order: { salt: v2.order.salt, maker: v2.order.maker, signer: v2.order.signer, tokenId: v2.order.tokenId,
      makerAmount: v2.order.makerAmount, takerAmount: v2.order.takerAmount, expiration: v2.expiration,
      side: v2.order.side, signatureType: v2.order.signatureType, signature: v2.signature, timestamp: v2.order.timestamp,
      metadata: v2.order.metadata, builder: v2.order.builder }, clientOrderId: 'v2-1' },
  ]
  const market = { market: markets[0]!.conditionId, assetId: tokens[0] }
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
    listTrades: { ...market, ...page }, getBalanceAllowance: { assetType: 2, tokenId: tokens[0] },
    getWalletStatus: { address: fuzzer.address }, listMarkets: page, getMarket: { market: markets[0]!.marketId },
    getBooks: { tokenIds: tokens }, getPrice: { tokenId: tokens[0], side: 1 },
    getCandles: { symbol: tokens[0], interval: 3, from: BigInt(Math.floor(Date.now() / 1000) - 86_400) },
    bookStream: { tokenIds: tokens }, userStream: { fromSeq: 0n, epoch: '' },
  }
  const BY_TOKEN = ['getBook', 'getUnifiedBook', 'getMidpoint', 'getSpread', 'getLastTradePrice', 'getTickSize',
    'getFeeRate']
  for (const name of BY_TOKEN) {
    (BASES as Record<string, unknown>)[name] = { tokenId: tokens[0] }
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

  const deadline: fc.Arbitrary<Deadline> = fc.oneof(
    { weight: 8, arbitrary: fc.constant({ kind: 'none' as const }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('in' as const),
      ms: fc.oneof(fc.constantFrom(-1_000, -1, 0), fc.integer({ min: 1, max: 30 })) }) })

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

  function* cases(seed: number): Generator<FuzzCase> {
    // Each batch its own seed, mixed so that the batches of two nearby seeds differ.
    const mixed = Math.imul(seed ^ 0x5bd1e995, 0x27d4eb2f)
    for (let batch = 0; ; batch++) yield* fc.sample(fuzzCase, { seed: mixed + batch, numRuns: 20 })
  }
  return cases
}
