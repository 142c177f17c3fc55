/**
 * The portfolio histories (src/read/portfolio.ts) against the engine itself: a seeded workload
 * (fees, mint and merge matches, splits, merges, resolutions, redemptions, relays) runs through
 * the engine, its events feed a read model, and for every address the history kept as the events
 * came must end at the engine's exact USDC and share balances, and be, milestone by milestone
 * and in its realized P&L, the replay of its trades and ledger records from zero
 * (test/support/reference-portfolio.ts, the replay the read model used before). A second read
 * model keeps its history on disk (the read store, saved every few commands as a server does):
 * every wallet's history, trades, ledger, orders and ticks read from it are the in-memory model's,
 * before and after a restart from the store.
 * Reproduce: PORTFOLIO_SEED=<seed> PORTFOLIO_COMMANDS=<n> npx tap test/simulation/portfolio.test.ts
 */
import t from 'tap'
import { Engine } from '../../src/engine/engine.js'
import { accountSummaryOf } from '../../src/engine/view.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ReadModel } from '../../src/read/read-model.js'
import { ReadStore } from '../../src/read/read-store.js'
import { referencePortfolioOf } from '../support/reference-portfolio.js'
import { Workload } from './workload.js'

const seed = Number(process.env.PORTFOLIO_SEED ?? 7)
const commands = Number(process.env.PORTFOLIO_COMMANDS ?? 30_000)

t.test(`seed ${seed}: every address's history ends at the engine's balances, and is the replay's`, async (t) => {
  t.comment(`seed ${seed} (reproduce with PORTFOLIO_SEED=${seed} PORTFOLIO_COMMANDS=${commands} npx tap test/simulation/portfolio.test.ts)`)
  const engine = new Engine()
  const read = new ReadModel()
  const dataDir = mkdtempSync(join(tmpdir(), 'predex-portfolio-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const store = new ReadStore(dataDir)
  const stored = new ReadModel(store)
  const workload = new Workload({ seed })
  let feeTrades = 0
  let redemptions = 0
  const addresses = new Set<string>()
  const tokens = new Set<string>()
  for (let i = 0; i < commands; i++) {
    const command = workload.next()
    const { result, events } = engine.apply(command)
    workload.observe(command, result, events)
    read.apply(command.seq, events, command.timeMs)
    stored.apply(command.seq, events, command.timeMs)
    // Batches of a few commands, some committed before the next (reads then come from disk), some not.
    if (i % 7 === 0) store.save(stored)
    if (i % 500 === 0) await store.settled()
    for (const event of events) {
      if (event.type === 'trade' && event.feeMicros > 0) feeTrades++
      if (event.type === 'ledger' && event.action === 'redeem') redemptions++
      if (event.type === 'trade') for (const a of [event.takerAddress, event.makerAddress]) addresses.add(a)
      if (event.type === 'trade') tokens.add(event.tokenId).add(event.makerTokenId)
      if (event.type === 'ledger' || event.type === 'allowance') addresses.add(event.address)
    }
  }
  t.ok(feeTrades > 0, `the run has trades with fees (${feeTrades})`)
  t.ok(redemptions > 0, `and redemptions (${redemptions})`)
  t.ok(store.pendingCount > 0, `some of the history is not committed yet (${store.pendingCount} held)`)
  t.same(differencesOf(read, stored, addresses, tokens), [], 'the model on disk reads as the one in memory')
  store.save(stored)
  await store.settled()
  t.equal(store.pendingCount, 0, 'once committed, nothing of the history is held in memory')
  t.ok(addresses.size > 5, `${addresses.size} addresses`)
  let mismatches = 0
  let differences = 0
  const tokenOf = read.tokenOf.bind(read)
  for (const address of addresses) {
    const account = engine.accountsByAddress.get(address)
    const summary = account === undefined ? null : accountSummaryOf(account)
    const reference = referencePortfolioOf(read, address)
    const history = read.portfolios.of(address)
    const milestones = history?.slice(0, history.length, tokenOf) ?? []
    const portfolio = { milestones, usdcMicros: history?.usdcMicros ?? 0, realizedPnlMicros: history?.realizedPnlMicros ?? 0 }
    if (JSON.stringify(portfolio) !== JSON.stringify(reference)) {
      differences++
      const at = milestones.findIndex((m, i) => JSON.stringify(m) !== JSON.stringify(reference.milestones[i]))
      t.fail(`${address}: the history differs from the replay at milestone ${at}: ${JSON.stringify(milestones[at])}, `
        + `replay ${JSON.stringify(reference.milestones[at])}; P&L ${portfolio.realizedPnlMicros}, replay ${reference.realizedPnlMicros}`)
    }
    const last = portfolio.milestones.at(-1)
    const shares = Object.fromEntries((summary?.shares ?? []).filter((s) => s.balanceMicros !== 0).map((s) => [s.tokenId, s.balanceMicros]))
    const replayedUsdc = portfolio.usdcMicros
    if (replayedUsdc !== (summary?.usdcMicros ?? 0) || JSON.stringify(sorted(last?.positions ?? {})) !== JSON.stringify(sorted(shares))) {
      mismatches++
      t.fail(`${address}: replayed ${replayedUsdc} USDC ${JSON.stringify(last?.positions)}, engine ${summary?.usdcMicros} ${JSON.stringify(shares)}`)
    }
  }
  t.equal(mismatches, 0, 'every address matches, to the micro-unit')
  t.equal(differences, 0, `every address's history is the replay's, with its realized P&L (${addresses.size} addresses)`)

  // A restart: the stored state loaded first, the markets from the engine after (src/app.ts).
  await store.close()
  const reopened = new ReadStore(dataDir)
  t.teardown(() => reopened.close())
  const loaded = new ReadModel(reopened)
  t.equal(reopened.loadInto(loaded), read.seq, 'the store has every command')
  for (const market of read.markets.values()) loaded.putMarket(market)
  t.same(differencesOf(read, loaded, addresses, tokens), [], 'restarted from disk, it reads as the one in memory')
  const whole = (model: ReadModel, address: string) => {
    const history = model.portfolios.of(address)
    return JSON.stringify([history?.slice(0, history.length, model.tokenOf.bind(model)), history?.realizedPnlMicros,
      history?.volumeMicros, history?.marketsTraded.size])
  }
  t.same([...addresses].filter((address) => whole(loaded, address) !== whole(read, address)), [],
    'a read model loaded from the records has the same histories')
  const makers = [...addresses].filter((address) => read.count('ordersByMaker', address) > 0)
  const open = (model: ReadModel, maker: string) => JSON.stringify(model.liveOrdersOfMaker(maker).map((o) => o.orderId))
  const openByRecords = (maker: string) => JSON.stringify([...read.items('ordersByMaker', maker)]
    .filter((orderId) => read.order(orderId)!.status === 'LIVE'))
  t.same([...makers].filter((maker) => open(read, maker) !== openByRecords(maker) || open(loaded, maker) !== open(read, maker)),
    [], `each wallet's open orders, oldest first, live and loaded (${makers.length} wallets)`)
})

/** What `b` reads differently from `a`: each address's lists, orders, trades and history, each token's ticks. */
function differencesOf(a: ReadModel, b: ReadModel, addresses: ReadonlySet<string>, tokens: ReadonlySet<string>):
  string[] {
  const differences: string[] = []
  const same = (what: string, x: unknown, y: unknown) => {
    if (JSON.stringify(x) !== JSON.stringify(y)) differences.push(what)
  }
  for (const address of addresses) {
    const orderIds = [...a.items('ordersByMaker', address)]
    same(`${address} orders`, orderIds, [...b.items('ordersByMaker', address)])
    same(`${address} order records`, orderIds.map((id) => a.order(id)), orderIds.map((id) => b.order(id)))
    const tradeIds = [...a.items('tradesByAddress', address)]
    same(`${address} trades`, tradeIds.map((id) => a.trade(id)), [...b.items('tradesByAddress', address)].map((id) => b.trade(id)))
    for (const list of ['ledgerByAddress', 'redemptionsByAddress'] as const) {
      same(`${address} ${list}`, [...a.items(list, address)], [...b.items(list, address)])
    }
    same(`${address} open orders`, a.liveOrdersOfMaker(address), b.liveOrdersOfMaker(address))
    const [x, y] = [a.portfolios.of(address), b.portfolios.of(address)]
    same(`${address} history`, x?.slice(0, x.length, a.tokenOf.bind(a)), y?.slice(0, y.length, b.tokenOf.bind(b)))
    same(`${address} P&L`, [x?.realizedPnlMicros, x?.volumeMicros, x?.usdcMicros, x?.marketsTraded.size],
      [y?.realizedPnlMicros, y?.volumeMicros, y?.usdcMicros, y?.marketsTraded.size])
  }
  for (const token of tokens) {
    same(`${token} ticks`, [...a.ticksOf(token).from(0)], [...b.ticksOf(token).from(0)])
    same(`${token} stats`, a.statsOf(token), b.statsOf(token))
  }
  same('totals', a.totals, b.totals)
  return differences
}

function sorted(record: Readonly<Record<string, number>>): [string, number][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1))
}

