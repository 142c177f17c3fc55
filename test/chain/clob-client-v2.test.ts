/**
 * An unmodified `@polymarket/clob-client-v2` trades against `--chain local` (issue 35, "not done
 * until"): two wallets get test USDC from /compat/faucet, approve the exchange from their own keys
 * on the chain, create API keys over L1 and post V2 orders through `/compat`; the trade reaches
 * CONFIRMED on chain (getTrades shows its settlement transaction, which postOrder reports as it
 * does against Polymarket), and the balances the client reads (getBalanceAllowance) are the chain's. Bounded: every wait has a deadline.
 */
import t from 'tap'
import { createPublicClient, createWalletClient, custom, http, type Hex, type WalletClient } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { AssetType, ClobClient, Side } from '@polymarket/clob-client-v2'
import { PredexClient } from '../../src/client/predex-client.js'
import { ensureBuilt } from '../support/compiled.js'
import { approveOnChain, CONTRACTS, rpcUrlOf, tokensOnChain, usdcOnChain, waitUntil as until }
  from '../support/chain-server.js'
import { startPredex } from '../support/predex-process.js'

const ADMIN_KEY = 'clob-v2-chain-test-admin-key-0123456789'

/** A wallet that signs locally: the client never uses its transport. */
function signerOf(key: Hex): WalletClient {
  return createWalletClient({ account: privateKeyToAccount(key), transport: custom({ request: async () => {
    throw new Error('no RPC from the client')
  } }) })
}

ensureBuilt()

t.test('clob-client-v2 trades on --chain local: the trade is CONFIRMED on chain, the balances are the chain\'s', async (t) => {
  const node = await startPredex(t, ['--chain', 'local', '--chain-block-ms', '100', '--faucet-cooldown', '0',
    '--admin-key', ADMIN_KEY, '--rate-limits', 'false'])
  const host = `${node.base}/compat`
  const rpcUrl = await rpcUrlOf(node)
  const reader = createPublicClient({ transport: http(rpcUrl) })
  const market = await new PredexClient({ baseUrl: node.base, adminKey: ADMIN_KEY })
    .createMarket({ question: 'Will clob-client-v2 settle on chain?' })

  const party = async () => {
    const key = generatePrivateKey()
    const address = privateKeyToAccount(key).address
    const funded = await fetch(`${host}/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address, amount: '50' }) })
    t.equal(funded.status, 200, 'funded by /compat/faucet')
    await approveOnChain(rpcUrl, key, CONTRACTS.exchangeV2) // USDC approved for the V2 exchange, as its users do
    const signer = signerOf(key)
    const creds = await new ClobClient({ host, chain: 80002, signer }).createOrDeriveApiKey()
    const client = new ClobClient({ host, chain: 80002, signer, creds })
    await until(() => client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL }),
      (b) => b.balance === '50000000' && Object.values(b.allowances).some((a) => a !== '0'),
      'the faucet and the approval reach the ledger')
    return { address, client }
  }
  const [maker, taker] = [await party(), await party()]

  const resting = await maker.client.createAndPostOrder({ tokenID: market.yes_token_id, side: Side.BUY, price: 0.55, size: 10 })
  t.equal(resting.status, 'live', JSON.stringify(resting))
  const crossing = await taker.client.createAndPostOrder({ tokenID: market.no_token_id, side: Side.BUY, price: 0.45, size: 10 })
  t.equal(crossing.status, 'matched', JSON.stringify(crossing))

  const trades = await until(() => taker.client.getTrades(), (list) => list.length === 1 && list[0]!.status === 'CONFIRMED',
    'the trade is CONFIRMED')
  const receipt = await reader.getTransactionReceipt({ hash: trades[0]!.transaction_hash as Hex })
  t.equal(receipt.status, 'success', 'its settlement transaction is on chain')
  // The server answers the match with no transaction (the trade settles in one of its own); the
  // client waits for it through getTrades, as against Polymarket, and reports it.
  t.strictSame(crossing.transactionsHashes, [trades[0]!.transaction_hash], 'postOrder reports the settlement transaction')
  for (const [who, usdc, token] of [[maker, 44_500_000n, market.yes_token_id], [taker, 45_500_000n, market.no_token_id]] as const) {
    const sharesOnChain = await tokensOnChain(rpcUrl, who.address, token)
    t.equal(await usdcOnChain(rpcUrl, who.address), usdc, 'USDC on chain')
    t.equal(sharesOnChain, 10_000_000n, 'the shares on chain')
    t.equal((await who.client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })).balance, usdc.toString(),
      'USDC as the client reads it')
    t.equal((await who.client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: token })).balance,
      sharesOnChain.toString(), 'the shares as the client reads them')
  }
})
