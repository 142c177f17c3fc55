/**
 * Administration without any face: a market's terms are refused with the admin field named and
 * nothing journaled; an update applies its changes in order and names what was applied when the
 * engine refuses one; resolution and the exchange's counts.
 */
import t from 'tap'
import type { MarketRecord } from '../../../../src/engine/event.js'
import { PredexError } from '../../../../src/errors.js'
import { createMarket, exchangeCounts, resolveMarket, updateMarket, type NewMarket } from '../../../../src/service/admin/admin.js'
import { USDC, fakeWorld, type FakeWorld } from '../fake-context.js'

const MARKET: NewMarket = { question: 'Will it work?', slug: null, description: '', tickSizeMicros: 10_000, minOrderSizeMicros: 5 * USDC,
  feeRateBps: 0, negRisk: false, endDateMs: 0, status: 'Active' }

async function refusal(world: FakeWorld, what: () => Promise<MarketRecord>): Promise<{ error: PredexError; journaled: number }> {
  const before = world.commands.length
  const error = await what().then(() => null, (e: unknown) => e)
  if (!(error instanceof PredexError)) throw new Error(`expected a PredexError, got ${String(error)}`)
  return { error, journaled: world.commands.length - before }
}

t.test('create: the slug comes from the question; bad terms name the admin field and journal nothing', async (t) => {
  const world = fakeWorld()
  const market = await createMarket(world.context, { ...MARKET, question: '  Will it RAIN, today?  ' })
  t.match(market, { slug: 'will-it-rain-today', tickSizeMicros: 10_000, status: 'Active' })
  const cases: [Partial<NewMarket>, Record<string, unknown>][] = [
    [{ slug: 'Not A Slug' }, { field: 'slug' }],
    [{ tickSizeMicros: 20_000 }, { field: 'tick_size', allowed: ['0.1', '0.01', '0.005', '0.0025', '0.001', '0.0001'] }],
    [{ minOrderSizeMicros: 1_000 }, { field: 'min_order_size' }],
    [{ feeRateBps: 1_001 }, { field: 'fee_rate_bps', max: 1_000 }],
  ]
  for (const [patch, context] of cases) {
    const { error, journaled } = await refusal(world, () => createMarket(world.context, { ...MARKET, ...patch, question: 'Other?' }))
    t.same([error.code, error.context, journaled], ['INVALID_PARAMETER', context, 0], JSON.stringify(patch))
  }
  const taken = await refusal(world, () => createMarket(world.context, { ...MARKET, slug: 'will-it-rain-today' }))
  t.same([taken.error.code, taken.error.context, taken.journaled], ['MARKET_EXISTS', { field: 'slug' }, 1], 'the engine decides uniqueness')
})

t.test('update: tick, fee, then status; a refusal names the field and what was applied', async (t) => {
  const world = fakeWorld()
  const { marketId } = await createMarket(world.context, MARKET)
  t.match(await updateMarket(world.context, marketId, { tickSizeMicros: 1_000, feeRateBps: 25 }), { tickSizeMicros: 1_000, feeRateBps: 25 })
  const partly = await refusal(world, () => updateMarket(world.context, marketId, { feeRateBps: 30, status: 'Upcoming' }))
  t.same([partly.error.code, partly.error.context], ['MARKET_STATUS_TRANSITION', { from: 'Active', to: 'Upcoming', field: 'status',
    applied: ['fee_rate_bps'] }])
  t.equal(world.context.read.markets.get(marketId)!.feeRateBps, 30, 'the fee rate before it stays applied')
  const bad = await refusal(world, () => updateMarket(world.context, marketId, { feeRateBps: 40, tickSizeMicros: 300 }))
  t.same([bad.error.code, bad.error.context, bad.journaled], ['INVALID_PARAMETER',
    { field: 'tick_size', allowed: ['0.1', '0.01', '0.005', '0.0025', '0.001', '0.0001'] }, 0], 'checked before anything is applied')
  const empty = await refusal(world, () => updateMarket(world.context, marketId, {}))
  t.same([empty.error.code, empty.error.context], ['INVALID_PARAMETER', { field: 'body' }])
})

t.test('resolve, and the counts', async (t) => {
  const world = fakeWorld()
  const a = await createMarket(world.context, MARKET)
  await createMarket(world.context, { ...MARKET, question: 'Later?', status: 'Upcoming' })
  t.match(await resolveMarket(world.context, a.marketId, 'No'), { status: 'Resolved', winningOutcome: 'No' })
  const twice = await refusal(world, () => resolveMarket(world.context, a.marketId, 'Yes'))
  t.equal(twice.error.code, 'MARKET_STATUS_TRANSITION')
  t.match(await exchangeCounts(world.context), { seq: world.engine.seq, markets: 2, openOrders: 0, volumeMicros: 0, apiKeys: 0,
    marketsByStatus: { Upcoming: 1, Active: 0, Paused: 0, Closed: 0, Resolving: 0, Resolved: 1 } })
})
