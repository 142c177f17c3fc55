/**
 * Users' public data (GET /users/:address/...), as a block explorer shows it: profile, the
 * portfolio history, balances and the ledger's events. Nothing private (no API keys).
 */
import type { Address, Decimal, Hash, IsoTime, Outcome, SignedDecimal, TokenId } from './vocabulary.js'

/** GET /users/:address. */
export type UserProfile = {
  readonly address: Address
  /** The first order, trade or ledger event; null: never seen. */
  readonly first_seen: IsoTime | null
  readonly trades_count: number
  /** USDC traded, as taker or maker, at the user's own price. */
  readonly volume: Decimal
  readonly markets_traded: number
  /** USDC, by average cost per token (src/read/portfolio.ts). */
  readonly realized_pnl: SignedDecimal
  readonly open_orders_count: number
}

export type MilestoneKind = 'buy' | 'sell' | 'mint' | 'merge' | 'redemption' | 'deposit' | 'reversal'

/** A position-changing event of the portfolio history. */
export type Milestone = {
  readonly time: IsoTime
  readonly kind: MilestoneKind
  /** null for deposits. */
  readonly market_id: string | null
  /** The token bought, sold or moved back; null for deposits, mints, merges and redemptions (both tokens). */
  readonly token_id: TokenId | null
  readonly shares: Decimal
  /** USDC per share of a buy or sell; null otherwise. */
  readonly price: Decimal | null
  readonly usdc_delta: SignedDecimal
  readonly usdc_balance: SignedDecimal
  /** Token id -> shares held after this milestone (non-zero ones). */
  readonly positions: Readonly<Record<TokenId, SignedDecimal>>
  /**
   * The builtin network's: the command's. On a real chain: a ledger milestone's fact's, a trade's
   * settlement transaction ('' with block 0 while it has none: not sent yet, or FAILED; and for a
   * reversal).
   */
  readonly transaction_hash: Hash
  readonly block_number: number
}

/**
 * GET /users/:address/portfolio-history: a page of it, oldest first (GET .../activity pages it
 * newest first), as the other users lists page (`limit`, `count`, `next_cursor`), its items under
 * `milestones`. A page also stops before PORTFOLIO_PAGE_ENTRIES_MAX milestones and positions.
 */
export type PortfolioHistory = {
  readonly address: Address
  /** The page size asked for (default 100, at most 500). */
  readonly limit: number
  /** Milestones on this page. */
  readonly count: number
  /** The cursor of the next page; "LTE=" after the last. */
  readonly next_cursor: string
  readonly milestones: readonly Milestone[]
}

export type UserTokenBalance = {
  readonly token_id: TokenId
  /** null: a token of no known market. */
  readonly market_id: string | null
  readonly outcome: Outcome | null
  readonly shares: Decimal
  /** Shares open sell orders hold. */
  readonly held: Decimal
}

/** GET /users/:address/balances, exact, from the engine. */
export type UserBalances = {
  readonly address: Address
  readonly usdc: Decimal
  /** USDC open buy orders hold. */
  readonly usdc_held: Decimal
  readonly tokens: readonly UserTokenBalance[]
}

/** Items of GET /users/:address/events and /redemptions: one ledger operation as an on-chain event. */
export type LedgerEvent = {
  readonly transaction_hash: Hash
  readonly block_number: number
  /** Its place among the events of its transaction. */
  readonly log_index: number
  readonly action: 'credit' | 'approve' | 'split' | 'merge' | 'redeem'
  readonly address: Address
  /** null for credits and approvals. */
  readonly market_id: string | null
  readonly condition_id: Hash | null
  /** credit: USDC; approve: the USDC allowance; split/merge: full sets; redeem: shares burned. */
  readonly amount: Decimal
  /** credit: test gas; redeem: USDC paid out; otherwise "0". */
  readonly payout: Decimal
  readonly timestamp: IsoTime
}
