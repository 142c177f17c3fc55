/**
 * A living demo (issue 15): the demo account puts back the quotes users take, so a new user always
 * finds a two-sided book (src/service/demo-quoter.ts). Over loopback on a real server made with the
 * demo: the best Yes ask taken, one pass of the quoter places it again; a pass with nothing
 * missing submits nothing (the journal does not move); when the demo account's shares run out, a
 * pass splits more and the next one quotes again. The passes are called directly (the server's own
 * timer runs every DEMO_REQUOTE_INTERVAL_MS, 5 s, as well).
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Wallet } from '../../src/client/wallet.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { USDC, placeLimit, startServer, type TestServer } from '../rest-harness.js'

const server = await startServer({ argv: ['--demo'] })
t.teardown(() => server.stop())
const quoter = server.predex.demo!
const read = server.predex.context.read
const demoAddress = new Wallet(readFileSync(join(server.dataDir, 'demo-wallet.key'), 'utf8').trim()).address.toLowerCase()
const market: MarketRecord = read.marketsBySlug.get('demo-coin-lands-heads')!

/** The demo account's live Yes asks on the market: price (cents) -> remaining shares. */
function yesAsks(): Map<number, number> {
  const asks = new Map<number, number>()
  for (const order of read.liveOrdersOfMaker(demoAddress)) {
    if (order.marketId === market.marketId && order.outcome === 'Yes' && order.side === 'SELL') {
      asks.set(order.priceMicros / 10_000, order.remainingMicros / USDC)
    }
  }
  return asks
}

async function engineSeq(s: TestServer): Promise<number> {
  const answer = await s.predex.context.host.query({ kind: 'stateHash' })
  return answer.kind === 'stateHash' ? answer.seq : -1
}

t.test('the demo starts two-sided, and a pass with nothing missing submits nothing', async (t) => {
  t.not(quoter, null, 'a server made with the demo runs the quoter')
  t.same([...yesAsks()].sort(), [[55, 100], [56, 100], [57, 100]], 'Yes asks at 0.55, 0.56, 0.57')
  const seq = await engineSeq(server)
  t.equal(await quoter.requote(), 0, 'every quote is there, No quotes included')
  t.equal(await engineSeq(server), seq, 'nothing journaled')
})

t.test('a taken ask is quoted again by the next pass', async (t) => {
  const taker = await server.trader(1_000 * USDC)
  const bought = await placeLimit(server, taker, market, { side: 'BUY', price: '0.55', size: '100' })
  t.equal(bought.status, 200, JSON.stringify(bought.body))
  t.equal(yesAsks().has(55), false, 'the 0.55 ask is gone')
  t.equal(await quoter.requote(), 1, 'one quote placed')
  t.equal(yesAsks().get(55), 100, 'the 0.55 ask is back, 100 shares')
})

t.test('when its shares run out, the demo splits more and quotes again', async (t) => {
  const taker = await server.trader(5_000 * USDC)
  // The demo account minted 1 000 Yes at start; each round takes its three asks, 300 shares.
  let toppedUp = false
  for (let round = 0; round < 5 && !toppedUp; round++) {
    const bought = await placeLimit(server, taker, market, { side: 'BUY', price: '0.57', size: '300' })
    t.equal(bought.status, 200, JSON.stringify(bought.body))
    const placed = await quoter.requote()
    toppedUp = placed < 3
  }
  t.ok(toppedUp, 'a pass found too few shares for its asks')
  const missing = 3 - yesAsks().size
  t.ok(missing > 0, `${missing} asks missing after that pass`)
  t.equal(await quoter.requote(), missing, 'the next pass places them')
  t.same([...yesAsks().keys()].sort(), [55, 56, 57], 'all three asks are back')
})
