/**
 * The request bodies of the native API, as clients send them: the one declaration that the route
 * handlers read their fields through (`Unparsed<T>`), the SDK can send, and the OpenAPI document's
 * request schemas are generated from (scripts/gen-schemas.ts). Type-only, as the response shapes.
 */
import type { Address, Decimal, Hash, MarketStatus, MicrosText, Outcome, SelfTradePreventionText, Side, TimeInForce,
  TokenId, UnixSecondsText } from './vocabulary.js'

/**
 * A body as a handler receives it, before its fields are checked: each field of T may be anything.
 * Reading a field through it names T's field, so a renamed field breaks the handler's compile.
 */
export type Unparsed<T> = { readonly [K in keyof T]?: unknown }

/** A uint256 as JSON carries it: a decimal string, or a safe integer (clob-client sends `salt` as a number). */
export type Uint256 = string | number

/** The fields both order versions sign (reference section 4.6, clob-v2-compat.md 3.6). */
type WireOrderCommon = {
  readonly salt: Uint256
  /** The funder: the signer for signature type 0, else a proxy wallet or Safe linked to it. */
  readonly maker: Address
  readonly signer: Address
  readonly tokenId: TokenId | number
  /** Micro-units: USDC for a buy, shares for a sell. */
  readonly makerAmount: MicrosText | number
  /** Micro-units: shares for a buy, USDC for a sell. */
  readonly takerAmount: MicrosText | number
  readonly side: Side
  /** The EIP-712 signature, 0x and hex digits. */
  readonly signature: string
}

/** A V1 order (clob-client 5.x): it signs a taker, a nonce, a fee rate and the expiration. */
export type WireOrderV1 = WireOrderCommon & {
  /** The zero address: anyone may take it. */
  readonly taker: Address
  /** Unix seconds; "0": none (GTD orders only). */
  readonly expiration: UnixSecondsText | number
  readonly nonce: Uint256
  readonly feeRateBps: Uint256
  /** 0 EOA, 1 proxy wallet, 2 Safe. */
  readonly signatureType: 0 | 1 | 2
}

/** A V2 order (clob-client-v2): told from V1 by `timestamp`, `metadata` and `builder`. */
export type WireOrderV2 = WireOrderCommon & {
  /** Unix seconds, carried and not signed; "0" or absent: none. */
  readonly expiration?: UnixSecondsText | number
  /** Unix milliseconds. */
  readonly timestamp: Uint256
  /** bytes32: 0x and 64 hex digits. */
  readonly metadata: Hash
  /** bytes32, the builder code (zero: none). */
  readonly builder: Hash
  /** 0 EOA, 1 proxy wallet, 2 Safe, 3 POLY_1271 (a deposit wallet). */
  readonly signatureType: 0 | 1 | 2 | 3
}

/** POST /order and POST /order/verify; an item of POST /orders. */
export type OrderPost = {
  readonly order: WireOrderV1 | WireOrderV2
  /** The API key placing it (it must be the caller's). */
  readonly owner: string
  /** GTC by default. */
  readonly orderType?: TimeInForce
  /** Refused if it would take liquidity; false by default. */
  readonly postOnly?: boolean
  /** Sent by clob-client; ignored. */
  readonly deferExec?: boolean
  /** On meeting a resting order of the same account: CANCEL_MAKER (the default), CANCEL_TAKER or CANCEL_BOTH. */
  readonly selfTradePrevention?: SelfTradePreventionText
  /** The id of one of the key's order groups (POST /order-groups) the order joins. */
  readonly orderGroupId?: string
}

/**
 * POST /order/amend: lower a live order's remaining size, keeping its place in the queue. Exactly
 * one of `new_size` (what should rest after the amend) and `reduce_by`, in shares, a multiple of 0.01.
 */
export type OrderAmend = {
  /** The order to amend (`orderId` is read too, as DELETE /order reads it). */
  readonly orderID: Hash
  readonly new_size?: Decimal
  readonly reduce_by?: Decimal
}

/** POST /order/replace: POST /order's body, and the order it replaces (cancelled in the same engine command). */
export type OrderReplace = OrderPost & {
  readonly orderID: Hash
}

/**
 * POST /quotes: the key's whole ladder on one market, every level a signed order (at most 20 a
 * side of the book). Levels that rest already are kept as they are; the key's resting orders on the
 * market not named are cancelled; the others are placed.
 */
export type QuotesPost = {
  /** The market: its UUID, condition id or slug. */
  readonly market: string
  readonly orders: readonly OrderPost[]
}

/**
 * POST /order-groups: a group of the caller's API key with fill limits over a rolling window: at
 * least one of the two limits; the window 1 to 60 s in steps of 0.1 s; the freeze at most an hour.
 */
export type OrderGroupCreate = {
  /** 1 to 64 printable ASCII characters, unique among the key's groups. */
  readonly group_id: string
  /** Shares. */
  readonly contracts_limit?: Decimal
  /** USDC. */
  readonly notional_limit?: Decimal
  readonly window_ms: number
  /** 0 (the default): triggered until reset. */
  readonly freeze_ms?: number
}

