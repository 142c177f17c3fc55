/**
 * The user stream (StreamService.UserStream, drop copy) against a real server over loopback: a
 * trader's order updates and fills arrive numbered 1, 2, 3... in the engine's order, each order
 * as that update left it, ending as REST's /data/order says; a client that reconnects with its
 * last number gets exactly what it missed, then the live updates; a number from another epoch,
 * from the future or older than the retention gets a ResumeGap and a snapshot of the open
 * orders; a bad signature is UNAUTHENTICATED, and revoking the key ends an open stream.
 */
import t from 'tap'
import { status } from '@grpc/grpc-js'
import { GrpcTransport, type GrpcSigner } from '../../src/client/grpc/transport.js'
import { StreamService, type UserStreamResponse } from '../../src/gen/predex/v1/streams_pb.js'
import { USER_FEED_RETAINED_PER_WALLET } from '../../src/limits.js'
import type { OrderInput } from '../../src/engine/command.js'
import { l2, startServer, USDC, type Trader } from '../support/rest-harness.js'
import { cancel, place, Reader, signerOf, split } from './streams-support.js'

const server = await startServer()
t.teardown(() => server.stop())
const grpc = new GrpcTransport(`127.0.0.1:${server.predex.grpcPort}`)
t.teardown(() => grpc.close())

function subscribe(signer: GrpcSigner | null, fromSeq = 0n, epoch = ''): Reader<UserStreamResponse> {
  return new Reader(grpc.serverStream(StreamService.method.userStream, { fromSeq, epoch }, signer))
}

/** The first message of a stream from 0: the snapshot. */
async function snapshotOf(reader: Reader<UserStreamResponse>): Promise<UserStreamResponse> {
  const message = await reader.next()
  if (message.update.case !== 'snapshot') throw new Error(`expected a snapshot, got ${message.update.case}`)
  return message
}

/** A compact view of a message: what it is about and its state. */
function summary(message: UserStreamResponse): string {
  const update = message.update
  if (update.case === 'order') {
    const o = update.value
    return `${message.seq} order ${o.id.slice(0, 10)} ${o.status} ${o.sizeMatched}/${o.originalSize} ` +
      `trades ${o.associateTrades.length}`
  }
  if (update.case === 'trade') return `${message.seq} trade ${update.value.id} ${update.value.traderSide}`
  return `${message.seq} ${update.case}`
}

