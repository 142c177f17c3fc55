#!/usr/bin/env node
/**
 * A Polymarket bot's first order on Predex, written with Polymarket's own client
 * (@polymarket/clob-client-v2, protocol V2) and viem, from a new key:
 *
 *   1. test USDC from the faucet (POST <server>/compat/faucet);
 *   2. the exchange approved. On Polymarket this is an ERC-20 approve transaction; Predex's test
 *      network has no RPC to send one to, so the wallet signs the same approval as an EIP-712
 *      "Predex Relay" message and the server runs it for it, without gas (docs/testnet.md);
 *   3. an API key (createOrDeriveApiKey), then the balance and allowance the client reads;
 *   4. the book of the first market's Yes token;
 *   5. a post-only bid at the best bid: it rests (it can never take);
 *   6. its cancel.
 *
 *   node examples/polymarket-v2-bot.mjs [http://127.0.0.1:8080]
 *
 * Prints each step's answer; exits 1 at the first step that fails.
 */
import { AssetType, ClobClient, OrderType, Side } from '@polymarket/clob-client-v2'
import { createWalletClient, defineChain, http, maxUint256, zeroHash } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

const server = process.argv[2] ?? 'http://127.0.0.1:8080'
const host = `${server}/compat` // Polymarket's API, as the client expects it
const CHAIN_ID = 80002 // what Predex signs for by default (--chain-id)

// viem's http() transport needs a chain (or a URL) or createWalletClient throws "No URL was
// provided to the Transport". No JSON-RPC call is ever made: the account is local, so it signs
// here, and the ledger is reached through the REST calls below.
const predexTestnet = defineChain({
  id: CHAIN_ID,
  name: 'Predex test network',
  nativeCurrency: { name: 'Test ETH', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [server] } },
})
const account = privateKeyToAccount(generatePrivateKey())
const signer = createWalletClient({ account, chain: predexTestnet, transport: http() })

const show = (label, value) => console.log(`${label}: ${JSON.stringify(value)}`)

/** A call to the test network's endpoints (not in the clob client): JSON in, JSON out, throws on an error. */
async function call(method, path, body) {
  const response = await fetch(`${host}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const answer = await response.json()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`)
  return answer
}

/** Approves the exchange for all USDC and every outcome token: a signed Relay message, run by the server. */
async function approveExchange() {
  const { nonce } = await call('GET', `/relay/nonce?address=${account.address}`)
  const message = {
    owner: account.address, action: 'approve', conditionId: zeroHash, amount: maxUint256, // unlimited, as bots do
    nonce: BigInt(nonce), deadline: BigInt(Math.floor(Date.now() / 1000) + 300),
  }
  const signature = await signer.signTypedData({
    domain: { name: 'Predex Relay', version: '1', chainId: CHAIN_ID },
    types: { Relay: [
      { name: 'owner', type: 'address' }, { name: 'action', type: 'string' }, { name: 'conditionId', type: 'bytes32' },
      { name: 'amount', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' },
    ] },
    primaryType: 'Relay',
    message,
  })
  return call('POST', '/relay', {
    owner: message.owner, action: message.action, condition_id: message.conditionId, amount: message.amount.toString(),
    nonce: message.nonce.toString(), deadline: message.deadline.toString(), signature,
  })
}

try {
  console.log(`wallet ${account.address}`)
  show('faucet', await call('POST', '/faucet', { address: account.address }))
  show('approve (relay)', await approveExchange())

  // throwOnError: an error answer throws (with its status and body) instead of being returned.
  const creds = await new ClobClient({ host, chain: CHAIN_ID, signer, throwOnError: true }).createOrDeriveApiKey()
  show('api key', creds.key)
  const client = new ClobClient({ host, chain: CHAIN_ID, signer, creds, throwOnError: true })
  show('balance and allowance', await client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL }))

  const market = (await client.getMarkets()).data.find((m) => m.accepting_orders)
  if (market === undefined) throw new Error('no market takes orders: start Predex on a new data directory (demo set)')
  const yes = market.tokens.find((token) => token.outcome === 'Yes')
  const book = await client.getOrderBook(yes.token_id)
  const bestBid = book.bids.at(-1) // bids ascending: the best last
  const bestAsk = book.asks.at(-1) // asks descending: the best last
  console.log(`market "${market.question}": Yes best bid ${bestBid?.price ?? '-'}, best ask ${bestAsk?.price ?? '-'}`)

  // Post-only at the best bid (the lowest tick on an empty side): it joins the queue, never takes.
  const price = Number(bestBid?.price ?? book.tick_size)
  const size = Number(book.min_order_size)
  const order = await client.createAndPostOrder({ tokenID: yes.token_id, side: Side.BUY, price, size }, undefined,
    OrderType.GTC, true)
  show(`order BUY ${size} Yes @ ${price}`, order)
  if (order.status !== 'live') throw new Error(`the order did not rest: ${order.status}`)
  show('open orders', (await client.getOpenOrders({ id: order.orderID })).map((o) => ({ id: o.id, status: o.status })))

  const canceled = await client.cancelOrder({ orderID: order.orderID })
  show('cancel', canceled)
  if (!canceled.canceled.includes(order.orderID)) throw new Error('the order was not canceled')
  console.log('done: funded, approved, keyed, rested and canceled')
} catch (error) {
  // A refused connection is only "fetch failed": its cause names it (ECONNREFUSED: is Predex running?).
  const cause = error.cause === undefined ? '' : ` (${error.cause.code ?? error.cause.message})`
  // throwOnError's ApiError carries the server's status and answer.
  const answer = error.data === undefined ? '' : ` ${error.status} ${JSON.stringify(error.data)}`
  console.error(`failed: ${error.message}${cause}${answer}`)
  process.exit(1)
}
