/**
 * Identifiers of a new market, made by the front end (the engine draws no random numbers): a
 * UUID, a condition id (0x + 64 hex) and two token ids as decimal uint256 strings, derived with
 * keccak the way conditional-token position ids look, so clients that parse them as uint256
 * keep working.
 */
import { randomUUID } from 'node:crypto'
import { keccak256, keccakOfText } from '../crypto/keccak.js'
import { concatBytes, toHex, wordOfBigInt } from '../crypto/hex.js'

export interface MarketIds {
  readonly marketId: string
  readonly conditionId: string
  readonly yesTokenId: string
  readonly noTokenId: string
}

export function newMarketIds(): MarketIds {
  const marketId = randomUUID()
  const condition = keccakOfText(`predex:${marketId}`)
  const token = (index: number): string =>
    BigInt(toHex(keccak256(concatBytes([condition, wordOfBigInt(BigInt(index))])))).toString()
  return { marketId, conditionId: toHex(condition), yesTokenId: token(1), noTokenId: token(2) }
}
