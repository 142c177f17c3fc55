/**
 * A binary market on a real chain, as Polymarket makes one: a condition prepared in the
 * Conditional Tokens contract (two outcomes, the operator as oracle), its two outcome tokens the
 * contract's position ids for index sets 1 (Yes) and 2 (No) over the test USDC, registered as
 * complements with the exchange Predex settles through, so that they settle normal, mint and
 * merge trades.
 */
import type { Address, Hex } from 'viem'
import { artifactOf } from './artifacts.js'
import { settlerOf } from './exchange-orders.js'
import type { ChainClients } from './node-chain.js'

export interface ChainMarket {
  readonly conditionId: Hex
  /** Decimal uint256 strings, as order token ids are written. */
  readonly yesTokenId: string
  readonly noTokenId: string
}

const YES_INDEX_SET = 1n
const NO_INDEX_SET = 2n
const OUTCOMES = 2n

/** The market's ids: pure functions of the contract, the operator and the question. */
export async function chainMarketIds(clients: ChainClients, questionId: Hex): Promise<ChainMarket> {
  const { client, contracts } = clients
  const ctf = { address: contracts.conditionalTokens as Address, abi: artifactOf('ConditionalTokens').abi }
  const conditionId = await client.readContract({ ...ctf, functionName: 'getConditionId',
    args: [clients.operator.account.address, questionId, OUTCOMES] }) as Hex
  const positionOf = async (indexSet: bigint): Promise<string> => {
    const collection = await client.readContract({ ...ctf, functionName: 'getCollectionId',
      args: ['0x' + '00'.repeat(32), conditionId, indexSet] }) as Hex
    const position = await client.readContract({ ...ctf, functionName: 'getPositionId',
      args: [contracts.collateral, collection] }) as bigint
    return position.toString()
  }
  return { conditionId, yesTokenId: await positionOf(YES_INDEX_SET), noTokenId: await positionOf(NO_INDEX_SET) }
}

/** Prepares the condition (once: a prepared one is left as it is) and registers its tokens. */
export async function createChainMarket(clients: ChainClients, questionId: Hex): Promise<ChainMarket> {
  const market = await chainMarketIds(clients, questionId)
  const { client, operator, contracts } = clients
  const ctf = { address: contracts.conditionalTokens as Address, abi: artifactOf('ConditionalTokens').abi }
  const slots = await client.readContract({ ...ctf, functionName: 'getOutcomeSlotCount', args: [market.conditionId] })
  const sent: Hex[] = []
  if (slots === 0n) {
    sent.push(await operator.writeContract({ ...ctf, functionName: 'prepareCondition',
      args: [operator.account.address, questionId, OUTCOMES] }))
  }
  sent.push(await operator.writeContract({ address: settlerOf(contracts), abi: artifactOf('PredexExchange').abi,
    functionName: 'registerToken', args: [BigInt(market.yesTokenId), BigInt(market.noTokenId), market.conditionId] }))
  await waitForSuccess(clients, sent)
  return market
}

/**
 * Reports the outcome as the market's oracle (the operator): Yes pays index set 1, No index set
 * 2. Once only: an outcome already reported is left as it is when it is the same, and refused
 * when it is not (a condition resolves once).
 */
export async function resolveChainMarket(clients: ChainClients, questionId: Hex, winner: 'Yes' | 'No'): Promise<void> {
  const { client, operator, contracts } = clients
  const ctf = { address: contracts.conditionalTokens as Address, abi: artifactOf('ConditionalTokens').abi }
  const { conditionId } = await chainMarketIds(clients, questionId)
  const payouts = winner === 'Yes' ? [1n, 0n] : [0n, 1n]
  const denominator = await client.readContract({ ...ctf, functionName: 'payoutDenominator', args: [conditionId] })
  if (denominator !== 0n) {
    const reported = await Promise.all([0n, 1n].map((index) => client.readContract({ ...ctf,
      functionName: 'payoutNumerators', args: [conditionId, index] }) as Promise<bigint>))
    if (reported.some((payout, i) => payout !== payouts[i])) {
      throw new Error(`condition ${conditionId} was resolved with payouts ${reported.join(',')}`)
    }
    return
  }
  await waitForSuccess(clients, [await operator.writeContract({ ...ctf, functionName: 'reportPayouts',
    args: [questionId, payouts] })])
}

/** Waits for each transaction's receipt; a reverted one throws, naming it. */
export async function waitForSuccess(clients: ChainClients, hashes: readonly Hex[]): Promise<void> {
  for (const hash of hashes) {
    const receipt = await clients.client.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`)
  }
}
