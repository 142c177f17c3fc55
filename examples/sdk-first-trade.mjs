#!/usr/bin/env node
/**
 * A new user's first trade on a running Predex, with the SDK (PredexClient, the native API): a
 * new wallet gets test USDC from the faucet, approves the exchange through the gasless relay,
 * creates API credentials, and buys 10 Yes shares at the best ask of the first market that has
 * one (FAK: it fills what it can at once, the rest is cancelled). Every step prints what the
 * server answered; exits 1 at the first step that fails.
 *
 *   node examples/sdk-first-trade.mjs [http://127.0.0.1:8080] [--key 0x<private key>]
 *
 * Uses the build (dist/, made by `npm start` or `npm run build`). scripts/first-trade.mjs runs
 * this file.
 */
import { existsSync } from 'node:fs'

const args = process.argv.slice(2)
const keyAt = args.indexOf('--key')
const privateKey = keyAt >= 0 ? args.splice(keyAt, 2)[1] : undefined
const baseUrl = args[0] ?? 'http://127.0.0.1:8080'
const sdk = new URL('../dist/src/client/index.js', import.meta.url)
if (!existsSync(sdk)) {
  console.error('No build found: run `npm run build` (or `npm start`) first.')
  process.exit(1)
}
// In another project: import { PredexClient, Wallet } from '@predex/client' (npm run pack:sdk).
const { PredexClient, Wallet } = await import(sdk.href)

const wallet = privateKey === undefined ? Wallet.random() : new Wallet(privateKey)
const client = new PredexClient({ baseUrl, wallet })
const show = (label, value) => console.log(`${label}:`, JSON.stringify(value))

/** The first market of the first page whose Yes has an ask, with that ask (asks descending: the best last). */
async function marketWithAnAsk() {
  for (const market of (await client.markets({ limit: 20 })).data) {
    if (market.status !== 'Active') continue
    const bestAsk = (await client.book(market.yes_token_id)).asks.at(-1)
    if (bestAsk !== undefined) return { market, bestAsk }
  }
  throw new Error('no market has an ask: start Predex on a new data directory (demo set, quoted) or quote one')
}

try {
  console.log(`wallet ${wallet.address}`)
  show('faucet', await client.faucet())
  show('approve 1000 USDC (relay)', await client.approve(1_000_000_000n))
  show('wallet status', await client.walletStatus())
  const credentials = await client.createApiKey()
  show('api key', credentials.apiKey)
  const { market, bestAsk } = await marketWithAnAsk()
  console.log(`market "${market.question}": best ask for Yes ${bestAsk.price} (${bestAsk.size} shares)`)
  const placed = await client.placeLimitOrder({
    tokenId: market.yes_token_id, side: 'BUY', price: bestAsk.price, size: '10', orderType: 'FAK',
  })
  show('order', placed)
  if (placed.status !== 'matched') throw new Error(`the order did not trade: ${placed.status}`)
  const trades = (await client.trades()).data
  show('trades', trades.map((t) => ({ id: t.id, side: t.side, price: t.price, size: t.size, tx: t.transaction_hash })))
  show('wallet status', await client.walletStatus())
} catch (error) {
  // A refused connection is only "fetch failed": its cause names it (ECONNREFUSED: is Predex running?).
  const cause = error.cause === undefined ? '' : ` (${error.cause.code ?? error.cause.message})`
  console.error(`failed: ${error.message}${cause}`, error.body === undefined ? '' : JSON.stringify(error.body))
  process.exit(1)
}
