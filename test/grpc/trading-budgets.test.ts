/**
 * A use case has one budget whatever the face: a gRPC method draws on the bucket of the REST route
 * of the same use case (src/api/grpc/trading.ts, account.ts), so a trader who spent it over REST
 * is refused over gRPC (RESOURCE_EXHAUSTED, RATE_LIMITED, with the wait in RetryInfo), and the
 * other way round; a use case with its own REST bucket keeps its own over gRPC too. The server's
 * monotonic clock stands still (TestClock), so the counts are exact however slow the machine is.
 */
import t from 'tap'
import { status } from '@grpc/grpc-js'
import { GrpcCallError, GrpcTransport } from '../../src/client/grpc/transport.js'
import { AccountService, AssetType } from '../../src/gen/predex/v1/account_pb.js'
import { TradingService } from '../../src/gen/predex/v1/trading_pb.js'
import { RATE_RULES } from '../../src/limits.js'
import { l2, startServer, USDC } from '../support/rest-harness.js'
import { TestClock } from '../support/clock.js'

const clock = new TestClock()
const server = await startServer({ clock })
const transport = new GrpcTransport(`127.0.0.1:${server.predex.grpcPort}`)
t.teardown(async () => {
  transport.close()
  await server.stop()
})

async function refusalOf(call: Promise<unknown>): Promise<GrpcCallError | null> {
  try {
    await call
    return null
  } catch (error) {
    if (error instanceof GrpcCallError) return error
    throw error
  }
}

t.test('cancel-all spent over REST is spent over gRPC; cancel by market keeps its own budget', async (t) => {
  const trader = await server.trader(10 * USDC)
  const rule = RATE_RULES.cancelAll
  let answered = 0
  for (let i = 0; i < rule.burst; i++) {
    if ((await l2(server, trader, 'DELETE', '/cancel-all')).status === 200) answered++
  }
  t.equal(answered, rule.burst, `${rule.burst} cancel-alls over REST`)
  const refused = await refusalOf(transport.unary(TradingService.method.cancelAll, {}, trader))
  t.ok(refused !== null, 'the next one, over gRPC, is refused')
  t.equal(refused?.grpcCode, status.RESOURCE_EXHAUSTED)
  t.equal(refused?.code, 'RATE_LIMITED')
  t.ok((refused?.retryAfterMs ?? 0) > 0, 'with the wait in RetryInfo')
  const byMarket = await transport.unary(TradingService.method.cancelMarketOrders, {}, trader)
  t.same(byMarket.result?.canceled, [], 'cancel by market: its own bucket (DELETE /cancel-market-orders)')
  t.ok((byMarket.result?.engineSeq ?? 0n) > 0n, 'the cancel command\'s sequence number')
  clock.advance(rule.burstWindowMs)
  t.same((await transport.unary(TradingService.method.cancelAll, {}, trader)).result?.canceled, [],
    'answered again once the budget refilled')
})

t.test('each answer carries its budget as trailers: x-ratelimit-limit, -remaining, -reset; a refusal too', async (t) => {
  const trader = await server.trader(10 * USDC)
  const rule = RATE_RULES.balance
  const request = { assetType: AssetType.COLLATERAL }
  const read = (trailers: { get(key: string): unknown[] }) => ['x-ratelimit-limit', 'x-ratelimit-remaining',
    'x-ratelimit-reset'].map((key) => String(trailers.get(key)[0]))
  const first = await transport.unaryWithTrailers(AccountService.method.getBalanceAllowance, request, trader)
  t.same(read(first.trailers), [String(rule.burst), String(rule.burst - 1), '1'], 'one of the budget spent')
  const second = await transport.unaryWithTrailers(AccountService.method.getBalanceAllowance, request, trader)
  t.same(read(second.trailers)[1], String(rule.burst - 2), 'one fewer each call')
  for (let i = 2; i < rule.burst; i++) await transport.unary(AccountService.method.getBalanceAllowance, request, trader)
  const refused = await refusalOf(transport.unary(AccountService.method.getBalanceAllowance, request, trader))
  t.equal(refused?.code, 'RATE_LIMITED')
  t.same(read(refused!.trailers!), [String(rule.burst), '0', '1'], 'the refusal: none left, the next within a second')
  clock.advance(rule.burstWindowMs)
  const publicCall = await transport.unaryWithTrailers(TradingService.method.getOrder, { orderId: '0x01' }, trader)
    .catch((error: GrpcCallError) => ({ trailers: error.trailers! }))
  t.same(publicCall.trailers.get('x-ratelimit-limit'), [String(RATE_RULES.general.burst)],
    'a method without its own budget reports the general one (a refusal too)')
})

t.test('balance spent over gRPC is spent over REST', async (t) => {
  const trader = await server.trader(10 * USDC)
  const rule = RATE_RULES.balance
  const request = { assetType: AssetType.COLLATERAL }
  for (let i = 0; i < rule.burst; i++) {
    const answer = await transport.unary(AccountService.method.getBalanceAllowance, request, trader)
    if (answer.balanceMicros !== String(10 * USDC)) throw new Error(`balance ${answer.balanceMicros}`)
  }
  const rest = await l2(server, trader, 'GET', '/balance-allowance?asset_type=COLLATERAL')
  t.equal(rest.status, 429, `REST after ${rule.burst} gRPC reads`)
  t.equal(rest.body.code, 'RATE_LIMITED')
  const other = await server.trader()
  t.equal((await transport.unary(AccountService.method.getBalanceAllowance, request, other)).balanceMicros, '0',
    'another key: untouched')
})
