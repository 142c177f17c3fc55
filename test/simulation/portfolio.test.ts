/**
 * The portfolio histories (src/read/portfolio.ts) against the engine itself: a seeded workload
 * (fees, mint and merge matches, splits, merges, resolutions, redemptions, relays) runs through
 * the engine, its events feed a read model, and for every address the history kept as the events
 * came must end at the engine's exact USDC and share balances, and be, milestone by milestone
 * and in its realized P&L, the replay of its trades and ledger records from zero
 * (test/unit/read/reference-portfolio.ts, the replay the read model used before).
 * Reproduce: PORTFOLIO_SEED=<seed> PORTFOLIO_COMMANDS=<n> npx tap test/simulation/portfolio.test.ts
 */
import t from 'tap'
import { Engine } from '../../src/engine/engine.js'
import { accountSummaryOf } from '../../src/engine/view.js'
import { ReadModel } from '../../src/read/read-model.js'
import { referencePortfolioOf } from '../unit/read/reference-portfolio.js'
import { Workload } from './workload.js'

const seed = Number(process.env.PORTFOLIO_SEED ?? 7)
const commands = Number(process.env.PORTFOLIO_COMMANDS ?? 30_000)

t.test(`seed ${seed}: every address's history ends at the engine's balances, and is the replay's`, async (t) => {
  t.comment(`seed ${seed} (reproduce with PORTFOLIO_SEED=${seed} PORTFOLIO_COMMANDS=${commands} npx tap test/simulation/portfolio.test.ts)`)
  const engine = new Engine()
  const read = new ReadModel()
  const workload = new Workload({ seed })
  let feeTrades = 0
  let redemptions = 0
  for (let i = 0; i < commands; i++) {
    const command = workload.next()
    const { result, events } = engine.apply(command)
    workload.observe(command, result, events)
    read.apply(command.seq, events, command.timeMs)
    for (const event of events) {
      if (event.type === 'trade' && event.feeMicros > 0) feeTrades++
      if (event.type === 'ledger' && event.action === 'redeem') redemptions++
    }
  }
  t.ok(feeTrades > 0, `the run has trades with fees (${feeTrades})`)
  t.ok(redemptions > 0, `and redemptions (${redemptions})`)
  const addresses = new Set([...read.tradesByAddress.keys(), ...read.ledgerByAddress.keys()])
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

  // A restart: the stored records loaded first, the markets from the engine after (src/app.ts).
  const loaded = new ReadModel()
  loaded.load(read.orders.values(), read.trades.values(), [...read.ledgerByAddress.values()].flat())
  for (const market of read.markets.values()) loaded.putMarket(market)
  const whole = (model: ReadModel, address: string) => {
    const history = model.portfolios.of(address)
    return JSON.stringify([history?.slice(0, history.length, model.tokenOf.bind(model)), history?.realizedPnlMicros,
      history?.volumeMicros, history?.marketsTraded.size])
  }
  t.same([...addresses].filter((address) => whole(loaded, address) !== whole(read, address)), [],
    'a read model loaded from the records has the same histories')
  const makers = new Set([...read.orders.values()].map((order) => order.maker))
  const open = (model: ReadModel, maker: string) => JSON.stringify(model.liveOrdersOfMaker(maker).map((o) => o.orderId))
  const openByRecords = (maker: string) => JSON.stringify((read.ordersByMaker.get(maker) ?? [])
    .filter((orderId) => read.orders.get(orderId)!.status === 'LIVE'))
  t.same([...makers].filter((maker) => open(read, maker) !== openByRecords(maker) || open(loaded, maker) !== open(read, maker)),
    [], `each wallet's open orders, oldest first, live and loaded (${makers.size} wallets)`)
})

function sorted(record: Readonly<Record<string, number>>): [string, number][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1))
}

t.test(`seed ${seed}: the read model's live orders per API key are exactly its LIVE records, and the engine's`, async (t) => {
  const engine = new Engine()
  const read = new ReadModel()
  const workload = new Workload({ seed })
  for (let i = 0; i < commands; i++) {
    const command = workload.next()
    const { result, events } = engine.apply(command)
    workload.observe(command, result, events)
    read.apply(command.seq, events, command.timeMs)
  }
  const expected = new Map<string, string[]>()
  for (const order of read.orders.values()) {
    if (order.status === 'LIVE') expected.set(order.owner, [...expected.get(order.owner) ?? [], order.orderId])
  }
  t.ok(expected.size > 1, `${expected.size} keys with live orders`)
  const owners = new Set([...read.orders.values()].map((order) => order.owner))
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
