/**
 * Identifiers of a new market, made by the front end (the engine draws no random numbers): a
 * UUID, a condition id (0x + 64 hex) and two token ids as decimal uint256 strings, derived with
 * keccak the way conditional-token position ids look, so clients that parse them as uint256
 * keep working. On a real chain they are the chain's: the condition prepared in the Conditional
 * Tokens (question id keccak256("predex:" + the UUID), the operator as oracle) and its two
 * position ids, registered with the exchanges (src/chain/chain-markets.ts).
 */
import { randomUUID } from 'node:crypto'
import { keccak256, keccakOfText } from '../../crypto/keccak.js'
import { concatBytes, toHex, wordOfBigInt } from '../../crypto/hex.js'
import { createChainMarket } from '../../chain/chain-markets.js'
import type { ChainClients } from '../../chain/node-chain.js'
import { onChain } from '../testnet/chain-call.js'

export interface MarketIds {
  readonly marketId: string
  readonly conditionId: string
  readonly yesTokenId: string
  readonly noTokenId: string
}

/** The question a market's condition is prepared for on a real chain. */
export function questionIdOf(marketId: string): `0x${string}` {
  return toHex(keccakOfText(`predex:${marketId}`)) as `0x${string}`
}

export function newMarketIds(): MarketIds {
  const marketId = randomUUID()
  const condition = keccakOfText(`predex:${marketId}`)
  const token = (index: number): string =>
    BigInt(toHex(keccak256(concatBytes([condition, wordOfBigInt(BigInt(index))])))).toString()
  return { marketId, conditionId: toHex(condition), yesTokenId: token(1), noTokenId: token(2) }
}

/** A new market's ids on a real chain: its condition is prepared and its tokens registered first. */
export async function newChainMarketIds(clients: ChainClients): Promise<MarketIds> {
  const marketId = randomUUID()
  const market = await onChain(() => createChainMarket(clients, questionIdOf(marketId)))
  return { marketId, conditionId: market.conditionId, yesTokenId: market.yesTokenId, noTokenId: market.noTokenId }
}
