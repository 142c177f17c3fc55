/**
 * A market: its Yes/No book live from the market channel (the unified Yes view with the No
 * side's implied liquidity, or either token's own book), the channel's state (sequence numbers,
 * resyncs after a gap), recent trades, candles, and the order ticket when a wallet is set up.
 */
import { useEffect, useMemo, useState } from 'preact/hooks'
import type { NativeMarket } from '../api/shapes/market.js'
import type { MarketTradeEvent } from '../api/shapes/polymarket.js'
import { get, getCompat } from './api.js'
import { unifiedLevels, type BookState, type UnifiedLevel } from './book-state.js'
import { CandlesChart, type CandlePoint } from './charts.js'
import { ErrorNotice } from './error-notice.js'
import { MarketFeed } from './market-feed.js'
import { decimal, fixed, micros, placesOf, plotted } from './micros.js'
import { OrderTicketForm } from './order-ticket.js'
import { useSession } from './session.js'

const LEVELS_SHOWN = 12
const INTERVALS = ['1m', '5m', '1h', '1d'] as const
type Interval = typeof INTERVALS[number]
type BookView = 'unified' | 'yes' | 'no'

/** Runs `effect` after the feed's trades settle (one reload per burst of trades). */
function useTradeReload(feed: MarketFeed | null, reload: () => void, delayMs: number): void {
  useEffect(() => {
    if (feed === null) return undefined
    let seen = feed.trades.length > 0 ? feed.trades[0] : undefined
    let timer: ReturnType<typeof setTimeout> | null = null
    const unlisten = feed.listen(() => {
      if (feed.trades[0] === seen) return
      seen = feed.trades[0]
      if (timer === null) timer = setTimeout(() => { timer = null; reload() }, delayMs)
    })
    return () => { unlisten(); if (timer !== null) clearTimeout(timer) }
  }, [feed, reload])
}

function levelsOf(feed: MarketFeed, market: NativeMarket, view: BookView, side: 'bids' | 'asks'): UnifiedLevel[] {
  const yes = feed.books.get(market.yes_token_id)!
  const no = feed.books.get(market.no_token_id)!
  if (view === 'unified') return unifiedLevels(yes, no, side)
  const own: BookState = view === 'yes' ? yes : no
  return own.levels(side).map((level) => ({ ...level, impliedMicros: 0n }))
}

function BookSide({ levels, side, places }: { levels: readonly UnifiedLevel[]; side: 'bids' | 'asks';
  places: number }) {
  const top = levels.slice(0, LEVELS_SHOWN)
  let total = 0n
  const rows = top.map((level) => ({ level, cumulative: (total += level.sizeMicros) }))
  const max = total === 0n ? 1n : total
  const ordered = side === 'asks' ? [...rows].reverse() : rows
  const testId = side === 'bids' ? 'book-bid' : 'book-ask'
  return (
    <tbody class={side}>
      {ordered.map(({ level, cumulative }) => (
        <tr key={String(level.priceMicros)} data-testid={testId} data-price={decimal(level.priceMicros)}
          style={{ '--depth': `${Number(cumulative * 100n / max)}%` }}>
          <td class="num price">{fixed(level.priceMicros, places)}</td>
          <td class="num">{fixed(level.sizeMicros, 2)}</td>
          <td class="num implied">{level.impliedMicros === 0n ? '' : fixed(level.impliedMicros, 2)}</td>
        </tr>
      ))}
      {top.length === 0 && <tr><td colSpan={3} class="empty">no {side}</td></tr>}
    </tbody>
  )
}

function Book({ feed, market }: { feed: MarketFeed; market: NativeMarket }) {
  const [view, setView] = useState<BookView>('unified')
  const [, setTick] = useState(0)
  useEffect(() => feed.listen(() => setTick((n) => n + 1)), [feed])
  const yes = feed.books.get(market.yes_token_id)!
  const no = feed.books.get(market.no_token_id)!
  const asks = levelsOf(feed, market, view, 'asks')
  const bids = levelsOf(feed, market, view, 'bids')
  const places = placesOf(market.tick_size)
  return (
    <section class="book" aria-labelledby="book-title">
      <h2 id="book-title">Order book</h2>
      <label>View <select value={view} onChange={(e) => setView(e.currentTarget.value as BookView)}>
        <option value="unified">Yes, with No's implied liquidity</option>
        <option value="yes">Yes token's own book</option>
        <option value="no">No token's own book</option>
      </select></label>
      <p class="feed" data-testid="feed-status" data-status={feed.status}>
        Live: {feed.status} · seq Yes {yes.seq ?? '…'} / No {no.seq ?? '…'}
        {feed.resyncs > 0 && <span data-testid="resyncs"> · resynced {feed.resyncs}× after a gap</span>}
      </p>
      <table>
        <thead><tr><th scope="col" class="num">Price</th><th scope="col" class="num">Shares</th>
          <th scope="col" class="num">of it implied</th></tr></thead>
        <BookSide levels={asks} side="asks" places={places} />
        <tbody class="spread"><tr><td colSpan={3}>{asks.length > 0 && bids.length > 0
          ? `spread ${fixed(asks[0]!.priceMicros - bids[0]!.priceMicros, places)}` : 'one side empty'}</td></tr></tbody>
        <BookSide levels={bids} side="bids" places={places} />
      </table>
    </section>
  )
}