t.test('order updates and fills, numbered 1, 2, 3..., each as its update left it, ending as REST says',
  async (t) => {
    const market = await server.createMarket()
    const [alice, bob] = [await server.trader(1_000 * USDC), await server.trader(1_000 * USDC)]
    await split(server, bob, market, 100)
    const [aliceStream, bobStream] = [subscribe(signerOf(alice)), subscribe(signerOf(bob))]
    const first = await snapshotOf(aliceStream)
    t.equal(first.seq, 0n, 'a wallet without updates is at 0')
    t.ok(first.epoch.length > 0, 'the epoch is given')
    t.equal((await snapshotOf(bobStream)).seq, 0n)
    const o1 = await place(server, alice, market, { side: 'BUY', price: '0.40', size: '10' })
    const o2 = await place(server, alice, market, { side: 'BUY', price: '0.41', size: '10' })
    await place(server, bob, market, { side: 'SELL', price: '0.41', size: '5' })
    const sweep = await place(server, bob, market, { side: 'SELL', price: '0.40', size: '15' })
    const o3 = await place(server, alice, market, { side: 'BUY', price: '0.30', size: '5' })
    await cancel(server, alice, o3)
    const messages = await aliceStream.drain()
    t.same(messages.map((m) => m.seq), messages.map((_, i) => BigInt(i + 1)), 'numbered 1, 2, 3... without a gap')
    t.ok(messages.every((m) => m.epoch === first.epoch), 'in one epoch')
    const engineSeqs = messages.map((m) => Number(m.engineSeq))
    t.same(engineSeqs, [...engineSeqs].sort((a, b) => a - b), 'in the engine\'s order')
    const orders = messages.filter((m) => m.update.case === 'order').map((m) => m.update.value as any)
    const states = (id: string) => orders.filter((o) => o.id === id).map((o) => `${o.status} ${o.sizeMatched}`)
    t.same(states(o1), ['LIVE 0', 'MATCHED 10'], 'o1: placed, then filled')
    t.same(states(o2), ['LIVE 0', 'LIVE 5', 'MATCHED 10'], 'o2: placed, partly filled, filled')
    t.same(states(o3), ['LIVE 0', 'CANCELED 0'], 'o3: placed, cancelled')
    for (const id of [o1, o2, o3]) {
      const last = orders.filter((o) => o.id === id).at(-1)
      const rest = (await l2(server, alice, 'GET', `/data/order/${id}`)).body
      t.same({ status: last.status, size_matched: last.sizeMatched, size_remaining: last.sizeRemaining,
        original_size: last.originalSize, price: last.price, associate_trades: last.associateTrades,
        owner: last.owner, maker_address: last.makerAddress, market: last.market, asset_id: last.assetId },
      { status: rest.status, size_matched: rest.size_matched, size_remaining: rest.size_remaining,
        original_size: rest.original_size, price: rest.price, associate_trades: rest.associate_trades,
        owner: rest.owner, maker_address: rest.maker_address, market: rest.market, asset_id: rest.asset_id },
      'the last update of the order is REST\'s /data/order')
    }
    const trades = messages.filter((m) => m.update.case === 'trade').map((m) => m.update.value as any)
    const restTrades = (await l2(server, alice, 'GET', '/data/trades')).body
    const restIds = (Array.isArray(restTrades) ? restTrades : restTrades.data).map((trade: any) => trade.id).sort()
    t.same(trades.map((trade) => trade.id).sort(), restIds, 'every trade of the wallet, once')
    t.ok(trades.every((trade) => trade.traderSide === 'MAKER'), 'from the wallet\'s side (its orders rested)')
    // The taker's own stream: its placement shows the order before its fills, though the read
    // model already holds it filled by then.
    const bobMessages = (await bobStream.drain()).map(summary)
    const sweepUpdates = bobMessages.filter((line) => line.includes(`order ${sweep.slice(0, 10)}`))
    t.same(sweepUpdates.map((line) => line.split(' ').slice(3).join(' ')),
      ['LIVE 0/15 trades 0', 'MATCHED 15/15 trades 2'], 'the taker order as placed, then as filled')
    for (const reader of [aliceStream, bobStream]) reader.cancel()
  })

t.test('a client that reconnects with its last number gets exactly what it missed, then live updates',
  async (t) => {
    const market = await server.createMarket()
    const [alice, bob] = [await server.trader(1_000 * USDC), await server.trader(1_000 * USDC)]
    await split(server, bob, market, 100)
    const witness = subscribe(signerOf(alice)) // stays connected throughout
    await snapshotOf(witness)
    const client = subscribe(signerOf(alice))
    const { epoch } = await snapshotOf(client)
    await place(server, alice, market, { side: 'BUY', price: '0.40', size: '10' })
    const seen = await client.drain()
    t.equal(seen.length, 1, 'the placement')
    client.cancel() // the client goes away
    const o2 = await place(server, alice, market, { side: 'BUY', price: '0.45', size: '10' })
    await place(server, bob, market, { side: 'SELL', price: '0.45', size: '5' })
    await cancel(server, alice, o2)
    const lastSeen = seen.at(-1)!.seq
    const resumed = subscribe(signerOf(alice), lastSeen, epoch)
    const replay = await resumed.drain()
    const witnessed = await witness.drain()
    t.same(replay.map(summary), witnessed.slice(1).map(summary), 'the missed updates, as they were sent live')
    t.equal(replay[0]?.seq, lastSeen + 1n, 'from the next number')
    await place(server, alice, market, { side: 'BUY', price: '0.20', size: '5' })
    const [live, witnessLive] = [await resumed.drain(), await witness.drain()]
    t.same(live.map(summary), witnessLive.map(summary), 'then the live updates, without a gap or a repeat')
    t.equal(live[0]?.seq, replay.at(-1)!.seq + 1n, 'numbered on from the replay')
    const upToDate = subscribe(signerOf(alice), live.at(-1)!.seq, epoch)
    t.same(await upToDate.drain(), [], 'nothing to replay for a client that missed nothing')
    for (const reader of [witness, resumed, upToDate]) reader.cancel()
  })

