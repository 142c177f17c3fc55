/**
 * Splits, merges and redemptions a wallet sends to the Conditional Tokens itself (issue 35 point
 * 3), on a real server process with `--chain local`: each reaches the ledger once confirmed, as
 * the relay's would (full sets, USDC, the user's ledger events), with nothing left unmirrored;
 * resolving a market through the admin API reports its outcome on chain as the oracle, so the
 * wallet can redeem there, and the ledger pays the winning token only. Chain and API agree on every
 * balance after each step. Bounded: every wait has a deadline.
 */
import t from 'tap'
import { createPublicClient, createWalletClient, http, maxUint256, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { artifactOf } from '../../src/chain/artifacts.js'
import { PredexClient } from '../../src/client/predex-client.js'
import { ensureBuilt } from '../support/compiled.js'
import { chainTrader, CONTRACTS, rpcUrlOf, tokensOnChain, usdcOnChain, viemChainOf, waitUntil }
  from '../support/chain-server.js'
import { startPredex } from '../support/predex-process.js'

const ADMIN_KEY = 'ctf-operations-test-admin-key-0123456789'
const ARGS = ['--chain', 'local', '--chain-block-ms', '100', '--faucet-cooldown', '0', '--admin-key', ADMIN_KEY]
const NO_PARENT = `0x${'00'.repeat(32)}` as Hex
const USDC = 1_000_000n

ensureBuilt()

t.test('split, merge and redeem sent to the Conditional Tokens reach the ledger; resolution is reported on chain', async (t) => {
  const node = await startPredex(t, ARGS)
  const rpcUrl = await rpcUrlOf(node)
  const admin = new PredexClient({ baseUrl: node.base, adminKey: ADMIN_KEY })
  const market = await admin.createMarket({ question: 'Will the ledger follow a split sent on chain?' })
  const [yes, no] = [market.tokens[0]!.token_id, market.tokens[1]!.token_id]
  const alice = await chainTrader(node)
  const wallet = createWalletClient({ transport: http(rpcUrl), account: privateKeyToAccount(alice.key),
    chain: viemChainOf(rpcUrl) })
  const reader = createPublicClient({ transport: http(rpcUrl) })
  const ctf = { address: CONTRACTS.conditionalTokens as Address, abi: artifactOf('ConditionalTokens').abi }
  const send = async (hash: Promise<Hex>): Promise<void> => {
    t.equal((await reader.waitForTransactionReceipt({ hash: await hash })).status, 'success')
  }
  const condition = market.condition_id as Hex

  /** The API's balances, once they are `usdc`, `yesMicros` and `noMicros`; then the chain's must be the same. */
  const agree = async (usdc: bigint, yesMicros: bigint, noMicros: bigint, what: string): Promise<void> => {
    const tokenOf = (b: { tokens: readonly { token_id: string; shares: string }[] }, id: string) =>
      b.tokens.find((tk) => tk.token_id === id)?.shares ?? '0'
    const decimal = (micros: bigint) => (micros / USDC).toString() // whole USDC here
    await waitUntil(() => alice.client.userBalances(), (b) => b.usdc === decimal(usdc) &&
      tokenOf(b, yes) === decimal(yesMicros) && tokenOf(b, no) === decimal(noMicros), `${what}: the API's balances`)
    t.strictSame([await usdcOnChain(rpcUrl, alice.address), await tokensOnChain(rpcUrl, alice.address, yes),
      await tokensOnChain(rpcUrl, alice.address, no)], [usdc, yesMicros, noMicros], `${what}: the chain agrees`)
  }

  await send(wallet.writeContract({ address: CONTRACTS.collateral as Address, abi: artifactOf('TestUSDC').abi,
    functionName: 'approve', args: [CONTRACTS.conditionalTokens as Address, maxUint256] }))
  await send(wallet.writeContract({ ...ctf, functionName: 'splitPosition',
    args: [CONTRACTS.collateral as Address, NO_PARENT, condition, [1n, 2n], 10n * USDC] }))
  await agree(90n * USDC, 10n * USDC, 10n * USDC, 'split 10')
  await send(wallet.writeContract({ ...ctf, functionName: 'mergePositions',
    args: [CONTRACTS.collateral as Address, NO_PARENT, condition, [2n, 1n], 3n * USDC] }))
  await agree(93n * USDC, 7n * USDC, 7n * USDC, 'merge 3')

  const resolved = await admin.resolveMarket(market.id, 'No')
  t.equal(resolved.status, 'Resolved')
  t.equal(await reader.readContract({ ...ctf, functionName: 'payoutDenominator', args: [condition] }), 1n,
    'the outcome is reported on chain')
  t.equal(await reader.readContract({ ...ctf, functionName: 'payoutNumerators', args: [condition, 1n] }), 1n, 'No pays')
  t.equal((await admin.resolveMarket(market.id, 'No')).status, 'Resolved',
    'resolving again with the same outcome is harmless (it is how a failed report is sent again)')
  await send(wallet.writeContract({ ...ctf, functionName: 'redeemPositions',
    args: [CONTRACTS.collateral as Address, NO_PARENT, condition, [1n, 2n]] }))
  await agree(100n * USDC, 0n, 0n, 'redeem: the 7 No paid, the 7 Yes burnt')

  const events = await alice.client.userEvents()
  t.strictSame(events.data.map((e) => e.action).filter((a) => a !== 'credit' && a !== 'approve').sort(),
    ['merge', 'redeem', 'redeem', 'split'].sort(), 'the user\'s ledger events name each operation')
  const health = await (await fetch(`${node.base}/health`)).json() as { chain: { unmirrored_transactions: number } }
  t.equal(health.chain.unmirrored_transactions, 0, 'nothing left unmirrored')
})