function Trades({ feed, market }: { feed: MarketFeed; market: NativeMarket }) {
  const [trades, setTrades] = useState<readonly MarketTradeEvent[]>([])
  const [error, setError] = useState<unknown>(null)
  const reload = useMemo(() => () => {
    getCompat('GET /markets/live-activity/:condition_id', `/markets/live-activity/${market.condition_id}`)
      .then((list) => { setTrades(list.slice(0, 30)); setError(null) }).catch(setError)
  }, [market.condition_id])
  useEffect(reload, [reload])
  useTradeReload(feed, reload, 300)
  return (
    <section aria-labelledby="trades-title">
      <h2 id="trades-title">Recent trades</h2>
      <ErrorNotice error={error} />
      <table class="trades">
        <thead><tr><th scope="col">Time</th><th scope="col">Outcome</th><th scope="col">Side</th>
          <th scope="col" class="num">Price</th><th scope="col" class="num">Shares</th></tr></thead>
        <tbody>
          {trades.map((t) => (
            <tr key={t.transaction_hash + t.market.asset_id + t.size} data-testid="trade-row">
              <td>{new Date(Number(t.timestamp) * 1000).toLocaleTimeString()}</td>
              <td>{t.outcome}</td>
              <td class={t.side === 'BUY' ? 'buy' : 'sell'}>{t.side}</td>
              <td class="num">{fixed(micros(t.price), placesOf(market.tick_size))}</td>
              <td class="num">{fixed(micros(t.size), 2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {trades.length === 0 && error === null && <p>No trades yet.</p>}
    </section>
  )
}

function Candles({ feed, market }: { feed: MarketFeed; market: NativeMarket }) {
  const [interval, chooseInterval] = useState<Interval>('1m')
  const [candles, setCandles] = useState<readonly CandlePoint[]>([])
  const [error, setError] = useState<unknown>(null)
  const reload = useMemo(() => () => {
    get('GET /ticks/:symbol', `/ticks/${market.yes_token_id}?interval=${interval}`)
      .then((list) => {
        setCandles(list.map((c) => ({ time: c.t, open: plotted(micros(c.open)), high: plotted(micros(c.high)),
          low: plotted(micros(c.low)), close: plotted(micros(c.close)) })))
        setError(null)
      }).catch(setError)
  }, [market.yes_token_id, interval])
  useEffect(reload, [reload])
  useTradeReload(feed, reload, 1_000)
  return (
    <section aria-labelledby="candles-title">
      <h2 id="candles-title">Yes price</h2>
      <label>Interval <select value={interval} onChange={(e) => chooseInterval(e.currentTarget.value as Interval)}
        data-testid="candles-interval">
        {INTERVALS.map((i) => <option key={i} value={i}>{i}</option>)}
      </select></label>
      <ErrorNotice error={error} />
      <CandlesChart candles={candles} label={`Yes price candles, ${interval} intervals, ${candles.length} shown`} />
    </section>
  )
}

export function MarketPage({ id }: { id: string }) {
  const session = useSession()
  const [market, setMarket] = useState<NativeMarket | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    get('GET /markets/:id', `/markets/${encodeURIComponent(id)}`).then(setMarket).catch(setError)
  }, [id])
  const feed = useMemo(() => market === null ? null : new MarketFeed([market.yes_token_id, market.no_token_id]),
    [market?.id])
  useEffect(() => () => feed?.stop(), [feed])
  if (error !== null) return <ErrorNotice error={error} />
  if (market === null || feed === null) return <p>Loading…</p>
  return (
    <article aria-labelledby="market-title">
      <p><a href="#/">← Markets</a></p>
      <h1 id="market-title">{market.question}</h1>
      <p class="terms">{market.status} · tick {market.tick_size} · fee {market.fee_rate_bps} bps · volume{' '}
        {fixed(micros(market.volume), 2)} USDC</p>
      <div class="columns">
        <Book feed={feed} market={market} />
        <div>
          {session.wallet === null
            ? <p class="hint">To trade, <a href="#/wallet">make a test wallet</a>.</p>
            : <OrderTicketForm market={market} />}
          <Trades feed={feed} market={market} />
        </div>
      </div>
      <Candles feed={feed} market={market} />
    </article>
  )
}