t.test('another epoch, a number from the future or one no longer retained: a ResumeGap, then a snapshot',
  async (t) => {
    const market = await server.createMarket()
    const alice = await server.trader(1_000 * USDC)
    const open = await place(server, alice, market, { side: 'BUY', price: '0.40', size: '10' })
    const probe = subscribe(signerOf(alice))
    const { epoch, seq } = await snapshotOf(probe)
    probe.cancel()
    t.equal(seq, 1n, 'one update so far')
    const cases: [string, bigint, string][] = [
      ['another epoch', 1n, 'an-epoch-of-another-start'],
      ['a number from the future', 5n, epoch],
    ]
    for (const [what, fromSeq, askedEpoch] of cases) {
      const reader = subscribe(signerOf(alice), fromSeq, askedEpoch)
      const gap = await reader.next()
      t.equal(gap.update.case, 'gap', `${what}: a gap first`)
      t.equal(gap.epoch, epoch, `${what}: with the current epoch`)
      const snapshot = await snapshotOf(reader)
      t.equal(snapshot.seq, 1n, `${what}: a snapshot at the current number`)
      t.same(snapshot.update.case === 'snapshot' ? snapshot.update.value.orders.map((o) => o.id) : [], [open],
        `${what}: of the open orders`)
      reader.cancel()
    }
    // More updates than are retained, made straight through the engine (no signatures to wait for).
    const batches = Math.ceil(USER_FEED_RETAINED_PER_WALLET / 10) + 1
    for (let batch = 0; batch < batches; batch++) {
      await server.command({ kind: 'placeOrders', orders: Array.from({ length: 10 },
        () => restingBuy(alice, market.yesTokenId)) })
    }
    const current = 1n + BigInt(batches * 10)
    const old = subscribe(signerOf(alice), 1n, epoch)
    const gap = await old.next()
    t.same(gap.update.case === 'gap' ? gap.update.value.oldestRetainedSeq : null,
      current - BigInt(USER_FEED_RETAINED_PER_WALLET) + 1n, 'the oldest retained number')
    const snapshot = await snapshotOf(old)
    t.equal(snapshot.seq, current, 'then a snapshot at the current number')
    t.equal(snapshot.update.case === 'snapshot' ? snapshot.update.value.orders.length : 0, batches * 10 + 1,
      'with every open order')
    old.cancel()
    const justRetained = subscribe(signerOf(alice), current - BigInt(USER_FEED_RETAINED_PER_WALLET), epoch)
    const replay = await justRetained.drain()
    t.equal(replay.length, USER_FEED_RETAINED_PER_WALLET, 'the oldest retained number can still be resumed after')
    justRetained.cancel()
  })

t.test('authentication: a bad signature or none is UNAUTHENTICATED; a revoked key ends the stream', async (t) => {
  const alice = await server.trader(10 * USDC)
  const forged = { ...signerOf(alice), credentials: { ...alice.credentials, secret: Buffer.alloc(32).toString('base64') } }
  for (const [what, signer] of [['a wrong secret', forged], ['no credentials', null]] as const) {
    const reader = subscribe(signer)
    const error = await reader.failure()
    t.equal(error.grpcCode, status.UNAUTHENTICATED, `${what}: UNAUTHENTICATED`)
    t.match(error.code, /^AUTH_/, `${what}: ${error.code}`)
  }
  const open = subscribe(signerOf(alice))
  await snapshotOf(open)
  const revoked = await l2(server, alice, 'DELETE', '/auth/api-key')
  t.equal(revoked.status, 200, 'the key is revoked')
  const error = await open.failure()
  t.equal(error.grpcCode, status.UNAUTHENTICATED, 'the open stream ends UNAUTHENTICATED')
  t.equal(error.code, 'AUTH_UNKNOWN_KEY')
})

let orderCounter = 0

/** A resting BUY of 5 shares at 0.01, as the engine takes it (the signature was the edge's to check). */
function restingBuy(trader: Trader, tokenId: string): OrderInput {
  orderCounter++
  return {
    orderId: `0xb${orderCounter.toString(16).padStart(63, '0')}`, owner: trader.credentials.apiKey,
    maker: trader.address, signer: trader.address, tokenId, side: 'BUY', makerAmountMicros: 50_000,
    takerAmountMicros: 5 * USDC, expirationSec: 0, feeRateBps: 0, timeInForce: 'GTC', postOnly: false,
    clientOrderId: '',
  }
}
