/**
 * A canonical, implementation-independent picture of the engine's state: what the simulation
 * compares between the engine and the reference model after a run. Everything is sorted, so two
 * equal states give deeply equal summaries whatever their internal layout.
 */
import type { MarketStatus, Outcome, Side, TimeInForce } from './command.js'

export interface ShareSummary {
  readonly tokenId: string
  readonly balanceMicros: number
  readonly heldMicros: number
}

export interface AccountSummary {
  readonly address: string
  readonly usdcMicros: number
  readonly usdcHeldMicros: number
  readonly usdcAllowanceMicros: number
  readonly sharesApproved: boolean
  readonly gasMicros: number
  /** The next relay nonce: how many relayed actions of this address succeeded. */
  readonly relayNonce: number
  /** Tokens with a non-zero balance or hold, sorted by token id. */
  readonly shares: readonly ShareSummary[]
}

export interface OpenOrderSummary {
  readonly orderNumber: number
  readonly orderId: string
  readonly maker: string
  readonly tokenId: string
  readonly side: Side
  readonly timeInForce: TimeInForce
  readonly priceMicros: number
  readonly remainingMicros: number
  readonly sizeMatchedMicros: number
  /** USDC (BUY) or shares (SELL) the order holds. */
  readonly heldMicros: number
}

export interface MarketSummary {
  readonly marketId: string
  readonly status: MarketStatus
  readonly tickSizeMicros: number
  readonly feeRateBps: number
  readonly winningOutcome: Outcome | null
  readonly collateralMicros: number
  readonly mintedMicros: number
  readonly mergedMicros: number
  readonly redeemedYesMicros: number
  readonly redeemedNoMicros: number
}

export interface StateSummary {
  readonly seq: number
  readonly timeMs: number
  readonly creditedMicros: number
  readonly feesMicros: number
  /** Accounts that ever appeared, sorted by address. */
  readonly accounts: readonly AccountSummary[]
  /** Live orders, by order number. */
  readonly openOrders: readonly OpenOrderSummary[]
  /** Markets in creation order. */
  readonly markets: readonly MarketSummary[]
  /** Every accepted order id with its status, sorted by order id. */
  readonly orderStatuses: readonly { readonly orderId: string; readonly status: string }[]
}
