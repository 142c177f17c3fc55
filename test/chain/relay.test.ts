/**
 * The gasless relay on a real server process with `--chain local` (issue 35 point 5): the SDK's
 * approve, split, merge and redeem, unchanged from the builtin network, run as transactions of
 * the settling exchange paid by the operator; each answer comes once the ledger has followed it,
 * and the chain and the API agree on every balance after each. The relay's approve covers the USDC
 * and the outcome tokens, so the wallet's ETH never moves; a wallet that revokes its tokens'
 * approval itself is told so by merge before anything is sent, and approves again through the
 * relay. Nonces are the exchange's; a replay and a split of held USDC are refused with the
 * builtin relay's codes before anything is sent. Bounded: every wait has a deadline.
 */
import t from 'tap'
import { createPublicClient, createWalletClient, http, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { artifactOf } from '../../src/chain/artifacts.js'
import { PredexApiError } from '../../src/client/rest-transport.js'
import { PredexClient } from '../../src/client/predex-client.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { ensureBuilt } from '../support/compiled.js'
import { CONTRACTS, rpcUrlOf, tokensOnChain, usdcOnChain, viemChainOf, waitUntil } from '../support/chain-server.js'
import { startPredex } from '../support/predex-process.js'

const ADMIN_KEY = 'relay-test-admin-key-0123456789abcdef'
const ARGS = ['--chain', 'local', '--chain-block-ms', '100', '--faucet-cooldown', '0', '--admin-key', ADMIN_KEY,
  '--rate-limits', 'false']
const USDC = 1_000_000n

ensureBuilt()

t.test('approve, split, merge and redeem through the relay are the exchange\'s transactions; chain and API agree', async (t) => {
  const node = await startPredex(t, ARGS)
  const rpcUrl = await rpcUrlOf(node)
  const reader = createPublicClient({ transport: http(rpcUrl) })
  const admin = new PredexClient({ baseUrl: node.base, adminKey: ADMIN_KEY })
  const market = await admin.createMarket({ question: 'Does the relay run on chain?' })
  const condition = market.condition_id
  const [yes, no] = [market.tokens[0]!.token_id, market.tokens[1]!.token_id]
  const key: Hex = generatePrivateKey()
  const alice = new PredexClient({ baseUrl: node.base, wallet: new Wallet(key) })
  const address = privateKeyToAccount(key).address
  await alice.faucet('100')
  const eth = () => reader.getBalance({ address })
  const ethFunded = await eth()

  const agree = async (usdc: bigint, yesMicros: bigint, noMicros: bigint, what: string): Promise<void> => {
    const balances = await alice.userBalances()
    const tokenOf = (id: string) => balances.tokens.find((tk) => tk.token_id === id)?.shares ?? '0'
    t.strictSame([balances.usdc, tokenOf(yes), tokenOf(no)],
      [usdc, yesMicros, noMicros].map((micros) => (micros / USDC).toString()), `${what}: the API (already, on answer)`)
    t.strictSame([await usdcOnChain(rpcUrl, address), await tokensOnChain(rpcUrl, address, yes),
      await tokensOnChain(rpcUrl, address, no)], [usdc, yesMicros, noMicros], `${what}: the chain`)
  }

  const approved = await alice.approve(2n ** 256n - 1n)
  t.match(approved, { transaction_hash: /^0x[0-9a-f]{64}$/, status: 'CONFIRMED' })
  const receipt = await reader.getTransactionReceipt({ hash: approved.transaction_hash as Hex })
  t.equal(receipt.to?.toLowerCase(), CONTRACTS.exchange.toLowerCase(), 'a transaction to the settling exchange')
  t.equal(receipt.from.toLowerCase(), '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', 'sent (and paid) by the operator')
  const status = await alice.walletStatus()
  t.not(status.allowance, '0', 'the ledger has the allowance')
  t.equal(status.shares_approved, true, 'and the outcome tokens approved: the same message approved the exchange')
  const tokensApproved = () => reader.readContract({ address: CONTRACTS.conditionalTokens as Address,
    abi: artifactOf('ConditionalTokens').abi, functionName: 'isApprovedForAll', args: [address, CONTRACTS.exchange as Address] })
  t.equal(await tokensApproved(), true, 'on chain too')

  await alice.split(condition, 10n * USDC)
  await agree(90n * USDC, 10n * USDC, 10n * USDC, 'split 10')
  await alice.merge(condition, 3n * USDC)
  await agree(93n * USDC, 7n * USDC, 7n * USDC, 'merge 3')
  t.equal(await eth(), ethFunded, 'the wallet paid no gas for any of it')

  // A wallet may still revoke its tokens' approval itself (with the faucet's ETH): merge says so first.
  const wallet = createWalletClient({ transport: http(rpcUrl), account: privateKeyToAccount(key), chain: viemChainOf(rpcUrl) })
  await reader.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: CONTRACTS.conditionalTokens as Address,
    abi: artifactOf('ConditionalTokens').abi, functionName: 'setApprovalForAll', args: [CONTRACTS.exchange as Address, false] }) })
  await waitUntil(() => alice.walletStatus(), (w) => !w.shares_approved, 'the revocation reaches the ledger')
  const refused = await alice.merge(condition, 3n * USDC).catch((e: unknown) => e)
  t.ok(refused instanceof PredexApiError && refused.status === 400 && refused.code === 'TOKENS_NOT_APPROVED',
    'merge says the outcome tokens need the wallet\'s approval, before sending anything')
  t.match((refused as PredexApiError).body, { operator: CONTRACTS.exchange.toLowerCase() })
  const ethRevoked = await eth()
  await alice.approve(2n ** 256n - 1n)
  t.equal(await tokensApproved(), true, 'approved again through the relay')
  await admin.resolveMarket(market.id, 'Yes')
  await alice.redeem(condition)
  await agree(100n * USDC, 0n, 0n, 'redeem: 7 Yes paid 7, 7 No burnt')
  t.equal(await eth(), ethRevoked, 'no gas but the wallet\'s own revocation')

  t.equal(await alice.relayNonce(), 5, 'five messages ran: the exchange\'s nonce')
  t.equal(await reader.readContract({ address: CONTRACTS.exchange as Address, abi: artifactOf('PredexExchange').abi,
    functionName: 'relayNonces', args: [address] }), 5n)
  const actions = (await alice.userEvents()).data.map((e) => e.action).filter((a) => a !== 'credit' && a !== 'approve')
  t.strictSame(actions.sort(), ['merge', 'redeem', 'redeem', 'split'],
    'the user\'s ledger records name each operation (on chain, a redemption is one record per token burnt)')
})

