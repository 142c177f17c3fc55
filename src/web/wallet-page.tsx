/**
 * The test wallet: make or import a key (kept in this browser: test funds only), get USDC from
 * the faucet, approve the exchange through the gasless relay, and see balances and holds, open
 * orders (each with its cancel), trades and the portfolio's value over time. Refreshed every two
 * seconds and after every action.
 */
import { useEffect, useState } from 'preact/hooks'
import type { NativeOrder } from '../api/shapes/order.js'
import type { PublicTrade } from '../api/shapes/trade.js'
import type { UserBalances, Milestone } from '../api/shapes/user.js'
import type { WalletStatus } from '../api/shapes/testnet.js'
import { get, send } from './api.js'
import { LineChart } from './charts.js'
import { ErrorNotice } from './error-notice.js'
import { fixed, micros, plotted, UNLIMITED_USDC_MICROS } from './micros.js'
import { portfolioValues } from './portfolio.js'
import { authed, CHAIN_ID, createWallet, ensureCredentials, removeWallet, useSession } from './session.js'
import { signedApprove } from './wallet.js'

const REFRESH_MS = 2_000

interface WalletData {
  /** Market UUID -> its question, for the rows that name a market. */
  readonly questions: ReadonlyMap<string, string>
  readonly status: WalletStatus
  readonly balances: UserBalances
  readonly orders: readonly NativeOrder[]
  readonly trades: readonly PublicTrade[]
  readonly milestones: readonly Milestone[]
}

async function loadData(address: string): Promise<WalletData> {
  const [markets, status, balances, orders, trades, history] = await Promise.all([
    get('GET /markets', '/markets?limit=500'),
    get('GET /wallet-status', `/wallet-status?address=${address}`),
    get('GET /users/:address/balances', `/users/${address}/balances`),
    authed('GET /data/orders', 'GET', '/data/orders'),
    get('GET /users/:address/trades', `/users/${address}/trades?limit=50`),
    get('GET /users/:address/portfolio-history', `/users/${address}/portfolio-history?limit=500`),
  ])
  return { questions: new Map(markets.data.map((m) => [m.id, m.question])), status, balances, orders: orders.data,
    trades: trades.data, milestones: history.milestones }
}

function NoWallet() {
  const [key, setKey] = useState('')
  const [error, setError] = useState<unknown>(null)
  return (
    <section aria-labelledby="wallet-title">
      <h1 id="wallet-title">Test wallet</h1>
      <p class="warning">A test-network key, kept in this browser's storage. Never put a real key here.</p>
      <button type="button" data-testid="create-wallet" onClick={() => createWallet()}>Create a test wallet</button>
      <form onSubmit={(e) => {
        e.preventDefault()
        try { createWallet(key) } catch (failure) { setError(failure) }
      }}>
        <label>Or import a test key <input type="password" value={key} placeholder="0x…" autoComplete="off"
          onInput={(e) => setKey(e.currentTarget.value)} /></label>
        <button type="submit">Import</button>
      </form>
      <ErrorNotice error={error} />
    </section>
  )
}

export function WalletPage() {
  const { wallet, credentials } = useSession()
  const [data, setData] = useState<WalletData | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [generation, setGeneration] = useState(0)
  const address = wallet?.account.address ?? null
  useEffect(() => {
    if (address === null) return undefined
    let live = true
    const load = (): void => {
      loadData(address).then((next) => { if (live) { setData(next); setError(null) } })
        .catch((e: unknown) => { if (live) setError(e) })
    }
    load()
    const timer = setInterval(load, REFRESH_MS)
    return () => { live = false; clearInterval(timer) }
  }, [address, credentials?.apiKey, generation])
  if (wallet === null || address === null) return <NoWallet />

  const act = (what: string, action: () => Promise<unknown>) => async (): Promise<void> => {
    setNotice(null)
    setError(null)
    try {
      await action()
      setNotice(what)
      setGeneration((n) => n + 1)
    } catch (e) {
      setError(e)
    }
  }
  const faucet = act('Test USDC credited.', () => send('POST /faucet', 'POST', '/faucet', JSON.stringify({ address })))
  const approve = act('The exchange is approved.', async () => {
    const { nonce } = await get('GET /relay/nonce', `/relay/nonce?address=${address}`)
    return send('POST /relay', 'POST', '/relay', await signedApprove(wallet, CHAIN_ID, nonce))
  })
  const cancel = (orderID: string) => act('Order cancelled.', () =>
    authed('DELETE /order', 'DELETE', '/order', JSON.stringify({ orderID })))
  const points = data === null ? [] : portfolioValues(data.milestones)
    .map((p) => ({ time: p.timeSec, value: plotted(p.valueMicros) }))
  return (
    <section aria-labelledby="wallet-title">
      <h1 id="wallet-title">Test wallet</h1>
      <p class="warning">Test network only: this key lives in this browser's storage.</p>
      <p>Address <code data-testid="wallet-address">{address}</code></p>
      <div class="actions">
        <button type="button" data-testid="faucet" onClick={() => void faucet()}>Get test USDC</button>
        <button type="button" data-testid="approve" onClick={() => void approve()}>Approve the exchange</button>
        {credentials === null && <button type="button" data-testid="credentials"
          onClick={() => void act('API credentials made.', ensureCredentials)()}>Make API credentials</button>}
        <button type="button" class="quiet" onClick={() => removeWallet()}>Forget this wallet</button>
      </div>
      {notice !== null && <p role="status" data-testid="notice">{notice}</p>}
      <ErrorNotice error={error} />
      {data !== null && <WalletData data={data} cancel={cancel} points={points} />}
    </section>
  )
}

