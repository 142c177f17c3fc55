/**
 * The page's portfolio value (src/web/portfolio.ts): USDC plus positions at the last price the
 * history saw for each token, exact, one point per second.
 */
import t from 'tap'
import { portfolioValues } from '../../../src/web/portfolio.js'
import type { Milestone } from '../../../src/api/shapes/user.js'

function milestone(time: string, fields: Partial<Milestone>): Milestone {
  return { time, kind: 'deposit', market_id: null, token_id: null, shares: '0', price: null, usdc_delta: '0',
    usdc_balance: '0', positions: {}, transaction_hash: '0x0', block_number: 1, ...fields }
}

t.test('cash plus positions at their last seen price, one point per second', async (t) => {
  const points = portfolioValues([
    milestone('2026-11-29T10:00:00.000Z', { kind: 'deposit', usdc_balance: '1000' }),
    milestone('2026-11-29T10:00:05.100Z', { kind: 'buy', token_id: 'A', price: '0.35', shares: '10',
      usdc_balance: '996.5', positions: { A: '10' } }),
    milestone('2026-11-29T10:00:05.900Z', { kind: 'buy', token_id: 'A', price: '0.4', shares: '10',
      usdc_balance: '992.5', positions: { A: '20' } }),
    milestone('2026-11-29T10:01:00.000Z', { kind: 'mint', usdc_balance: '982.5', positions: { A: '20', B: '10' } }),
  ])
  t.same(points.map((p) => [p.timeSec, p.valueMicros]), [
    [1795946400, 1_000_000_000n],
    [1795946405, 1_000_500_000n], // the second of the two buys: 992.5 + 20 x 0.4
    [1795946460, 990_500_000n], // B has no price yet: counted as nothing
  ])
})
