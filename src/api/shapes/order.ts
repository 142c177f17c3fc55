/**
 * An order as each surface shows it: the seed's OrderInfo natively, Polymarket's OpenOrder under
 * /compat (reference section 5.3), the public form of GET /users/:address/orders (no API key),
 * and the native client listing of GET /orders.
 */
import type { Page } from './page.js'
import type { Address, Decimal, Hash, OrderStatus, Outcome, Side, TimeInForce, TokenId, UnixSecondsText }
  from './vocabulary.js'

/** The fields both surfaces share, in the order sent. */
type OrderCommon = {
  /** The order hash. */
  readonly id: Hash
  readonly status: OrderStatus
  /** The API key that placed it. */
  readonly owner: string
  readonly maker_address: Address
  readonly asset_id: TokenId
  readonly side: Side
  /** Shares. */
  readonly original_size: Decimal
  readonly size_matched: Decimal
  /** USDC per share. */
  readonly price: Decimal
  /** Trade ids, oldest first. */
  readonly associate_trades: readonly string[]
  readonly outcome: Outcome
  /** Unix seconds (a number). */
  readonly created_at: number
  readonly order_type: TimeInForce
}

/** GET /data/order/:id and items of GET /data/orders, native. */
export type NativeOrder = OrderCommon & {
  /** The market's UUID. */
  readonly market: string
  /** Unix milliseconds as a string; null: none. */
  readonly expiration: string | null
  /** The order hash again (the seed's name for it). */
  readonly order_hash: Hash
  /** Shares still open. */
  readonly size_remaining: Decimal
  /**
   * Shares resting ahead of it at its price, which fill before it (the unified book's queue: Yes
   * bids and No asks at the same Yes price share one); null once the order is not open.
   */
  readonly queue_ahead: Decimal | null
}

/** Polymarket's OpenOrder: GET /compat/data/order/:id and items of /compat/data/orders. */
export type CompatOrder = OrderCommon & {
  /** The market's condition id. */
  readonly market: Hash
  /** Unix seconds; "0": none. */
  readonly expiration: UnixSecondsText
}

/** An item of GET /users/:address/orders: API keys are never public, nor an order's place in the queue. */
export type PublicOrder = Omit<NativeOrder, 'owner' | 'queue_ahead'>

/** GET /data/orders, native: the open orders and the USDC a new order may still hold. */
export type NativeOrdersPage = Page<NativeOrder> & {
  /** USDC, a decimal as every native amount: min(balance, allowance) less what open orders hold (as /wallet-status). */
  readonly available_usdc: Decimal
}

/** An item of GET /orders (the client listing, orders of any status). */
export type ClientOrder = {
  readonly id: Hash
  readonly market_id: string
  readonly token_id: TokenId
  readonly outcome: Outcome
  readonly side: Side
  readonly price: Decimal
  /** Shares ordered. */
  readonly size: Decimal
  readonly size_remaining: Decimal
  readonly status: OrderStatus
  /** Unix seconds. */
  readonly created_at: number
}

/** GET /orders. */
export type ClientOrders = {
  readonly next_cursor: string
  readonly data: readonly ClientOrder[]
}

/** One step of POST /order/verify, in the order run: shape, ownership, market, signature, rules. */
export type VerifyCheck = {
  readonly check: 'shape' | 'ownership' | 'market' | 'signature' | 'rules'
  readonly ok: boolean
  /** "ok", or why the check failed. */
  readonly message: string
  /** The catalogue code of a failed check. */
  readonly code?: string
}

/** POST /order/verify: a dry run that places nothing. */
export type VerifyResult = {
  readonly valid: boolean
  /** The order hash, once the signature was checked; null before. */
  readonly orderID: Hash | null
  readonly checks: readonly VerifyCheck[]
  readonly note: string
}
