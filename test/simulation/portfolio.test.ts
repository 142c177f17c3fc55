/**
 * The portfolio replay (src/read/portfolio.ts) against the engine itself: a seeded workload
 * (fees, mint and merge matches, splits, merges, resolutions, redemptions, relays) runs through
 * the engine, its events feed a read model, and for every address the replay of its trades and
 * ledger records from zero must end at the engine's exact USDC and share balances.
 * Reproduce: PORTFOLIO_SEED=<seed> PORTFOLIO_COMMANDS=<n> npx tap test/simulation/portfolio.test.ts
 */
import t from 'tap'
import { Engine } from '../../src/engine/engine.js'
import { accountSummaryOf } from '../../src/engine/view.js'
import { ReadModel } from '../../src/read/read-model.js'
import { portfolioOf } from '../../src/read/portfolio.js'
import { Workload } from './workload.js'

const seed = Number(process.env.PORTFOLIO_SEED ?? 7)
const commands = Number(process.env.PORTFOLIO_COMMANDS ?? 30_000)

t.test(`seed ${seed}: every address's replayed portfolio ends at the engine's balances`, async (t) => {
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
  for (const address of addresses) {
    const account = engine.accountsByAddress.get(address)
    const summary = account === undefined ? null : accountSummaryOf(account)
    const portfolio = portfolioOf(read, address)
    const last = portfolio.milestones.at(-1)
    const shares = Object.fromEntries((summary?.shares ?? []).filter((s) => s.balanceMicros !== 0).map((s) => [s.tokenId, s.balanceMicros]))
    const replayedUsdc = portfolio.usdcMicros
    if (replayedUsdc !== (summary?.usdcMicros ?? 0) || JSON.stringify(sorted(last?.positions ?? {})) !== JSON.stringify(sorted(shares))) {
      mismatches++
      t.fail(`${address}: replayed ${replayedUsdc} USDC ${JSON.stringify(last?.positions)}, engine ${summary?.usdcMicros} ${JSON.stringify(shares)}`)
    }
  }
  t.equal(mismatches, 0, 'every address matches, to the micro-unit')
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
