/**
 * A reorg shallower than the confirmations changes nothing the ledger has (issue 35 point 6), on a
 * real server process with `--chain local`: a transfer mined in the newest block is dropped by
 * anvil_reorg before it has CHAIN_CONFIRMATIONS blocks on top; the ledger never counted it, and
 * once blocks go on the ledger and the chain agree. A transfer that does get its confirmations is
 * mirrored, so the test shows the ledger follows, not that it stopped. Bounded: every wait has a
 * deadline.
 */
import t from 'tap'
import { createPublicClient, createWalletClient, http, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { artifactOf } from '../../src/chain/artifacts.js'
import { CHAIN_CONFIRMATIONS } from '../../src/limits.js'
import { ensureBuilt } from '../support/compiled.js'
import { CONTRACTS, rpcUrlOf, viemChainOf, waitUntil as until } from '../support/chain-server.js'
import { startPredex, type PredexProcess } from '../support/predex-process.js'

const BLOCK_MS = 600

async function usdcInApi(node: PredexProcess, address: string): Promise<string> {
  const response = await fetch(`${node.base}/wallet-status?address=${address}`)
  return ((await response.json()) as { usdc_balance: string }).usdc_balance
}

ensureBuilt()

t.test('a transfer dropped by a reorg within the confirmations never reaches the ledger', async (t) => {
  const node = await startPredex(t, ['--chain', 'local', '--chain-block-ms', String(BLOCK_MS), '--faucet-cooldown', '0'])
  const rpcUrl = await rpcUrlOf(node)
  const chain = viemChainOf(rpcUrl)
  const reader = createPublicClient({ transport: http(rpcUrl), chain, pollingInterval: 50 })
  const key: Hex = generatePrivateKey()
  const alice = privateKeyToAccount(key).address
  const bob = privateKeyToAccount(generatePrivateKey()).address
  const faucet = await fetch(`${node.base}/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address: alice, amount: '100' }) })
  t.equal(faucet.status, 200)
  const wallet = createWalletClient({ transport: http(rpcUrl), account: privateKeyToAccount(key), chain })
  const usdc = { address: CONTRACTS.collateral as Address, abi: artifactOf('TestUSDC').abi }
  const balanceOnChain = async (address: Address) =>
    await reader.readContract({ ...usdc, functionName: 'balanceOf', args: [address] }) as bigint

  const dropped = await wallet.writeContract({ ...usdc, functionName: 'transfer', args: [bob, 30_000_000n] })
  const receipt = await reader.waitForTransactionReceipt({ hash: dropped })
  const head = await reader.getBlockNumber({ cacheTime: 0 })
  t.ok(head - receipt.blockNumber < BigInt(CHAIN_CONFIRMATIONS), `mined in the newest blocks (${receipt.blockNumber} of ${head})`)
  await reader.request({ method: 'anvil_reorg' as never, params: [Number(head - receipt.blockNumber + 1n), []] as never })
  t.equal(await balanceOnChain(bob), 0n, 'the reorg dropped the transfer')

  const kept = await wallet.writeContract({ ...usdc, functionName: 'transfer', args: [bob, 5_000_000n] })
  await reader.waitForTransactionReceipt({ hash: kept })
  await until(() => usdcInApi(node, bob), (balance) => balance !== '0', 'the kept transfer is mirrored')
  t.equal(await usdcInApi(node, bob), '5', 'the ledger has the kept transfer and never had the dropped one')
  t.equal(await usdcInApi(node, alice), '95')
  t.equal(await balanceOnChain(bob), 5_000_000n, 'as the chain')
  t.equal(await balanceOnChain(alice), 95_000_000n)
})
