/**
 * The test network (docs/testnet.md): faucet credits, a wallet's balances, and the gasless relay.
 * A journaled command is a transaction: its hash and block number (src/chain/transaction.ts).
 */
import type { Address, Decimal, Hash } from './vocabulary.js'

/** POST /faucet. */
export type FaucetCredit = {
  readonly address: Address
  /** USDC. */
  readonly usdc_credited: Decimal
  /** Test gas: only the first time (an address without any), else "0". */
  readonly eth_credited: Decimal
  readonly transaction_hash: Hash
  readonly block_number: number
}

/** GET /wallet-status: decimals in human units. */
export type WalletStatus = {
  readonly address: Address
  /** Test gas. */
  readonly eth_balance: Decimal
  /** USDC. */
  readonly usdc_balance: Decimal
  /** USDC a new order may still hold: min(balance, allowance) minus what open orders hold. */
  readonly available_usdc: Decimal
  /** The exchange's USDC allowance. */
  readonly allowance: Decimal
  /** Whether the exchange may move every outcome token. */
  readonly shares_approved: boolean
  /** The next relay nonce. */
  readonly relay_nonce: number
}

/** GET /relay/nonce. */
export type RelayNonce = {
  readonly address: Address
  /** The next relay nonce (0 for a new address). */
  readonly nonce: number
}

/** POST /relay. */
export type RelayReceipt = {
  readonly transaction_hash: Hash
  readonly block_number: number
  /** Always CONFIRMED on the builtin network; on a real chain MINED while the ledger has not followed it yet. */
  readonly status: 'CONFIRMED' | 'MINED'
}
