/**
 * `--chain rpc` (issue 35 point 1), on a real server process: an external node (an anvil this test
 * starts and Predex does not own), Predex's contracts deployed to it by `npm run
 * deploy:contracts` from an operator key of the test's own, at addresses of their own (not the
 * ones the clients sign for). /health names the chain and its confirmations (3 here); the faucet, the relay and settlement run
 * against it: two wallets trade through the SDK and their trade is CONFIRMED, chain and API
 * agreeing, with no transaction from the wallets (the relay approves their USDC and outcome tokens).
 * Predex's exit leaves the node running. A start against the wrong chain, a contracts file that
 * names no PredexExchange, Conditional Tokens that take the relay's approvals from another
 * exchange (or Gnosis' own, which take none), or a key file others may read, is refused saying which.
 * Bounded: every wait has a deadline.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createPublicClient, createTestClient, createWalletClient, http, parseEther, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { startAnvil } from '../../src/chain/anvil-process.js'
import { artifactOf, linkedConditionalTokens } from '../../src/chain/artifacts.js'
import { exchangeAddresses } from '../../src/chain/contract-placement.js'
import type { DeploymentFile } from '../../src/chain/deployment.js'
import { PredexClient } from '../../src/client/predex-client.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { CHAINS, contractsOf } from '../../src/crypto/contracts.js'
import { ensureBuilt, ROOT } from '../support/compiled.js'
import { viemChainOf, waitUntil } from '../support/chain-server.js'
import { startPredex } from '../support/predex-process.js'

const ADMIN_KEY = 'rpc-chain-test-admin-key-0123456789'
/** Gnosis' Conditional Tokens as the package publishes them: no relay approval at all. */
const GNOSIS_CTF = JSON.parse(readFileSync(join(ROOT, 'node_modules/@gnosis.pm/conditional-tokens-contracts/build/'
  + 'contracts/ConditionalTokens.json'), 'utf8')) as { bytecode: string }
const USDC = 1_000_000n

ensureBuilt()

const dir = mkdtempSync(join(tmpdir(), 'predex-rpc-'))
const node = await startAnvil({ chainId: 80002, stateFile: join(dir, 'anvil-state.json'), blockMs: 100, stateIntervalSec: 1 })
t.teardown(async () => {
  await node.stop()
  rmSync(dir, { recursive: true, force: true })
})
const reader = createPublicClient({ transport: http(node.rpcUrl) })
const operatorKey = generatePrivateKey()
const keyFile = join(dir, 'operator-key')
writeFileSync(keyFile, operatorKey + '\n', { mode: 0o600 })
await createTestClient({ transport: http(node.rpcUrl), mode: 'anvil' })
  .setBalance({ address: privateKeyToAccount(operatorKey).address, value: parseEther('100') })
const contractsFile = join(dir, 'contracts.json')
execFileSync(process.execPath, ['dist/scripts/deploy-contracts.js', '--rpc-url', node.rpcUrl, '--chain-id', '80002',
  '--operator-key-file', keyFile, '--out', contractsFile], { cwd: ROOT, timeout: 60_000 })
const deployed = JSON.parse(readFileSync(contractsFile, 'utf8')) as DeploymentFile
const ARGS = ['--chain', 'rpc', '--chain-rpc-url', node.rpcUrl, '--chain-contracts', contractsFile,
  '--chain-operator-key-file', keyFile, '--chain-block-ms', '100', '--chain-confirmations', '3', '--faucet-cooldown', '0',
  '--admin-key', ADMIN_KEY, '--rate-limits', 'false']

t.test('the contracts are deployed where the chain put them, not at the addresses orders are signed for', async (t) => {
  const signedFor = Object.values(CHAINS[80002]!).map((a) => String(a).toLowerCase())
  for (const address of Object.values(deployed)) {
    t.notOk(signedFor.includes(address), `${address} is an address of its own`)
    t.not(await reader.getCode({ address: address as Address }), undefined, `${address} has code`)
  }
})

t.test('faucet, relay and settlement run against the external chain; a trade is CONFIRMED, chain and API agreeing', async (t) => {
  const predex = await startPredex(t, ARGS)
  const health = await (await fetch(`${predex.base}/health`)).json() as { chain: Record<string, unknown> }
  t.match(health.chain, { kind: 'rpc', rpc_url: node.rpcUrl, chain_id: 80002, head_block: Number, confirmations: 3,
    rpc_error: null })
  const admin = new PredexClient({ baseUrl: predex.base, adminKey: ADMIN_KEY })
  const market = await admin.createMarket({ question: 'Does Predex trade on an external chain?' })
  const [alice, bob] = [await trader(predex.base), await trader(predex.base)]
  await alice.client.placeLimitOrder({ tokenId: market.tokens[0]!.token_id, side: 'BUY', price: '0.6', size: '10' })
  await bob.client.placeLimitOrder({ tokenId: market.tokens[1]!.token_id, side: 'BUY', price: '0.4', size: '10' })
  const [trade] = (await waitUntil(() => bob.client.trades(), (page) => page.data.length === 1 &&
    page.data[0]!.status === 'CONFIRMED', 'the trade is CONFIRMED')).data
  const receipt = await reader.getTransactionReceipt({ hash: trade!.transaction_hash as Hex })
  t.equal(receipt.to?.toLowerCase(), deployed.settler, 'settled through the deployed exchange')
  for (const [who, tokenId, usdcLeft] of [[alice, market.tokens[0]!.token_id, 94n], [bob, market.tokens[1]!.token_id, 96n]] as const) {
    t.equal(await balanceOf('TestUSDC', deployed.collateral, [who.address]), usdcLeft * USDC, 'USDC on chain')
    t.equal(await balanceOf('ConditionalTokens', deployed.conditionalTokens, [who.address, BigInt(tokenId)]), 10n * USDC,
      'the minted tokens on chain')
    t.equal((await who.client.walletStatus()).usdc_balance, String(usdcLeft), 'the API agrees')
  }
  predex.child.kill('SIGTERM')
  await predex.exited
  t.ok(await reader.getBlockNumber() > 0n, 'the node Predex does not own still runs after its exit')
})

