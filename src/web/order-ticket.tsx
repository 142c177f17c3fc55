/**
 * The order ticket: limit or market, buy or sell, Yes or No; signed in the browser (orders.ts)
 * and sent to POST /order with the wallet's credentials. The answer (resting, matched, or the
 * error with its fix) is shown under it.
 */
import { useState } from 'preact/hooks'
import type { NativeMarket } from '../api/shapes/market.js'
import type { OrderPlacement } from '../api/shapes/placement.js'
import { ErrorNotice } from './error-notice.js'
import { signedOrderBody, type OrderKind } from './orders.js'
import { authed, CHAIN_ID, ensureCredentials, useSession } from './session.js'

export function OrderTicketForm({ market }: { market: NativeMarket }) {
  const { wallet } = useSession()
  const [outcome, setOutcome] = useState<'Yes' | 'No'>('Yes')
  const [side, setSide] = useState<'BUY' | 'SELL'>('BUY')
  const [kind, setKind] = useState<OrderKind>('limit')
  const [price, setPrice] = useState('')
  const [amount, setAmount] = useState('')
  const [postOnly, setPostOnly] = useState(false)
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<OrderPlacement | null>(null)
  const [error, setError] = useState<unknown>(null)
  if (wallet === null) return null

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    setResult(null)
    try {
      const credentials = await ensureCredentials()
      const tokenId = outcome === 'Yes' ? market.yes_token_id : market.no_token_id
      const body = await signedOrderBody(wallet, CHAIN_ID, { market, tokenId, side, kind, price, amount, postOnly },
        credentials.apiKey)
      setResult(await authed('POST /order', 'POST', '/order', body))
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const amountLabel = kind === 'limit' ? 'Shares' : side === 'BUY' ? 'USDC to spend' : 'Shares to sell'
  return (
    <form class="ticket" data-testid="place-order" onSubmit={(e) => void submit(e)} aria-labelledby="ticket-title">
      <h2 id="ticket-title">Place an order</h2>
      <div class="row">
        <label>Outcome <select name="outcome" value={outcome}
          onChange={(e) => setOutcome(e.currentTarget.value as 'Yes' | 'No')}>
          <option>Yes</option><option>No</option></select></label>
        <label>Side <select name="side" value={side} onChange={(e) => setSide(e.currentTarget.value as 'BUY' | 'SELL')}>
          <option value="BUY">Buy</option><option value="SELL">Sell</option></select></label>
        <label>Type <select name="kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as OrderKind)}>
          <option value="limit">Limit (GTC)</option><option value="market">Market (FOK)</option></select></label>
      </div>
      <div class="row">
        <label>{kind === 'limit' ? 'Price' : 'Worst price'} <input name="price" inputMode="decimal" required
          value={price} placeholder={market.tick_size} onInput={(e) => setPrice(e.currentTarget.value)} /></label>
        <label>{amountLabel} <input name="amount" inputMode="decimal" required value={amount}
          placeholder={market.min_order_size} onInput={(e) => setAmount(e.currentTarget.value)} /></label>
        {kind === 'limit' && <label class="check"><input type="checkbox" name="postOnly" checked={postOnly}
          onChange={(e) => setPostOnly(e.currentTarget.checked)} /> Post only</label>}
      </div>
      <button type="submit" disabled={busy}>{busy ? 'Signing…' : `${side === 'BUY' ? 'Buy' : 'Sell'} ${outcome}`}</button>
      <ErrorNotice error={error} />
      {result !== null && (
        <p class="placed" role="status" data-testid="order-result" data-status={result.status}>
          Order {result.status}{result.takingAmount !== '' && `: got ${result.takingAmount}`} · <code>
            {result.orderID.slice(0, 10)}…</code>
        </p>
      )}
    </form>
  )
}
