/**
 * The markets list: every market with its last price, best bid and ask, spread and volume,
 * searchable by question or slug, refreshed every few seconds. A row opens the market.
 */
import { useEffect, useState } from 'preact/hooks'
import type { NativeMarket } from '../api/shapes/market.js'
import { get } from './api.js'
import { ErrorNotice } from './error-notice.js'
import { fixed, micros, placesOf } from './micros.js'

const REFRESH_MS = 5_000
/** GET /markets pages at most 500 a page; the page reads the first page, the newest markets. */
const MARKETS_PAGE_SIZE = 500

function spreadOf(market: NativeMarket): string {
  if (market.best_bid === null || market.best_ask === null) return '–'
  return fixed(micros(market.best_ask) - micros(market.best_bid), placesOf(market.tick_size))
}

function priceText(price: string | null, market: NativeMarket): string {
  return price === null ? '–' : fixed(micros(price), placesOf(market.tick_size))
}

export function MarketsPage() {
  const [markets, setMarkets] = useState<readonly NativeMarket[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [search, setSearch] = useState('')
  useEffect(() => {
    let live = true
    const load = (): void => {
      get('GET /markets', `/markets?limit=${MARKETS_PAGE_SIZE}`)
        .then((page) => { if (live) { setMarkets(page.data); setError(null) } })
        .catch((e: unknown) => { if (live) setError(e) })
    }
    load()
    const timer = setInterval(load, REFRESH_MS)
    return () => { live = false; clearInterval(timer) }
  }, [])
  const needle = search.trim().toLowerCase()
  const shown = (markets ?? []).filter((m) => needle === '' || m.question.toLowerCase().includes(needle)
    || m.slug.includes(needle))
  return (
    <section aria-labelledby="markets-title">
      <h1 id="markets-title">Markets</h1>
      <label class="search">Search markets <input type="search" value={search} placeholder="question or slug"
        onInput={(e) => setSearch(e.currentTarget.value)} data-testid="market-search" /></label>
      <ErrorNotice error={error} />
      {markets === null && error === null && <p>Loading…</p>}
      <table class="markets">
        <thead><tr><th scope="col">Market</th><th scope="col">Status</th><th scope="col" class="num">Last (Yes)</th>
          <th scope="col" class="num">Bid</th><th scope="col" class="num">Ask</th><th scope="col" class="num">Spread</th>
          <th scope="col" class="num">Volume (USDC)</th></tr></thead>
        <tbody>
          {shown.map((m) => (
            <tr key={m.id} data-testid="market-row" data-slug={m.slug}>
              <th scope="row"><a href={`#/market/${m.slug}`}>{m.question}</a></th>
              <td>{m.status}</td>
              <td class="num">{priceText(m.last_trade_price, m)}</td>
              <td class="num">{priceText(m.best_bid, m)}</td>
              <td class="num">{priceText(m.best_ask, m)}</td>
              <td class="num">{spreadOf(m)}</td>
              <td class="num">{fixed(micros(m.volume), 2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {markets !== null && shown.length === 0 && <p>No market matches “{search}”.</p>}
    </section>
  )
}