t.test('refused before sending, with the builtin relay\'s codes: held USDC, a replayed nonce', async (t) => {
  const node = await startPredex(t, ARGS)
  const admin = new PredexClient({ baseUrl: node.base, adminKey: ADMIN_KEY })
  const market = await admin.createMarket({ question: 'Are held funds safe from the relay?' })
  const key: Hex = generatePrivateKey()
  const alice = new PredexClient({ baseUrl: node.base, wallet: new Wallet(key) })
  await alice.faucet('10')
  await alice.approve(10n * USDC)
  await alice.createApiKey()
  await alice.placeLimitOrder({ tokenId: market.tokens[0]!.token_id, side: 'BUY', price: '0.5', size: '10' })
  const held = await alice.split(market.condition_id, 6n * USDC).catch((e: unknown) => e)
  t.match(held, { status: 400, code: 'LEDGER_INSUFFICIENT_BALANCE', body: { asset: 'USDC', availableMicros: 5 * 1e6 } },
    'the order holds 5 of the 10: a split of 6 is refused as the engine would')
  const wallet = new Wallet(key)
  const message = { owner: wallet.address.toLowerCase(), action: 'approve', conditionId: `0x${'00'.repeat(32)}`,
    amount: '1', nonce: '0', deadline: String(Math.floor(Date.now() / 1000) + 300) }
  const replay = await fetch(`${node.base}/relay`, { method: 'POST', body: JSON.stringify({ owner: message.owner,
    action: 'approve', condition_id: message.conditionId, amount: '1', nonce: '0', deadline: message.deadline,
    signature: wallet.signRelay(message, 80002) }) })
  t.equal(replay.status, 400)
  t.match(await replay.json(), { code: 'RELAY_NONCE_MISMATCH', expected: 1, nonce: 0 })
})
