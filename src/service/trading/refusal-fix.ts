/**
 * What to do about a refusal, added to its context where the engine's figures say it: the engine
 * states amounts, the edge names the endpoint that mends them. Today the one refusal every new
 * wallet meets, INVALID_ORDER_NOT_ENOUGH_BALANCE: a new address has no allowance, as on a chain,
 * and "not enough balance / allowance" alone did not say that an approve through `POST /relay` was
 * the fix. The message stays Polymarket's own (clients match on it); the context gains `shortOf`
 * (what is missing), `missingMicros` (how much the order lacks) and `fix` (a sentence).
 */
import { Code } from '../../engine/codes.js'

type Context = Readonly<Record<string, unknown>>

const APPROVE = 'approve the exchange through POST /relay (action "approve", docs/testnet.md; PredexClient.approve())'
const FUND = 'fund the wallet (on the test network: POST /faucet)'

/** `context` with `shortOf`, `missingMicros` and `fix` when `code` is a refusal this knows how to mend. */
export function withFix(code: string, context: Context | null): Context | null {
  if (code !== Code.INVALID_ORDER_NOT_ENOUGH_BALANCE || context === null) return context
  const fix = context['asset'] === 'USDC' ? usdcFix(context) : sharesFix(context)
  return fix === null ? context : { ...context, ...fix }
}

function usdcFix(context: Context): Context | null {
  const [required, available, balance, allowance, held] = micros(context,
    ['requiredMicros', 'availableMicros', 'balanceMicros', 'allowanceMicros', 'heldMicros'])
  if (required === null || available === null || balance === null || allowance === null || held === null) return null
  const missingMicros = required - available
  const balanceShort = balance - held < required
  const allowanceShort = allowance - held < required
  if (allowanceShort && !balanceShort) {
    return { shortOf: 'allowance', missingMicros,
      fix: `${APPROVE} for at least ${allowance + missingMicros} micro-USDC` }
  }
  if (balanceShort && !allowanceShort) return { shortOf: 'balance', missingMicros, fix: FUND }
  return { shortOf: 'balance and allowance', missingMicros, fix: `${FUND}, then ${APPROVE}` }
}

function sharesFix(context: Context): Context | null {
  const [required, available] = micros(context, ['requiredMicros', 'availableMicros'])
  if (required === null || available === null) return null
  const missingMicros = required - available
  if (context['approved'] === false) return { shortOf: 'approval', missingMicros, fix: `${APPROVE}: a non-zero `
    + 'allowance also approves the outcome tokens' }
  return { shortOf: 'balance', missingMicros, fix: 'the order sells more shares than the wallet holds free of its '
    + 'other orders: buy or split (POST /relay action "split") more, or cancel an order that holds them' }
}

function micros(context: Context, keys: readonly string[]): (number | null)[] {
  return keys.map((key) => {
    const value = context[key]
    return typeof value === 'number' && Number.isSafeInteger(value) ? value : null
  })
}
