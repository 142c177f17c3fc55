/**
 * Events: everything a client or a read model needs to follow the engine, in the order the
 * engine did it. Amounts are micro-units; prices are micro-USDC per share in the order's own
 * token. A command's per-step events come first; its aggregated `balance` and `bookLevel` events
 * come last, sorted (see docs/engine.md, "Events"). No event carries a secret.
 */
import type { Code } from './codes.js'
import type { MarketStatus, Outcome, Side, TimeInForce } from './command.js'

export type OrderStatus = 'LIVE' | 'MATCHED' | 'CANCELED'
export type MatchType = 'normal' | 'mint' | 'merge'
export type CancelReason =
  | 'owner'
  | 'cancel-all'
  | 'cancel-market'
  | 'self-trade'
  | 'expired'
  | 'market-closed'
  | 'market-resolved'
  | 'unfilled'
  /** Not an end: a live order's size lowered by its owner (amendOrder); it stays LIVE. */
  | 'amended'
  /** Cancelled by a cancel-replace, for the order that took its place. */
  | 'replaced'
  /** Cancelled because its order group triggered (its fill limits) or was deleted. */
  | 'order-group'
  /** Cancelled because the chain took what it held: the wallet's balance or allowance fell (chain-sync.ts). */
  | 'funds'

export interface OrderAccepted {
  readonly type: 'orderAccepted'
  readonly orderId: string
  readonly marketId: string
  readonly tokenId: string
  readonly outcome: Outcome
  readonly side: Side
  readonly owner: string
  readonly maker: string
  readonly signer: string
  /** Resting orders: their price. Immediate orders: the worst price they may fill at. */
  readonly priceMicros: number
  /** takerAmount for a BUY, makerAmount for a SELL. */
  readonly originalSizeMicros: number
  readonly makerAmountMicros: number
  readonly takerAmountMicros: number
  readonly timeInForce: TimeInForce
  readonly postOnly: boolean
  readonly expirationSec: number
  /** The trader's own name for the order ('' = none). */
  readonly clientOrderId: string
  readonly timeMs: number
}

export interface OrderRejected {
  readonly type: 'orderRejected'
  readonly orderId: string
  readonly maker: string
  readonly code: Code
  readonly message: string
}

/** An accepted order's state after a change: a fill, its end, or a cancel. */
export interface OrderUpdate {
  readonly type: 'orderUpdate'
  readonly orderId: string
  readonly maker: string
  readonly status: OrderStatus
  readonly sizeMatchedMicros: number
  /** Shares still resting on the book (0 once the order has ended). */
  readonly remainingMicros: number
  readonly reason: CancelReason | null
}

/** One fill: a taker order against one maker order. */
export interface Trade {
  readonly type: 'trade'
  readonly tradeId: string
  readonly marketId: string
  readonly matchType: MatchType
  readonly takerOrderId: string
  readonly takerAddress: string
  readonly takerOwner: string
  readonly tokenId: string
  readonly outcome: Outcome
  readonly side: Side
  /** In the taker's token: the maker's price seen from the taker's side. */
  readonly priceMicros: number
  readonly sizeMicros: number
  /** Paid by the taker, in USDC. */
  readonly feeMicros: number
  readonly feeRateBps: number
  readonly makerOrderId: string
  readonly makerAddress: string
  readonly makerOwner: string
  readonly makerTokenId: string
  readonly makerOutcome: Outcome
  readonly makerSide: Side
  readonly makerPriceMicros: number
  readonly timeMs: number
}

/** An account's balance of one asset after the command ('USDC' or a token id). */
export interface Balance {
  readonly type: 'balance'
  readonly address: string
  readonly asset: string
  readonly balanceMicros: number
  readonly heldMicros: number
}

export interface Allowance {
  readonly type: 'allowance'
  readonly address: string
  readonly usdcAllowanceMicros: number
  readonly sharesApproved: boolean
  /** On a real chain, the transaction that set it (chain-sync.ts); absent on the builtin network. */
  readonly chainTransaction?: ChainTransaction
}

/** A real chain's transaction a ledger change is of. */
export interface ChainTransaction {
  readonly transactionHash: string
  readonly blockNumber: number
}

/** A price level of one token's own book (no implied liquidity) after the command. */
export interface BookLevel {
  readonly type: 'bookLevel'
  readonly marketId: string
  readonly tokenId: string
  readonly side: Side
  readonly priceMicros: number
  readonly sizeMicros: number
}

export interface MarketRecord {
  readonly marketId: string
  readonly conditionId: string
  readonly question: string
  readonly slug: string
  readonly description: string
  readonly yesTokenId: string
  readonly noTokenId: string
  readonly tickSizeMicros: number
  readonly minOrderSizeMicros: number
  readonly feeRateBps: number
  readonly negRisk: boolean
  readonly endDateMs: number
  readonly status: MarketStatus
  readonly createdMs: number
  readonly winningOutcome: Outcome | null
  readonly resolvedMs: number
}

export interface MarketCreated {
  readonly type: 'marketCreated'
  readonly market: MarketRecord
}

export interface MarketUpdated {
  readonly type: 'marketUpdated'
  readonly marketId: string
  readonly status: MarketStatus
  readonly tickSizeMicros: number
  readonly feeRateBps: number
  readonly winningOutcome: Outcome | null
  /** The command time of the resolution; 0 until resolved (so read models need no clock). */
  readonly resolvedMs: number
}

export type LedgerAction = 'credit' | 'split' | 'merge' | 'redeem'

/** A ledger operation of the built-in test network. */
export interface Ledger {
  readonly type: 'ledger'
  readonly action: LedgerAction
  readonly address: string
  /** Empty for credits. */
  readonly marketId: string
  /** credit: USDC credited; split/merge: full sets; redeem: shares burned (both outcomes). */
  readonly amountMicros: number
  /** credit: gas credited; redeem: USDC paid out; otherwise 0. */
  readonly payoutMicros: number
  /** On a real chain, the transaction it is of (chain-sync.ts); absent on the builtin network. */
  readonly chainTransaction?: ChainTransaction
}

export interface ApiKeyChanged {
  readonly type: 'apiKey'
  readonly action: 'registered' | 'revoked'
  readonly apiKey: string
  readonly address: string
  readonly nonce: number
}

export type OrderGroupAction = 'created' | 'updated' | 'triggered' | 'reset' | 'deleted'

/** An order group of an API key changed (docs/engine.md, "Order groups"); `triggered` is its state after. */
export interface OrderGroupChanged {
  readonly type: 'orderGroup'
  readonly owner: string
  readonly groupId: string
  readonly action: OrderGroupAction
  readonly contractsLimitMicros: number
  readonly notionalLimitMicros: number
  readonly windowMs: number
  readonly freezeMs: number
  readonly triggered: boolean
  readonly timeMs: number
}

/** The ledger followed the chain up to `toBlock` (chain-sync.ts): `entries` facts mirrored. */
export interface ChainSynced {
  readonly type: 'chainSynced'
  readonly toBlock: number
  readonly entries: number
}

/** A trade whose settlement failed on chain, moved back in the ledger (trade-reversal.ts). */
export interface TradeReversed {
  readonly type: 'tradeReversed'
  readonly tradeId: string
  readonly marketId: string
  readonly takerAddress: string
  readonly makerAddress: string
}

export type EngineEvent =
  | OrderAccepted
  | OrderRejected
  | OrderUpdate
  | Trade
  | Balance
  | Allowance
  | BookLevel
  | MarketCreated
  | MarketUpdated
  | Ledger
  | ApiKeyChanged
  | OrderGroupChanged
  | ChainSynced
  | TradeReversed