/** PATCH /order-groups/:id: the limits to change; the others keep their values. */
export type OrderGroupPatch = Partial<Omit<OrderGroupCreate, 'group_id'>>

/** POST /orders: each order stands alone (a refused one does not stop the others). */
export type OrderBatchPost = readonly OrderPost[]

/** DELETE /order: the order id as `orderID` (clob-client's spelling) or `orderId`. */
export type OrderCancel = { readonly orderID: Hash; readonly orderId?: never } |
  { readonly orderId: Hash; readonly orderID?: never }

/** DELETE /orders: order ids. */
export type OrdersCancel = readonly Hash[]

/** DELETE /cancel-market-orders: either filter, or both, or neither (every open order). */
export type MarketOrdersCancel = {
  /** The market's UUID, condition id or slug. */
  readonly market?: string
  readonly asset_id?: TokenId
}

/** An item of POST /books and POST /midpoints (clob-client's BookParams). */
export type TokenQuery = {
  readonly token_id: TokenId
  /** Ignored here (clob-client may send it). */
  readonly side?: string
}

/** An item of POST /prices. */
export type TokenSideQuery = {
  readonly token_id: TokenId
  /** buy (the best bid) or sell (the best ask), in any case. */
  readonly side: string
}

/** POST /faucet. */
export type FaucetRequest = {
  readonly address: Address
  /** USDC, at most the configured faucet amount (the default). */
  readonly amount?: Decimal | number | null
}

/** POST /relay: the EIP-712 `Relay` message (domain "Predex Relay") and its owner's signature. */
export type RelayMessage = {
  readonly owner: Address
  readonly action: 'approve' | 'split' | 'merge' | 'redeem'
  /** Zero for approve. */
  readonly condition_id: Hash
  /** Micro-units: the USDC allowance (approve) or full sets (split, merge); ignored by redeem. */
  readonly amount: Uint256
  /** The owner's next relay nonce (GET /relay/nonce). */
  readonly nonce: Uint256
  /** Unix seconds. */
  readonly deadline: Uint256
  readonly signature: string
}

/** POST /admin/markets. */
export type MarketListing = {
  readonly question: string
  /** Made from the question when absent. */
  readonly slug?: string | null
  readonly description?: string | null
  /** USDC per share; "0.01" by default. */
  readonly tick_size?: Decimal | number
  /** Shares; "5" by default. */
  readonly min_order_size?: Decimal | number
  /** Basis points; 0 by default. */
  readonly fee_rate_bps?: number | string
  readonly neg_risk?: boolean
  /** ISO-8601; none when absent. */
  readonly end_date?: string | null
  /** Active by default. */
  readonly status?: 'Active' | 'Upcoming'
}

/** PATCH /admin/markets/:id: any of the three; resolution has its own route. */
export type MarketChange = {
  readonly status?: Exclude<MarketStatus, 'Resolved'>
  readonly tick_size?: Decimal | number
  readonly fee_rate_bps?: number | string
}

/** POST /admin/markets/:id/resolve. */
export type MarketResolve = {
  readonly outcome: Outcome
}

/** POST /heartbeats: the previous answer's id; "", null or an absent field (or body) starts a chain. */
export type HeartbeatRequest = {
  readonly heartbeat_id?: string | null
}

/** POST /compat/orders-scoring: order ids (at most ORDERS_SCORING_IDS_MAX). */
export type OrdersScoringQuery = readonly Hash[]

/** The routes of both surfaces that read a JSON body, and its type (the same on both). */
type SharedRequestBodies = {
  'POST /order': OrderPost
  'POST /orders': OrderBatchPost
  'DELETE /order': OrderCancel
  'DELETE /orders': OrdersCancel
  'DELETE /cancel-market-orders': MarketOrdersCancel
  'POST /books': readonly TokenQuery[]
  'POST /midpoints': readonly TokenQuery[]
  'POST /prices': readonly TokenSideQuery[]
  'POST /heartbeats': HeartbeatRequest
  'POST /faucet': FaucetRequest
  'POST /relay': RelayMessage
}

/** The native routes that read a JSON body, and its type (keys as in NativeBodies). */
export type NativeRequestBodies = SharedRequestBodies & {
  'POST /order/verify': OrderPost
  'POST /order/amend': OrderAmend
  'POST /order/replace': OrderReplace
  'POST /quotes': QuotesPost
  'POST /order-groups': OrderGroupCreate
  'PATCH /order-groups/:id': OrderGroupPatch
  'POST /admin/markets': MarketListing
  'PATCH /admin/markets/:id': MarketChange
  'POST /admin/markets/:id/resolve': MarketResolve
}

/** The /compat routes that read a JSON body, and its type (keys as in CompatBodies, without /compat). */
export type CompatRequestBodies = SharedRequestBodies & {
  'POST /spreads': readonly TokenQuery[]
  'POST /last-trades-prices': readonly TokenQuery[]
  'POST /orders-scoring': OrdersScoringQuery
  'POST /v1/heartbeats': HeartbeatRequest
}

export type NativeRequestRoute = keyof NativeRequestBodies
export type CompatRequestRoute = keyof CompatRequestBodies
