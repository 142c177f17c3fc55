#!/usr/bin/env node
// A market maker over gRPC with the SDK (dist/, built by `npm start`): a new wallet is funded, approved and
// keyed over REST and mints 20 Yes + 20 No of the first active market; then, on an order-entry session that
// cancels its orders if the connection drops, it quotes a post-only bid and ask on Yes at the best prices,
// prints each ack, and on Ctrl-C (or after --seconds N) cancels both, prints the cancel and closes.
//
//   node examples/grpc-maker.mjs [http://127.0.0.1:8080] [--grpc 127.0.0.1:9090 | PREDEX_GRPC=…] [--seconds N]
const args = process.argv.slice(2)
const option = (name, fallback) => (args.includes(name) ? args.splice(args.indexOf(name), 2)[1] : fallback)
const grpcTarget = option('--grpc', process.env.PREDEX_GRPC ?? '127.0.0.1:9090')
const seconds = Number(option('--seconds', 'Infinity'))
const baseUrl = args[0] ?? 'http://127.0.0.1:8080'
const { PredexClient, Wallet, signLimitOrder } = await import('../dist/src/client/index.js')
const { PredexGrpcClient } = await import('../dist/src/client/grpc/index.js')

try {
  const wallet = Wallet.random()
  const rest = new PredexClient({ baseUrl, wallet })
  await rest.faucet()
  await rest.approve(1_000_000_000n)
  const credentials = await rest.createApiKey()
  const grpc = new PredexGrpcClient({ target: grpcTarget, signer: { credentials, address: wallet.address } })
  const market = (await grpc.listMarkets({ page: { limit: 100 } })).data.find((m) => m.status === 'Active')
  if (market === undefined) throw new Error('no active market: start Predex on a new data directory (demo set)')
  await rest.split(market.conditionId, 20_000_000n) // 20 full sets: Yes shares to sell (6-decimal units)
  const { book } = await grpc.getBook({ tokenId: market.yesTokenId })
  console.log(`wallet ${wallet.address}: quoting Yes of "${market.question}" at its best bid and ask`)
  const session = await grpc.session({ cancelOnDisconnect: 'session', deadManMs: 5_000 })
  const terms = { tickSize: market.tickSize, negRisk: market.negRisk, feeRateBps: market.feeRateBps, chainId: 80002 }
  const quotes = []
  for (const [side, level] of [['BUY', book.bids.at(-1)], ['SELL', book.asks.at(-1)]]) {
    if (level === undefined) throw new Error(`no ${side === 'BUY' ? 'bid' : 'ask'} to join on Yes`)
    const signed = signLimitOrder(wallet, terms, { tokenId: market.yesTokenId, side, price: level.price, size: '10' })
    const { value: ack } = await session.place(signed, { postOnly: true, clientOrderId: `${side.toLowerCase()}-1` })
    console.log(`ack ${side} 10 Yes @ ${level.price}: ${ack.status} ${ack.orderId}`)
    quotes.push(ack.orderId)
  }
  await new Promise((resolve) => {
    process.once('SIGINT', resolve)
    if (Number.isFinite(seconds)) setTimeout(resolve, seconds * 1000)
  })
  const { value: result } = await session.cancelMany(quotes)
  console.log(`canceled ${result.canceled.length} of ${quotes.length}: ${result.canceled.join(' ')}`)
  await session.close()
  grpc.close()
} catch (error) {
  // A refused connection is only "fetch failed": its cause names it (ECONNREFUSED: is Predex running?).
  const cause = error.cause === undefined ? '' : ` (${error.cause.code ?? error.cause.message})`
  console.error(`failed: ${error.message}${cause}`, error.body === undefined ? '' : JSON.stringify(error.body))
  process.exit(1)
}
