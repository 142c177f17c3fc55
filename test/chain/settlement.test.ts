/**
 * Settlement on a local chain (issue 35 point 4), on a real server process with `--chain local`:
 * a market created through the admin API is a condition of the Conditional Tokens; two wallets
 * funded by the faucet approve the exchange from their own keys and trade through the SDK (a
 * mint, then a normal trade); each trade goes MATCHED -> MINED -> CONFIRMED with its settlement
 * transaction, and USDC and outcome tokens are the same on chain as in the API. A restart finds
 * the trades CONFIRMED and sends nothing again. Bounded: every wait has a deadline.
 */
import t from 'tap'
import { createPublicClient, createWalletClient, http, maxUint256, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { artifactOf } from '../../src/chain/artifacts.js'
import { PredexClient } from '../../src/client/predex-client.js'
import { Wallet } from '../../src/client/wallet.js'
import { CHAINS } from '../../src/crypto/contracts.js'
import { ensureBuilt } from '../compiled.js'
import { startPredex, type PredexProcess } from '../support/predex-process.js'

const ADMIN_KEY = 'settlement-test-admin-key-0123456789'
const ARGS = ['--chain', 'local', '--chain-block-ms', '200', '--faucet-cooldown', '0', '--admin-key', ADMIN_KEY,
  '--rate-limits', 'false']
const CONTRACTS = CHAINS[80002]!
const WAIT_MS_MAX = 20_000
const chainOf = (rpcUrl: string) => ({ id: 80002, name: 'local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [rpcUrl] } } })

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + WAIT_MS_MAX
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS_MAX} ms (last: ${JSON.stringify(value)})`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

interface Trader {
  readonly key: Hex
  readonly address: Address
  readonly client: PredexClient
}

async function trader(node: PredexProcess, rpcUrl: string): Promise<Trader> {
  const key = generatePrivateKey()
  const client = new PredexClient({ baseUrl: node.base, wallet: new Wallet(key) })
  await client.faucet('100')
  // Approvals from the wallet's own key, as on any chain: USDC for the exchanges, outcome tokens for the settling one.
  const wallet = createWalletClient({ transport: http(rpcUrl), account: privateKeyToAccount(key), chain: chainOf(rpcUrl) })
  const reader = createPublicClient({ transport: http(rpcUrl) })
  for (const hash of [
    await wallet.writeContract({ address: CONTRACTS.collateral as Address, abi: artifactOf('TestUSDC').abi,
      functionName: 'approve', args: [CONTRACTS.exchange as Address, maxUint256] }),
    await wallet.writeContract({ address: CONTRACTS.conditionalTokens as Address, abi: artifactOf('ConditionalTokens').abi,
      functionName: 'setApprovalForAll', args: [CONTRACTS.exchange as Address, true] }),
  ]) await reader.waitForTransactionReceipt({ hash })
  await until(() => client.walletStatus(), (w) => w.allowance !== '0', 'the approval reaches the ledger')
  await client.createApiKey()
  return { key, address: privateKeyToAccount(key).address, client }
}

async function onChain(rpcUrl: string, address: Address, tokenId: string | null): Promise<bigint> {
  const reader = createPublicClient({ transport: http(rpcUrl) })
  if (tokenId === null) {
    return await reader.readContract({ address: CONTRACTS.collateral as Address, abi: artifactOf('TestUSDC').abi,
      functionName: 'balanceOf', args: [address] }) as bigint
  }
  return await reader.readContract({ address: CONTRACTS.conditionalTokens as Address,
    abi: artifactOf('ConditionalTokens').abi, functionName: 'balanceOf', args: [address, BigInt(tokenId)] }) as bigint
}

async function confirmedTrades(client: PredexClient, count: number) {
  return until(() => client.trades(), (page) => page.data.length >= count && page.data.every((tr) =>
    tr.status === 'CONFIRMED'), `${count} trades CONFIRMED`)
}

ensureBuilt()

t.test('trades settle on chain: MATCHED, MINED, CONFIRMED; chain and API agree; a restart sends nothing again', async (t) => {
  const node = await startPredex(t, ARGS)
  const rpcUrl = ((await (await fetch(`${node.base}/health`)).json()) as { chain: { rpc_url: string } }).chain.rpc_url
  const admin = new PredexClient({ baseUrl: node.base, adminKey: ADMIN_KEY })
  const market = await admin.createMarket({ question: 'Will this trade settle on chain?' })
  const reader = createPublicClient({ transport: http(rpcUrl) })
  t.equal(await reader.readContract({ address: CONTRACTS.conditionalTokens as Address,
    abi: artifactOf('ConditionalTokens').abi, functionName: 'getOutcomeSlotCount', args: [market.condition_id as Hex] }),
  2n, 'the market is a prepared condition of the Conditional Tokens')
  const [alice, bob] = [await trader(node, rpcUrl), await trader(node, rpcUrl)]

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

  // A normal trade: alice sells 5 of her Yes at 0.70 to bob.
  await alice.client.placeLimitOrder({ tokenId: market.yes_token_id, side: 'SELL', price: '0.70', size: '5' })
  await bob.client.placeLimitOrder({ tokenId: market.yes_token_id, side: 'BUY', price: '0.70', size: '5' })
  await confirmedTrades(bob.client, 2)
  await confirmedTrades(alice.client, 2)

  // alice: 100 - 6 + 3.50 = 97.50 USDC, 5 Yes; bob: 100 - 4 - 3.50 = 92.50 USDC, 5 Yes, 10 No.
  const expected: [Trader, bigint, bigint, bigint][] = [[alice, 97_500_000n, 5_000_000n, 0n],
    [bob, 92_500_000n, 5_000_000n, 10_000_000n]]
  for (const [who, usdc, yes, no] of expected) {
    t.equal(await onChain(rpcUrl, who.address, null), usdc, 'USDC on chain')
    t.equal(await onChain(rpcUrl, who.address, market.yes_token_id), yes, 'Yes on chain')
    t.equal(await onChain(rpcUrl, who.address, market.no_token_id), no, 'No on chain')
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
  const newRpc = ((await (await fetch(`${again.base}/health`)).json()) as { chain: { rpc_url: string } }).chain.rpc_url
  t.equal(await onChain(newRpc, bob.address, null), 92_500_000n, 'nothing was settled twice')
})
