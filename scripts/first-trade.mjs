#!/usr/bin/env node
/**
 * A new user's first trade on a running Predex (README, "Try it"), with the SDK: a new wallet
 * gets test USDC from the faucet, approves the exchange through the gasless relay, creates API
 * credentials, and buys 10 Yes shares of the first market at its best ask. Every step prints
 * what the server answered.
 *
 *   node scripts/first-trade.mjs [http://127.0.0.1:8080] [--key 0x<private key>]
 *
 * Uses the build (dist/, made by `npm start` or `npm run build`).
 */
import { existsSync } from 'node:fs'

const args = process.argv.slice(2)
const keyAt = args.indexOf('--key')
const privateKey = keyAt >= 0 ? args.splice(keyAt, 2)[1] : undefined
const baseUrl = args[0] ?? 'http://127.0.0.1:8080'
const dist = new URL('../dist/src/client/', import.meta.url)
if (!existsSync(dist)) {
  console.error('No build found: run `npm run build` (or `npm start`) first.')
  process.exit(1)
}
const { PredexClient } = await import(new URL('predex-client.js', dist).href)
const { Wallet } = await import(new URL('wallet.js', dist).href)

const wallet = privateKey === undefined ? Wallet.random() : new Wallet(privateKey)
const client = new PredexClient({ baseUrl, wallet })
const show = (label, value) => console.log(`${label}:`, JSON.stringify(value))

try {
  console.log(`wallet ${wallet.address}`)
  show('faucet', await client.faucet())
  show('approve 1000 USDC (relay)', await client.approve(1_000_000_000n))
  show('wallet status', await client.walletStatus())
  await client.createApiKey()
  const market = (await client.markets({ limit: 1 })).data[0]
  if (market === undefined) throw new Error('no market: start with the demo set (a new data directory) or create one')
  const book = await client.book(market.yes_token_id)
  const bestAsk = book.asks.at(-1)
  if (bestAsk === undefined) throw new Error(`nobody sells Yes of "${market.question}" right now`)
  console.log(`market "${market.question}": best ask for Yes ${bestAsk.price} (${bestAsk.size} shares)`)
  const placed = await client.placeLimitOrder({ tokenId: market.yes_token_id, side: 'BUY', price: bestAsk.price, size: '10', orderType: 'FAK' })
  show('order', placed)
  show('trades', (await client.trades()).data.map((t) => ({ id: t.id, side: t.side, price: t.price, size: t.size, tx: t.transaction_hash })))
  show('wallet status', await client.walletStatus())
} catch (error) {
  console.error(`failed: ${error.message}`, error.body === undefined ? '' : JSON.stringify(error.body))
  process.exit(1)
}