function MarketLink({ id, data }: { id: string | null; data: WalletData }) {
  if (id === null) return <span>unknown market</span>
  return <a href={`#/market/${id}`}>{data.questions.get(id) ?? id}</a>
}

function WalletData({ data, cancel, points }: { data: WalletData; cancel: (id: string) => () => Promise<void>;
  points: readonly { time: number; value: number }[] }) {
  const { status, balances } = data
  return (
    <div>
      <h2>Balances</h2>
      <table>
        <thead><tr><th scope="col">Asset</th><th scope="col" class="num">Balance</th>
          <th scope="col" class="num">Held by orders</th></tr></thead>
        <tbody>
          <tr data-testid="balance-usdc"><th scope="row">USDC</th><td class="num">{fixed(micros(balances.usdc), 2)}</td>
            <td class="num">{fixed(micros(balances.usdc_held), 2)}</td></tr>
          {balances.tokens.map((t) => (
            <tr key={t.token_id}><th scope="row">{t.outcome ?? 'token'} · <MarketLink id={t.market_id} data={data} /></th>
              <td class="num">{fixed(micros(t.shares), 2)}</td><td class="num">{fixed(micros(t.held), 2)}</td></tr>
          ))}
        </tbody>
      </table>
      <p>Exchange allowance: {micros(status.allowance) >= UNLIMITED_USDC_MICROS ? 'unlimited'
        : `${status.allowance} USDC`} · available for new orders: {fixed(micros(status.available_usdc), 2)} USDC</p>
      <h2>Open orders</h2>
      <table>
        <thead><tr><th scope="col">Market</th><th scope="col">Outcome</th><th scope="col">Side</th>
          <th scope="col" class="num">Price</th><th scope="col" class="num">Shares</th><th scope="col" class="num">Filled</th>
          <th scope="col" class="num">Shares ahead</th><th scope="col">Cancel</th></tr></thead>
        <tbody>
          {data.orders.map((o) => (
            <tr key={o.id} data-testid="open-order" data-order-id={o.id}>
              <td><MarketLink id={o.market} data={data} /></td>
              <td>{o.outcome}</td><td class={o.side === 'BUY' ? 'buy' : 'sell'}>{o.side}</td>
              <td class="num">{o.price}</td><td class="num">{o.original_size}</td><td class="num">{o.size_matched}</td>
              <td class="num">{o.queue_ahead ?? ''}</td>
              <td><button type="button" onClick={() => void cancel(o.id)()}
                aria-label={`Cancel the ${o.side} ${o.outcome} order at ${o.price}`}>Cancel</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      {data.orders.length === 0 && <p>No open orders.</p>}
      <h2>Trades</h2>
      <table>
        <thead><tr><th scope="col">Time</th><th scope="col">Market</th><th scope="col">Role</th><th scope="col">Side</th>
          <th scope="col">Outcome</th>
          <th scope="col" class="num">Price</th><th scope="col" class="num">Shares</th></tr></thead>
        <tbody>
          {data.trades.map((t) => (
            <tr key={`${t.id}-${t.trader_side}`} data-testid="wallet-trade">
              <td>{new Date(Number(t.match_time) * 1000).toLocaleTimeString()}</td>
              <td><MarketLink id={t.market} data={data} /></td><td>{t.trader_side}</td>
              <td>{t.side}</td><td>{t.outcome}</td><td class="num">{t.price}</td><td class="num">{t.size}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data.trades.length === 0 && <p>No trades yet.</p>}
      <h2>Portfolio value (USDC)</h2>
      <LineChart points={points} testId="portfolio-chart"
        label={`Portfolio value over time, ${points.length} points`} />
    </div>
  )
}