t.test('a wrong chain, contracts that are not Predex\'s, or a key file others may read: refused at start, saying which',
  async (t) => {
  const without = (flag: string) => ARGS.filter((_, i) => ARGS[i] !== flag && ARGS[i - 1] !== flag)
  await t.rejects(startPredex(t, [...ARGS, '--chain-id', '137']), /is chain 80002, not --chain-id 137/)
  const notAnExchange = join(dir, 'not-an-exchange.json')
  writeFileSync(notAnExchange, JSON.stringify({ ...deployed, settler: deployed.collateral }))
  await t.rejects(startPredex(t, [...without('--chain-contracts'), '--chain-contracts', notAnExchange]),
    /is not a PredexExchange/)
  const openKey = join(dir, 'open-key')
  writeFileSync(openKey, operatorKey, { mode: 0o644 })
  await t.rejects(startPredex(t, [...without('--chain-operator-key-file'), '--chain-operator-key-file', openKey]),
    /others may read it/)
  const otherKey = join(dir, 'other-key')
  writeFileSync(otherKey, generatePrivateKey(), { mode: 0o600 })
  await t.rejects(startPredex(t, [...without('--chain-operator-key-file'), '--chain-operator-key-file', otherKey]),
    /operator is 0x[0-9a-f]{40}, not 0x[0-9a-f]{40} \(the key of --chain-operator-key-file\)/)
  for (const [what, ctfCode, refusal] of [
    ['take the relay\'s approvals from another exchange', linkedConditionalTokens(`0x${'ab'.repeat(20)}`).bytecode,
      /relay exchange is 0x(ab){20}, not/],
    ['are Gnosis\' own, which take none', GNOSIS_CTF.bytecode as Hex, /relayExchange\(\) does not answer/],
  ] as const) {
    const file = join(dir, `ctf-${what.length}.json`)
    writeFileSync(file, JSON.stringify(await withConditionalTokens(ctfCode)))
    await t.rejects(startPredex(t, [...without('--chain-contracts'), '--chain-contracts', file]), refusal,
      `Conditional Tokens that ${what}`)
  }
})

/**
 * The deployment with Conditional Tokens of `code` and an exchange of its own naming them: the
 * exchange's checks pass, so the start reaches the Conditional Tokens'.
 */
async function withConditionalTokens(code: Hex): Promise<DeploymentFile> {
  const operator = createWalletClient({ transport: http(node.rpcUrl), account: privateKeyToAccount(operatorKey),
    chain: viemChainOf(node.rpcUrl) })
  const created = async (hash: Hex): Promise<string> =>
    (await reader.waitForTransactionReceipt({ hash })).contractAddress!.toLowerCase()
  const ctf = await created(await operator.deployContract({ abi: artifactOf('ConditionalTokens').abi, bytecode: code }))
  const exchange = artifactOf('PredexExchange')
  const settler = await created(await operator.deployContract({ abi: exchange.abi, bytecode: exchange.bytecode,
    args: [deployed.collateral as Address, ctf as Address, operator.account.address,
      exchangeAddresses(contractsOf(80002))] }))
  return { ...deployed, conditionalTokens: ctf, settler }
}

interface Trader {
  readonly client: PredexClient
  readonly address: Address
}

/** A wallet funded by the faucet, its USDC and outcome tokens approved by one relayed message. */
async function trader(base: string): Promise<Trader> {
  const key = generatePrivateKey()
  const address = privateKeyToAccount(key).address
  const client = new PredexClient({ baseUrl: base, wallet: new Wallet(key) })
  await client.faucet('100')
  await client.approve(2n ** 256n - 1n)
  await waitUntil(() => client.walletStatus(), (w) => w.shares_approved, 'the tokens\' approval reaches the ledger')
  await client.createApiKey()
  return { client, address }
}

async function balanceOf(name: 'TestUSDC' | 'ConditionalTokens', address: string, args: readonly unknown[]): Promise<bigint> {
  return await reader.readContract({ address: address as Address, abi: artifactOf(name).abi, functionName: 'balanceOf',
    args: args as never }) as bigint
}
