/**
 * The page's frame: a header with the two places (markets, the test wallet) and the wallet's
 * address, and a hash router (#/, #/market/<slug or id>, #/wallet), so that every place has a
 * link and the server serves one document.
 */
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { MarketPage } from './market-page.js'
import { MarketsPage } from './markets-page.js'
import { useSession } from './session.js'
import { WalletPage } from './wallet-page.js'
import './style.css'

type Place = { readonly kind: 'markets' } | { readonly kind: 'market'; readonly id: string }
  | { readonly kind: 'wallet' }

function placeOf(hash: string): Place {
  const market = /^#\/market\/(.+)$/.exec(hash)
  if (market !== null) return { kind: 'market', id: decodeURIComponent(market[1]!) }
  if (hash === '#/wallet') return { kind: 'wallet' }
  return { kind: 'markets' }
}

function usePlace(): Place {
  const [place, setPlace] = useState(placeOf(location.hash))
  useEffect(() => {
    const onHash = (): void => setPlace(placeOf(location.hash))
    addEventListener('hashchange', onHash)
    return () => removeEventListener('hashchange', onHash)
  }, [])
  return place
}

function App() {
  const place = usePlace()
  const { wallet } = useSession()
  const address = wallet?.account.address
  return (
    <>
      <header>
        <a class="brand" href="#/">Predex</a>
        <nav aria-label="Main">
          <a href="#/" aria-current={place.kind !== 'wallet' ? 'page' : undefined}>Markets</a>
          <a href="#/wallet" aria-current={place.kind === 'wallet' ? 'page' : undefined}>
            {address === undefined ? 'Wallet' : `Wallet ${address.slice(0, 6)}…${address.slice(-4)}`}</a>
        </nav>
        <span class="network">test network</span>
      </header>
      <main>
        {place.kind === 'markets' && <MarketsPage />}
        {place.kind === 'market' && <MarketPage key={place.id} id={place.id} />}
        {place.kind === 'wallet' && <WalletPage />}
      </main>
      <footer><a href="/docs">API documentation</a></footer>
    </>
  )
}

render(<App />, document.getElementById('app')!)
