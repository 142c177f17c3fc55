/**
 * A living demo (issue 15): the demo account puts back the quotes users take, centred on the last
 * trade, so a new user always finds a two-sided book and the price moves
 * (src/demo/quoter.ts). Over loopback on a real server made with the demo (its trader off,
 * so only this test trades): a pass with nothing missing submits nothing (the journal does not
 * move); the best Yes ask taken, one pass moves every quote to the trade's price; the centre stays
 * within DEMO_DRIFT_CENTS_MAX of the market's home price; when the demo account's shares run out,
 * a pass splits more and the next one quotes again. The passes are called directly (the server's
 * own timer runs every DEMO_REQUOTE_INTERVAL_MS, 5 s, as well).
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Wallet } from '../../src/crypto/wallet.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { DEMO_DRIFT_CENTS_MAX } from '../../src/limits.js'
import { USDC, placeLimit, startServer, type TestServer } from '../support/rest-harness.js'

const server = await startServer({ argv: ['--demo', '--demo-trade-interval-ms', '0'] })
t.teardown(() => server.stop())
const quoter = server.predex.demo!
const read = server.predex.context.read
const demoAddress = new Wallet(readFileSync(join(server.dataDir, 'demo-wallet.key'), 'utf8').trim()).address.toLowerCase()
const market: MarketRecord = read.marketsBySlug.get('demo-coin-lands-heads')!

/** The demo account's live Yes orders of `side` on the market: price (cents) -> remaining shares. */
function yesQuotes(side: 'BUY' | 'SELL'): Map<number, number> {
  const levels = new Map<number, number>()
  for (const order of read.liveOrdersOfMaker(demoAddress)) {
    if (order.marketId === market.marketId && order.outcome === 'Yes' && order.side === side) {
      levels.set(order.priceMicros / 10_000, order.remainingMicros / USDC)
    }
  }
  return levels
}
const yesAsks = (): Map<number, number> => yesQuotes('SELL')

/** How many splits the ledger shows for the demo account (its first one per market, then each top-up). */
const splits = (): number => [...read.items('ledgerByAddress', demoAddress)].filter((r) => r.action === 'split').length

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

t.test('a taken ask moves the quotes: the next pass centres them on the trade', async (t) => {
  const taker = await server.trader(1_000 * USDC)
  const bought = await placeLimit(server, taker, market, { side: 'BUY', price: '0.55', size: '100' })
  t.equal(bought.status, 200, JSON.stringify(bought.body))
  t.equal(yesAsks().has(55), false, 'the 0.55 ask is gone')
  t.equal(await quoter.requote(), 10, 'every quote placed again, around 0.55')
  t.same([...yesAsks()].sort(), [[60, 100], [61, 100], [62, 100]], 'Yes asks at 0.60, 0.61, 0.62')
  t.same([...yesQuotes('BUY').keys()].sort(), [48, 49, 50], 'Yes bids at 0.48, 0.49, 0.50')
  t.equal(read.liveOrdersOfMaker(demoAddress).filter((o) => o.marketId === market.marketId).length, 10,
    'the quotes around 0.50 were cancelled')
  const seq = await engineSeq(server)
  t.equal(await quoter.requote(), 0, 'and the next pass, with nothing traded, submits nothing')
  t.equal(await engineSeq(server), seq)
})

t.test('the centre follows the trades only so far from home; when shares run out, the demo splits more', async (t) => {
  const taker = await server.trader(20_000 * USDC)
  // Each round takes the Yes asks (and what the No bids imply at those prices) at the highest ask:
  // the centre climbs to 0.50 + DEMO_DRIFT_CENTS_MAX and stays, and the 1 000 Yes minted at start run out.
  const splitsBefore = splits()
  let toppedUp = false
  for (let round = 0; round < 12 && !toppedUp; round++) {
    const price = (Math.max(...yesAsks().keys()) / 100).toFixed(2)
    const bought = await placeLimit(server, taker, market, { side: 'BUY', price, size: '300' })
    t.equal(bought.status, 200, JSON.stringify(bought.body))
    await quoter.requote()
    toppedUp = splits() > splitsBefore
  }
  t.ok(toppedUp, 'a pass found too few shares for its asks and split more')
  const centre = 50 + DEMO_DRIFT_CENTS_MAX
  await quoter.requote()
  t.same([...yesAsks().keys()].sort(), [centre + 5, centre + 6, centre + 7],
    `all three asks are back, around the highest centre allowed, ${centre / 100}`)
})
