/**
 * The built-in test network's transactions. Every command the engine journals is one
 * transaction in one block: its hash is keccak256(chainId word || seq word) and its block number
 * is its seq. Both follow from the journal alone, so they are the same after a restart or a
 * replay, need no state of their own, and a client can keep a hash as a receipt. A trade's
 * settlement transaction is the command that matched it (one transaction may settle several
 * trades, as on Polymarket).
 */
import { keccak256 } from '../crypto/keccak.js'
import { concatBytes, toHex, wordOfBigInt } from '../crypto/hex.js'

export interface Transaction {
  readonly transactionHash: string
  readonly blockNumber: number
}

export function transactionOf(chainId: number, seq: number): Transaction {
  const hash = keccak256(concatBytes([wordOfBigInt(BigInt(chainId)), wordOfBigInt(BigInt(seq))]))
  return { transactionHash: toHex(hash), blockNumber: seq }
}
