/**
 * The contract suites' stage on a real chain (test/support/rest-harness.ts with `chain: 'local'`): what
 * the builtin stage does with engine commands (credit, approve, split, a new market, a
 * resolution), done on the chain, as a wallet and the operator would, and awaited until the
 * ledger has followed it. It is the stage, not the play: anvil's own calls give wallets gas, and
 * each wallet the stage made signs its own transactions with its key.
 */
import { createTestClient, createWalletClient, http, maxUint256, parseEther, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { artifactOf } from '../../src/chain/artifacts.js'
import { waitForSuccess } from '../../src/chain/chain-markets.js'
import { settlerOf } from '../../src/chain/exchange-orders.js'
import type { ChainClients } from '../../src/chain/node-chain.js'
import { Wallet } from '../../src/crypto/wallet.js'
import type { Outcome } from '../../src/engine/command.js'
import { resolveMarket } from '../../src/service/admin/admin.js'
import type { ServiceContext } from '../../src/service/context.js'
import { newChainMarketIds, type MarketIds } from '../../src/service/market-data/market-ids.js'
import { viemChainOf } from './chain-server.js'

const MIRROR_WAIT_MS_MAX = 30_000
const NO_PARENT = `0x${'00'.repeat(32)}` as Hex

export class ChainStage {
  private readonly keys = new Map<string, Hex>()
  private readonly clients: ChainClients
  private readonly rpcUrl: string

  constructor(private readonly context: ServiceContext) {
    if (context.chain.clients === null) throw new Error('the chain stage needs a real chain')
    this.clients = context.chain.clients
    this.rpcUrl = context.chain.status().rpcUrl!
  }

  /** A new wallet whose key the stage keeps. Like any new address it has nothing, not even gas. */
  wallet(): Wallet {
    const key = generatePrivateKey()
    this.keys.set(privateKeyToAccount(key).address.toLowerCase(), key)
    return new Wallet(key)
  }

  /** The operator mints `usdcMicros` of test USDC to `address`. */
  async credit(address: string, usdcMicros: number): Promise<void> {
    await this.sent([await this.clients.operator.writeContract({ address: this.clients.contracts.collateral as Address,
      abi: artifactOf('TestUSDC').abi, functionName: 'mint', args: [address as Address, BigInt(usdcMicros)] })])
  }

  /**
   * The wallet approves the settling exchange for `usdcAllowanceMicros` of its USDC (past 2^53 - 1:
   * unlimited), and for its outcome tokens when that is not 0: the builtin `approve`, as two transactions.
   */
  async approve(address: string, usdcAllowanceMicros: number): Promise<void> {
    await this.sent(await this.approvals(address, usdcAllowanceMicros))
  }

  /** A mint and the wallet's unlimited approvals, sent together and awaited once (most stages begin so). */
  async fund(address: string, usdcMicros: number): Promise<void> {
    const mint = await this.clients.operator.writeContract({ address: this.clients.contracts.collateral as Address,
      abi: artifactOf('TestUSDC').abi, functionName: 'mint', args: [address as Address, BigInt(usdcMicros)] })
    await this.sent([mint, ...await this.approvals(address, Number.MAX_SAFE_INTEGER)])
  }

  private async approvals(address: string, usdcAllowanceMicros: number): Promise<Hex[]> {
    const wallet = await this.walletOf(address)
    const amount = usdcAllowanceMicros >= Number.MAX_SAFE_INTEGER ? maxUint256 : BigInt(usdcAllowanceMicros)
    const settler = settlerOf(this.clients.contracts)
    return [
      await wallet.writeContract({ address: this.clients.contracts.collateral as Address, abi: artifactOf('TestUSDC').abi,
        functionName: 'approve', args: [settler, amount] }),
      await wallet.writeContract({ address: this.clients.contracts.conditionalTokens as Address,
        abi: artifactOf('ConditionalTokens').abi, functionName: 'setApprovalForAll', args: [settler, amount > 0n] }),
    ]
  }

  /** The wallet approves the settling exchange for its outcome tokens (its own transaction and gas); its hash. */
  async approveOutcomeTokens(address: string): Promise<Hex> {
    const wallet = await this.walletOf(address)
    const hash = await wallet.writeContract({ address: this.clients.contracts.conditionalTokens as Address,
      abi: artifactOf('ConditionalTokens').abi, functionName: 'setApprovalForAll',
      args: [settlerOf(this.clients.contracts), true] })
    await this.sent([hash])
    return hash
  }

  /** The wallet splits `amountMicros` of its USDC into both tokens of the market, in the Conditional Tokens. */
  async split(address: string, marketId: string, amountMicros: number): Promise<void> {
    const market = this.context.read.markets.get(marketId)
    if (market === undefined) throw new Error(`no market ${marketId}`)
    const wallet = await this.walletOf(address)
    const { collateral, conditionalTokens } = this.clients.contracts
    await this.sent([
      await wallet.writeContract({ address: collateral as Address, abi: artifactOf('TestUSDC').abi, functionName: 'approve',
        args: [conditionalTokens as Address, BigInt(amountMicros)] }),
      await wallet.writeContract({ address: conditionalTokens as Address, abi: artifactOf('ConditionalTokens').abi,
        functionName: 'splitPosition', args: [collateral as Address, NO_PARENT, market.conditionId as Hex, [1n, 2n],
          BigInt(amountMicros)] }),
    ])
  }

  /** A new market's ids: its condition prepared on chain, its tokens registered with the exchange. */
  marketIds(): Promise<MarketIds> {
    return newChainMarketIds(this.clients)
  }

  /** Resolves as the admin API does: the engine, then the outcome reported on chain. */
  async resolve(marketId: string, outcome: Outcome): Promise<void> {
    await resolveMarket(this.context, marketId, outcome)
  }

  /** The wallet's client, to send its own transactions; gas is given to a wallet that has none (anvil's call). */
  private async walletOf(address: string) {
    const key = this.keys.get(address.toLowerCase())
    if (key === undefined) throw new Error(`the stage has no key for ${address}: make the wallet with the stage`)
    const account = privateKeyToAccount(key)
    if (await this.clients.client.getBalance({ address: account.address }) === 0n) {
      await createTestClient({ transport: http(this.rpcUrl), mode: 'anvil' })
        .setBalance({ address: account.address, value: parseEther('1') })
    }
    return createWalletClient({ transport: http(this.rpcUrl), account, chain: viemChainOf(this.rpcUrl) })
  }

  /** Waits for the transactions' receipts, then until the ledger has followed their blocks. */
  private async sent(hashes: readonly Hex[]): Promise<void> {
    await waitForSuccess(this.clients, hashes)
    const receipts = await Promise.all(hashes.map((hash) => this.clients.client.getTransactionReceipt({ hash })))
    const block = Math.max(...receipts.map((receipt) => Number(receipt.blockNumber)))
    const deadline = Date.now() + MIRROR_WAIT_MS_MAX
    while ((this.context.chain.status().follower?.syncedBlock ?? 0) < block) {
      if (Date.now() > deadline) throw new Error(`the ledger did not follow block ${block} within ${MIRROR_WAIT_MS_MAX} ms`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}
