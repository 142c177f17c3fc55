/**
 * An API error as the page shows it: the server's message, its catalogue code, the context that
 * says what to change (a field, a limit, when to retry), and the fix: the server's own when it
 * sends one (a refusal for lack of funds names what is short and the call that mends it), else
 * the page's for the errors a trader on this page can meet. Everything else shows its message,
 * which names the problem already.
 */
import { ApiError } from './api.js'

const FIXES: Readonly<Record<string, string>> = {
  INVALID_ORDER_NOT_ENOUGH_BALANCE: 'Get test USDC from the faucet and approve the exchange (Wallet), '
    + 'or lower the size or price.',
  INVALID_ORDER_MIN_TICK_SIZE: 'Use a price on the market\'s tick grid.',
  INVALID_ORDER_MIN_SIZE: 'Raise the size to the market\'s minimum.',
  INVALID_ORDER_PRICE: 'Use a price between one tick and one minus a tick.',
  FAUCET_COOLDOWN: 'The faucet credits each address once per cooldown: wait, then try again.',
  RATE_LIMITED: 'Too many requests: wait a moment and try again.',
  AUTH_UNKNOWN_KEY: 'The API key is gone: make new credentials in the wallet.',
  MARKET_NOT_READY: 'This market does not take orders yet.',
  MARKET_CLOSED: 'This market is closed to new orders.',
  INVALID_POST_ONLY_ORDER: 'A post-only order would have traded at once: move its price away from the other side.',
  FOK_ORDER_NOT_FILLED: 'Not enough liquidity at that price: raise the worst price or lower the amount.',
}

export function describe(error: unknown): { message: string; code: string | null; fix: string | null;
  context: string[] } {
  if (!(error instanceof ApiError)) {
    return { message: error instanceof Error ? error.message : String(error), code: null, fix: null, context: [] }
  }
  const { error: message, code, fix: serverFix, ...rest } = error.body
  const context = Object.entries(rest).map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
  const retry = typeof rest.retryAfterSeconds === 'number' ? ` (retry after ${rest.retryAfterSeconds} s)` : ''
  // The server's own fix first (src/service/trading/refusal-fix.ts: which of balance and allowance is short, by how much).
  const fix = typeof serverFix === 'string' ? serverFix : FIXES[code] === undefined ? null : FIXES[code] + retry
  return { message, code, fix, context }
}

export function ErrorNotice({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null
  const { message, code, fix, context } = describe(error)
  return (
    <div class="error" role="alert" data-testid="error">
      <strong>{message}</strong>
      {code !== null && <span class="code"> {code}</span>}
      {context.length > 0 && <div class="context">{context.join(' · ')}</div>}
      {fix !== null && <div class="fix">{fix}</div>}
    </div>
  )
}
