/**
 * Settlement on a local chain (issue 35 point 4), on a real server process with `--chain local`:
 * a market created through the admin API is a condition of the Conditional Tokens; two wallets
 * funded by the faucet approve the exchange from their own keys and trade through the SDK (a
 * mint, then a normal trade); each trade goes MATCHED -> MINED -> CONFIRMED with its settlement
 * transaction, and USDC and outcome tokens are the same on chain as in the API. A restart finds
 * the trades CONFIRMED and sends nothing again. Bounded: every wait has a deadline.
 */
import t from 'tap'
import { createPublicClient, http, type Address, type Hex } from 'viem'
import { artifactOf } from '../../src/chain/artifacts.js'
import { PredexClient } from '../../src/client/predex-client.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { PredexGrpcClient } from '../../src/client/grpc/predex-grpc-client.js'
import { ensureBuilt } from '../support/compiled.js'
import { WsClient } from '../support/ws-client.js'
import { chainTrader, CONTRACTS, rpcUrlOf, tokensOnChain, usdcOnChain, waitUntil, type ChainTrader }
  from '../support/chain-server.js'
import { startPredex } from '../support/predex-process.js'

const ADMIN_KEY = 'settlement-test-admin-key-0123456789'
const ARGS = ['--chain', 'local', '--chain-block-ms', '100', '--faucet-cooldown', '0', '--admin-key', ADMIN_KEY,
  '--rate-limits', 'false']

async function confirmedTrades(client: PredexClient, count: number) {
  return waitUntil(() => client.trades(), (page) => page.data.length >= count && page.data.every((tr) =>
    tr.status === 'CONFIRMED'), `${count} trades CONFIRMED`)
}

ensureBuilt()

t.test('trades settle on chain: MATCHED, MINED, CONFIRMED; chain and API agree; a restart sends nothing again', async (t) => {
  const node = await startPredex(t, ARGS)
  const rpcUrl = await rpcUrlOf(node)
  const admin = new PredexClient({ baseUrl: node.base, adminKey: ADMIN_KEY })
  const market = await admin.createMarket({ question: 'Will this trade settle on chain?' })
  const reader = createPublicClient({ transport: http(rpcUrl) })
  t.equal(await reader.readContract({ address: CONTRACTS.conditionalTokens as Address,
    abi: artifactOf('ConditionalTokens').abi, functionName: 'getOutcomeSlotCount', args: [market.condition_id as Hex] }),
  2n, 'the market is a prepared condition of the Conditional Tokens')
  const [alice, bob] = [await chainTrader(node), await chainTrader(node)]
  // bob's user channel and gRPC user stream, as a bot follows its trades: the statuses come as they change.
  const bobCredentials = await bob.client.deriveApiKey()
  const bobSocket = await WsClient.open(`${node.base.replace('http', 'ws')}/ws/user`)
  t.teardown(() => bobSocket.socket.close())
  bobSocket.send({ type: 'user', auth: bobCredentials, markets: [] })
  bobSocket.send('PING')
  t.equal(await bobSocket.next(), 'PONG', 'subscribed')
  const grpc = new PredexGrpcClient({ target: node.grpc,
    signer: { credentials: bobCredentials, address: bob.address.toLowerCase() } })
  t.teardown(() => grpc.close())
  const grpcStatuses = new Map<string, string[]>()
  void (async () => {
    for await (const update of grpc.userStream()) {
      if (update.update.case !== 'trade') continue
      const { id, status } = update.update.value
      grpcStatuses.set(id, [...(grpcStatuses.get(id) ?? []), status])
    }
  })().catch(() => undefined) // ends with the client's close

  // A mint: alice buys 10 Yes at 0.60 (resting), bob 10 No at 0.40 (taker).
  await alice.client.placeLimitOrder({ tokenId: market.yes_token_id, side: 'BUY', price: '0.60', size: '10' })
  const minted = await bob.client.placeLimitOrder({ tokenId: market.no_token_id, side: 'BUY', price: '0.40', size: '10' })
  t.equal(minted.status, 'matched')
  const first = (await bob.client.trades()).data[0]!
  t.ok(['MATCHED', 'MINED', 'CONFIRMED'].includes(first.status), `right after the match: ${first.status}`)
  const [settled] = (await confirmedTrades(bob.client, 1)).data
  t.match(settled!.transaction_hash, /^0x[0-9a-f]{64}$/, 'its settlement transaction')
  const receipt = await reader.getTransactionReceipt({ hash: settled!.transaction_hash as Hex })
  t.equal(receipt.to?.toLowerCase(), CONTRACTS.exchange.toLowerCase(), 'sent to the exchange')

  const pushed: string[] = []
  while (!pushed.includes('CONFIRMED')) {
    const message = await bobSocket.json() as { event_type: string; id: string; status: string }
    if (message.event_type === 'trade' && message.id === settled!.id) pushed.push(message.status)
  }
  t.strictSame(pushed, ['MATCHED', 'MINED', 'CONFIRMED'], 'the user channel pushed each status, as Polymarket does')
  await waitUntil(async () => grpcStatuses.get(settled!.id) ?? [], (statuses) => statuses.includes('CONFIRMED'),
    'the gRPC user stream has the trade CONFIRMED')
  t.strictSame(grpcStatuses.get(settled!.id), ['MATCHED', 'MINED', 'CONFIRMED'], 'so did the gRPC user stream')

  // A normal trade: alice sells 5 of her Yes at 0.70 to bob.
  await alice.client.placeLimitOrder({ tokenId: market.yes_token_id, side: 'SELL', price: '0.70', size: '5' })
  await bob.client.placeLimitOrder({ tokenId: market.yes_token_id, side: 'BUY', price: '0.70', size: '5' })
  await confirmedTrades(bob.client, 2)
  await confirmedTrades(alice.client, 2)

  // alice: 100 - 6 + 3.50 = 97.50 USDC, 5 Yes; bob: 100 - 4 - 3.50 = 92.50 USDC, 5 Yes, 10 No.
  const expected: [ChainTrader, bigint, bigint, bigint][] = [[alice, 97_500_000n, 5_000_000n, 0n],
    [bob, 92_500_000n, 5_000_000n, 10_000_000n]]
  for (const [who, usdc, yes, no] of expected) {
    t.equal(await usdcOnChain(rpcUrl, who.address), usdc, 'USDC on chain')
    t.equal(await tokensOnChain(rpcUrl, who.address, market.yes_token_id), yes, 'Yes on chain')
    t.equal(await tokensOnChain(rpcUrl, who.address, market.no_token_id), no, 'No on chain')
    t.equal((await who.client.walletStatus()).usdc_balance, (Number(usdc) / 1e6).toString(), 'USDC in the API')
    const yesInApi = await who.client.balanceAllowance('CONDITIONAL', market.yes_token_id)
    t.equal(yesInApi.balance, yes.toString(), 'Yes in the API')
  }

  node.child.kill('SIGTERM')
  await node.exited
  const again = await startPredex(t, ARGS, node.dataDir)
  const bobAgain = new PredexClient({ baseUrl: again.base, wallet: new Wallet(bob.key) })
  await bobAgain.deriveApiKey()
  const afterRestart = (await bobAgain.trades()).data
  t.strictSame(afterRestart.map((tr) => tr.status), ['CONFIRMED', 'CONFIRMED'], 'still CONFIRMED after a restart')
  await new Promise((resolve) => setTimeout(resolve, 1_500)) // a settlement step or two
  t.equal(await usdcOnChain(await rpcUrlOf(again), bob.address), 92_500_000n, 'nothing was settled twice')
})
