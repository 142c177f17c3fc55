/**
 * A demo that lives (src/demo/trader.ts): on a fresh server with the demo, the demo trader
 * takes some liquidity now and then, so the public trades feed fills, candles appear, and the
 * quotes follow the trades (a midpoint leaves its home price), all within a few seconds; never
 * more than DEMO_TRADES_PER_MINUTE_MAX trades a minute. The trades are journaled like any order:
 * restarted on the same data directory with --no-demo, the server recovers the same state (its
 * hash), and nothing trades any more. The trade interval is the shortest allowed here
 * (--demo-trade-interval-ms 100; 4 s by default).
 */
import t from 'tap'
import { DEMO_MARKETS } from '../../src/demo/demo-set.js'
import { DEMO_TRADES_PER_MINUTE_MAX } from '../../src/limits.js'
import { decimalOfMicros } from '../../src/stdx/decimal.js'
import { get, startServer, type TestServer } from '../support/rest-harness.js'

const WAIT_MS = 10_000

const server = await startServer({ argv: ['--demo', '--demo-trade-interval-ms', '100'] })
let restarted: TestServer | null = null
t.teardown(async () => {
  if (restarted !== null) await restarted.stop()
  else await server.stop()
})
const read = server.predex.context.read
const markets = DEMO_MARKETS.map((demo) => ({ demo, market: read.marketsBySlug.get(demo.slug)! }))

/** Polls `check` every 100 ms until it answers a value, or fails after `ms`. */
async function until<T>(check: () => Promise<T | null>, what: string, ms = WAIT_MS): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value !== null) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Every demo market's public trades (newest first), through REST. */
async function tradesFeed(s: TestServer): Promise<any[]> {
  const feeds = await Promise.all(markets.map(({ market }) =>
    get(s, `/compat/markets/live-activity/${market.conditionId}`)))
  for (const feed of feeds) if (feed.status !== 200 || !Array.isArray(feed.body)) throw new Error(JSON.stringify(feed))
  return feeds.flatMap((feed) => feed.body as any[])
}

async function stateHash(s: TestServer): Promise<string> {
  const answer = await s.predex.context.host.query({ kind: 'stateHash' })
  return answer.kind === 'stateHash' ? `${answer.seq} ${answer.stateHash}` : 'none'
}

t.test('the demo trader trades, candles appear and the quotes follow the price', async (t) => {
  t.not(server.predex.demoTrader, null, 'a server with the demo runs the trader')
  const trades = await until(async () => {
    const feed = await tradesFeed(server)
    return feed.length >= 3 ? feed : null
  }, 'three demo trades in the public feed')
  t.ok(trades.length >= 3, `${trades.length} trades in the feed`)
  const moved = await until(async () => {
    for (const { demo, market } of markets) {
      const mid = await get(server, `/midpoint?token_id=${market.yesTokenId}`)
      const home = decimalOfMicros(demo.midCents * 10_000)
      if (mid.status === 200 && mid.body.mid !== null && mid.body.mid !== home) return { demo, mid: mid.body.mid, home }
    }
    return null
  }, 'a demo market whose midpoint left its home price')
  t.pass(`${moved.demo.slug}: midpoint ${moved.mid}, home ${moved.home}`)
  const candles = await Promise.all(markets.map(({ demo }) => get(server, `/ticks/${demo.slug}?interval=1m`)))
  t.ok(candles.some((c) => c.status === 200 && c.body.length > 0), 'candles of a demo market')
})

t.test('bounded: at most DEMO_TRADES_PER_MINUTE_MAX trades in a minute', async (t) => {
  // A tick every 100 ms: the cap is what stops it, some 2 to 4 s after the start.
  const trader = server.predex.demoTrader!
  await until(async () => (trader.trades >= DEMO_TRADES_PER_MINUTE_MAX ? true : null), 'the cap to be reached')
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  t.equal(trader.trades, DEMO_TRADES_PER_MINUTE_MAX, `${DEMO_TRADES_PER_MINUTE_MAX} trades, and none in 10 more ticks`)
})

t.test('journaled: a restart with --no-demo recovers the same state, and nothing trades', async (t) => {
  // The demo first, so that nothing changes between the hash and the stop.
  await server.predex.demoTrader!.stop()
  await server.predex.demo!.stop()
  const hashBefore = await stateHash(server)
  await server.predex.stop() // not server.stop(): that removes the data directory
  restarted = await startServer({ dataDir: server.dataDir, argv: ['--no-demo', '--demo-trade-interval-ms', '100'] })
  t.equal(restarted.predex.demoTrader, null, 'no demo trader with --no-demo')
  t.equal(restarted.predex.demo, null, 'nor the quoter')
  const hash = await stateHash(restarted)
  t.equal(hash, hashBefore, 'the state recovered from the journal is the state the trades made')
  const feed = await tradesFeed(restarted)
  t.ok(feed.length >= 3, `the ${feed.length} demo trades are there after the restart`)
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  t.equal((await tradesFeed(restarted)).length, feed.length, 'no trade in 1 s (10 intervals of the old trader)')
  t.equal(await stateHash(restarted), hash, 'nothing submitted')
})