t.test(`seed ${seed}: the read model's live orders per API key are exactly its LIVE records, and the engine's`, async (t) => {
  const engine = new Engine()
  const read = new ReadModel()
  const workload = new Workload({ seed })
  const acceptedIds: string[] = []
  for (let i = 0; i < commands; i++) {
    const command = workload.next()
    const { result, events } = engine.apply(command)
    workload.observe(command, result, events)
    read.apply(command.seq, events, command.timeMs)
    for (const event of events) if (event.type === 'orderAccepted') acceptedIds.push(event.orderId)
  }
  const expected = new Map<string, string[]>()
  const owners = new Set<string>()
  for (const orderId of acceptedIds) {
    const order = read.order(orderId)!
    owners.add(order.owner)
    if (order.status === 'LIVE') expected.set(order.owner, [...expected.get(order.owner) ?? [], order.orderId])
  }
  t.ok(expected.size > 1, `${expected.size} keys with live orders`)
  let mismatches = 0
  for (const owner of owners) {
    const live = read.liveOrdersOfOwner(owner).map((order) => order.orderId).sort()
    const want = (expected.get(owner) ?? []).sort()
    const inEngine = want.filter((orderId) => engine.orders.get(orderId) !== undefined)
    if (JSON.stringify(live) !== JSON.stringify(want) || inEngine.length !== want.length) {
      mismatches++
      t.fail(`${owner}: index ${live.length} live orders, records ${want.length}, engine ${inEngine.length}`)
    }
  }
  t.equal(mismatches, 0, `every key's live orders match (${owners.size} keys)`)
})
