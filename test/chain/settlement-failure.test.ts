/**
 * A trade whose settlement the exchange refuses ends FAILED and is moved back in the ledger (issue
 * 35), on a real server process with `--chain local`. The seller's sell rests; then, in a block the
 * ledger has not followed (anvil's mining is stopped so that the block stays below the
 * confirmations), the seller revokes the exchange's approval of its outcome tokens; a buyer
 * crosses the sell, the engine matches, and settlement's simulation against the chain's newest
 * block is refused. The trade is FAILED for both parties, and every balance the API reports for
 * both wallets (USDC, Yes, No) is the chain's: at once, before the mirror follows the revocation
 * (the trade's reversal did it), and again once it has. Before the reversal the buyer kept in the
 * API the shares the chain never gave it. Deterministic: no block is mined but those the test
 * mines while the trade settles. Bounded: every wait has a deadline; mining is resumed whatever
 * happens.
 */
import t, { type Test } from 'tap'
import { createPublicClient, createTestClient, createWalletClient, http, parseUnits, type Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { artifactOf } from '../../src/chain/artifacts.js'
import { PredexClient } from '../../src/client/predex-client.js'
import { CHAIN_CONFIRMATIONS } from '../../src/limits.js'
import { ensureBuilt } from '../support/compiled.js'
import { chainTrader, CONTRACTS, rpcUrlOf, tokensOnChain, usdcOnChain, viemChainOf, waitUntil, type ChainTrader }
  from '../support/chain-server.js'
import { startPredex } from '../support/predex-process.js'

const ADMIN_KEY = 'settlement-failure-test-admin-key-0123'
const ARGS = ['--chain', 'local', '--chain-block-ms', '100', '--faucet-cooldown', '0', '--admin-key', ADMIN_KEY,
  '--rate-limits', 'false']
/** What interval mining resumes at: anvil's evm_setIntervalMining takes whole seconds, so not the 100 ms it had. */
const RESUMED_BLOCK_SEC = 1
const USDC = 1_000_000

interface Tokens {
  readonly yes: string
  readonly no: string
}

/** The wallet's [USDC, Yes, No] in micro-units, as each endpoint that reports them says, and on chain. */
async function balancesOf(rpcUrl: string, trader: ChainTrader, { yes, no }: Tokens) {
  const { client, address } = trader
  const micros = (decimal: string) => Number(parseUnits(decimal, 6))
  const user = await client.userBalances()
  const shares = (tokenId: string) => user.tokens.find((tk) => tk.token_id === tokenId)?.shares ?? '0'
  return {
    balanceAllowance: [(await client.balanceAllowance('COLLATERAL')).balance,
      (await client.balanceAllowance('CONDITIONAL', yes)).balance,
      (await client.balanceAllowance('CONDITIONAL', no)).balance].map(Number),
    users: [micros(user.usdc), micros(shares(yes)), micros(shares(no))],
    walletStatus: micros((await client.walletStatus()).usdc_balance),
    chain: [await usdcOnChain(rpcUrl, address), await tokensOnChain(rpcUrl, address, yes),
      await tokensOnChain(rpcUrl, address, no)].map(Number),
  }
}

/** Waits until every balance the API reports for the wallet is the chain's, and that they are `expected`. */
async function agree(t: Test, rpcUrl: string, trader: ChainTrader, tokens: Tokens, expected: number[],
  what: string): Promise<void> {
  const balances = await waitUntil(() => balancesOf(rpcUrl, trader, tokens), (b) =>
    [...b.balanceAllowance, ...b.users, b.walletStatus].join() === [...b.chain, ...b.chain, b.chain[0]].join(),
  `${what}: the API's balances are the chain's`, 15_000).catch((error: unknown) => {
    t.fail(String(error))
    return balancesOf(rpcUrl, trader, tokens)
  })
  t.strictSame(balances.chain, expected, `${what}: the chain`)
  t.strictSame(balances.balanceAllowance, expected, `${what}: /balance-allowance`)
  t.strictSame(balances.users, expected, `${what}: /users/:address/balances`)
  t.equal(balances.walletStatus, expected[0], `${what}: /wallet-status`)
}

async function syncedBlock(admin: PredexClient): Promise<number> {
  const { chain } = await admin.health()
  return chain.kind === 'builtin' ? 0 : chain.synced_block ?? 0
}

ensureBuilt()

t.test('a trade the exchange refuses is FAILED for both parties; the ledger is moved back to the chain', async (t) => {
  const node = await startPredex(t, ARGS)
  const rpcUrl = await rpcUrlOf(node)
  const chain = viemChainOf(rpcUrl)
  const anvil = createTestClient({ mode: 'anvil', transport: http(rpcUrl), chain })
  const reader = createPublicClient({ transport: http(rpcUrl), chain })
  const admin = new PredexClient({ baseUrl: node.base, adminKey: ADMIN_KEY })
  const market = await admin.createMarket({ question: 'Will the exchange refuse this trade?' })
  const tokens = { yes: market.yes_token_id, no: market.no_token_id }
  const [seller, buyer] = await Promise.all([chainTrader(node), chainTrader(node)])
  await seller.client.split(market.condition_id, 10 * USDC)
  await waitUntil(() => seller.client.walletStatus(), (w) => w.shares_approved, 'the seller\'s tokens approved')
  const resting = await seller.client.placeLimitOrder({ tokenId: tokens.yes, side: 'SELL', price: '0.50', size: '10' })
  t.equal(resting.status, 'live', 'the seller\'s sell rests')

  let revokedBlock = 0
  try {
    // From here no block is mined but the one the test mines: the revocation's, below the confirmations.
    await anvil.setIntervalMining({ interval: 0 })
    await anvil.setAutomine(false)
    const wallet = createWalletClient({ transport: http(rpcUrl), account: privateKeyToAccount(seller.key), chain })
    const revocation = await wallet.writeContract({ address: CONTRACTS.conditionalTokens as Address,
      abi: artifactOf('ConditionalTokens').abi, functionName: 'setApprovalForAll',
      args: [CONTRACTS.exchange as Address, false] })
    await anvil.mine({ blocks: 1 })
    const receipt = await reader.getTransactionReceipt({ hash: revocation })
    t.equal(receipt.status, 'success', 'the revocation is on chain')
    revokedBlock = Number(receipt.blockNumber)
    t.ok(await syncedBlock(admin) < revokedBlock, 'the ledger has not followed it')
    t.equal((await seller.client.walletStatus()).shares_approved, true, 'so the ledger still has the approval')

    const crossing = await buyer.client.placeLimitOrder({ tokenId: tokens.yes, side: 'BUY', price: '0.50', size: '10' })
    t.equal(crossing.status, 'matched', 'the engine matches the buy with the resting sell')
    for (const [who, trader] of [['buyer', buyer], ['seller', seller]] as const) {
      const page = await waitUntil(() => trader.client.trades(), (p) => p.data.length === 1 &&
        p.data[0]!.status === 'FAILED', `the ${who}'s trade FAILED`, 15_000)
      t.equal(page.data[0]!.transaction_hash, '', `the ${who}'s trade: no settlement transaction was sent`)
    }
    // The ledger agrees with the chain before it follows the revocation: the trade's reversal, not the mirror.
    await agree(t, rpcUrl, buyer, tokens, [100 * USDC, 0, 0], 'the buyer, before the mirror follows')
    await agree(t, rpcUrl, seller, tokens, [90 * USDC, 10 * USDC, 10 * USDC], 'the seller, before the mirror follows')
    t.ok(await syncedBlock(admin) < revokedBlock, 'still below the confirmations')
  } finally {
    await anvil.setIntervalMining({ interval: RESUMED_BLOCK_SEC })
    await anvil.mine({ blocks: CHAIN_CONFIRMATIONS }) // the confirmations at once, not a block time each
  }

  await waitUntil(() => syncedBlock(admin), (synced) => synced >= revokedBlock, 'the mirror follows the revocation',
    15_000)
  t.equal((await seller.client.walletStatus()).shares_approved, false, 'the ledger has the revocation')
  await agree(t, rpcUrl, buyer, tokens, [100 * USDC, 0, 0], 'the buyer, once the mirror followed')
  await agree(t, rpcUrl, seller, tokens, [90 * USDC, 10 * USDC, 10 * USDC], 'the seller, once the mirror followed')
  for (const trader of [buyer, seller]) {
    t.strictSame((await trader.client.trades()).data.map((tr) => tr.status), ['FAILED'], 'still FAILED')
  }
  t.notMatch(node.output(), /"level":(50|60)/, 'no error in the server\'s log')
})
