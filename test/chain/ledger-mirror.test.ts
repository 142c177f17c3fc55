/**
 * The ledger follows the chain (issue 35 points 3 and 5) on a real server process with
 * `--chain local`: the faucet mints test USDC and sends test ETH as transactions, and its answer
 * comes once the ledger has the mint; an approval and a transfer sent from the wallet itself reach
 * /wallet-status once confirmed; the chain and the API agree on every balance; a restart on the
 * same data directory keeps them and counts no block twice. Bounded: every wait has a deadline.
 */
import t from 'tap'
import { createWalletClient, http, maxUint256, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { artifactOf } from '../../src/chain/artifacts.js'
import { ensureBuilt } from '../support/compiled.js'
import { CONTRACTS, usdcOnChain, viemChainOf, waitUntil as until } from '../support/chain-server.js'
import { startPredex, type PredexProcess } from '../support/predex-process.js'

const ARGS = ['--chain', 'local', '--chain-block-ms', '100', '--faucet-cooldown', '0']
const WAIT_MS_MAX = 15_000

interface Health {
  readonly chain: { rpc_url: string; head_block: number; synced_block: number; unmirrored_transactions: number;
    mirror_error: string | null }
}

interface WalletStatus {
  readonly usdc_balance: string
  readonly eth_balance: string
  readonly allowance: string
}

async function call<T>(node: PredexProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${node.base}${path}`, { method, headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(WAIT_MS_MAX + 5_000) })
  return { status: response.status, body: await response.json() as T }
}

async function walletOf(node: PredexProcess, address: string): Promise<WalletStatus> {
  return (await call<WalletStatus>(node, 'GET', `/wallet-status?address=${address}`)).body
}

ensureBuilt()

t.test('faucet, approval and transfer on chain reach the ledger; a restart keeps them, counting no block twice', async (t) => {
  const node = await startPredex(t, ARGS)
  const health = (await call<Health>(node, 'GET', '/health')).body
  const rpcUrl = health.chain.rpc_url
  const key: Hex = generatePrivateKey()
  const alice = privateKeyToAccount(key).address.toLowerCase()
  const bob = privateKeyToAccount(generatePrivateKey()).address.toLowerCase()

  const funded = await call<{ transaction_hash: string; block_number: number; usdc_credited: string; eth_credited: string }>(
    node, 'POST', '/faucet', { address: alice, amount: '250' })
  t.equal(funded.status, 200, JSON.stringify(funded.body))
  t.match(funded.body.transaction_hash, /^0x[0-9a-f]{64}$/, 'a real transaction hash')
  t.equal(funded.body.eth_credited, '0.1')
  const afterFaucet = await walletOf(node, alice)
  t.equal(afterFaucet.usdc_balance, '250', 'the answer came once the ledger had the mint')
  t.equal(afterFaucet.eth_balance, '0.1', 'gas is the wallet\'s ETH on chain')
  t.equal(await usdcOnChain(rpcUrl, alice), 250_000_000n, 'the chain agrees')

  const wallet = createWalletClient({ transport: http(rpcUrl), account: privateKeyToAccount(key),
    chain: viemChainOf(rpcUrl) })
  const usdc = { address: CONTRACTS.collateral as Address, abi: artifactOf('TestUSDC').abi }
  await wallet.writeContract({ ...usdc, functionName: 'approve', args: [CONTRACTS.exchangeV2 as Address, maxUint256] })
  await wallet.writeContract({ ...usdc, functionName: 'transfer', args: [bob as Address, 50_000_000n] })
  const approved = await until(() => walletOf(node, alice), (w) => w.usdc_balance === '200', 'the transfer is mirrored')
  t.not(approved.allowance, '0', `an unlimited approval of the V2 exchange is mirrored (${approved.allowance})`)
  t.equal((await walletOf(node, bob)).usdc_balance, '50', 'bob got 50')
  const mirrored = (await call<Health>(node, 'GET', '/health')).body.chain
  t.equal(mirrored.unmirrored_transactions, 0)
  t.equal(mirrored.mirror_error, null)
  t.ok(mirrored.synced_block >= funded.body.block_number, 'the ledger follows past the faucet\'s block')

  node.child.kill('SIGTERM')
  await node.exited
  const again = await startPredex(t, ARGS, node.dataDir)
  t.strictSame([(await walletOf(again, alice)).usdc_balance, (await walletOf(again, bob)).usdc_balance], ['200', '50'],
    'the journal kept the mirrored facts')
  const newRpc = (await call<Health>(again, 'GET', '/health')).body.chain.rpc_url
  const wallet2 = createWalletClient({ transport: http(newRpc), account: privateKeyToAccount(key),
    chain: viemChainOf(newRpc) })
  await wallet2.writeContract({ ...usdc, functionName: 'transfer', args: [bob as Address, 5_000_000n] })
  await until(() => walletOf(again, bob), (w) => w.usdc_balance === '55', 'a transfer after the restart')
  t.equal((await walletOf(again, alice)).usdc_balance, '195', 'no earlier block counted twice')
  t.equal(await usdcOnChain(newRpc, alice), 195_000_000n, 'the chain agrees after the restart')
  t.equal(await usdcOnChain(newRpc, bob), 55_000_000n)
})
