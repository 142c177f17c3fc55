/**
 * What a not-enough-balance refusal says to do (src/service/trading/refusal-fix.ts): from the engine's
 * figures, which of balance and allowance is short, by how much, and the endpoint that mends it.
 */
import t from 'tap'
import { withFix } from '../../../../src/service/trading/refusal-fix.js'

const CODE = 'INVALID_ORDER_NOT_ENOUGH_BALANCE'
const USDC = 1_000_000

function usdc(balance: number, allowance: number, held: number, required: number): Record<string, unknown> {
  return { asset: 'USDC', requiredMicros: required, availableMicros: Math.min(balance, allowance) - held,
    balanceMicros: balance, allowanceMicros: allowance, heldMicros: held }
}

t.test('USDC: the allowance short names the approve and the allowance that would do', async (t) => {
  const fixed = withFix(CODE, usdc(100 * USDC, 2 * USDC, 1 * USDC, 5 * USDC))
  t.match(fixed, { shortOf: 'allowance', missingMicros: 4 * USDC, requiredMicros: 5 * USDC,
    fix: /POST \/relay \(action "approve".*at least 6000000 micro-USDC/ })
})

t.test('USDC: the balance short names the faucet; both short name both', async (t) => {
  t.match(withFix(CODE, usdc(3 * USDC, 50 * USDC, 0, 5 * USDC)), { shortOf: 'balance', missingMicros: 2 * USDC,
    fix: /POST \/faucet/ })
  t.match(withFix(CODE, usdc(3 * USDC, 1 * USDC, 0, 5 * USDC)), { shortOf: 'balance and allowance',
    missingMicros: 4 * USDC, fix: /POST \/faucet.*then approve/ })
})

t.test('shares: not approved names the approve; approved but short says what holds them', async (t) => {
  const shares = { asset: 'token-yes', requiredMicros: 10 * USDC, availableMicros: 0, balanceMicros: 20 * USDC,
    heldMicros: 0, approved: false }
  t.match(withFix(CODE, shares), { shortOf: 'approval', missingMicros: 10 * USDC, fix: /POST \/relay/ })
  t.match(withFix(CODE, { ...shares, approved: true, availableMicros: 4 * USDC, heldMicros: 16 * USDC }),
    { shortOf: 'balance', missingMicros: 6 * USDC, fix: /cancel an order that holds them/ })
})

t.test('other refusals, and a context without the figures, are left as they are', async (t) => {
  const context = { tickSizeMicros: 10_000 }
  t.equal(withFix('INVALID_ORDER_MIN_TICK_SIZE', context), context)
  t.equal(withFix(CODE, null), null)
  const partial = { asset: 'USDC', requiredMicros: 5 }
  t.equal(withFix(CODE, partial), partial, 'no guess from half the figures')
})
