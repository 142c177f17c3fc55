/**
 * The words and value kinds every response body is made of, declared for the wire (not imported
 * from the engine): an engine change that would alter what clients receive then fails to compile
 * in format.ts instead of reaching them silently. Type-only: the SDK imports this without code.
 */

export type Side = 'BUY' | 'SELL'
export type Outcome = 'Yes' | 'No'
export type MarketStatus = 'Upcoming' | 'Active' | 'Paused' | 'Closed' | 'Resolving' | 'Resolved'
/** An order's status as the read model keeps it (upper case, as Polymarket's OpenOrder). */
export type OrderStatus = 'LIVE' | 'MATCHED' | 'CANCELED'
export type TimeInForce = 'GTC' | 'GTD' | 'FOK' | 'FAK'
/**
 * What an order does on meeting a resting order of its own account (docs/engine.md, "Self-trade
 * prevention"): cancel that one and go on (the default), cancel the rest of itself, or both.
 */
export type SelfTradePreventionText = 'CANCEL_MAKER' | 'CANCEL_TAKER' | 'CANCEL_BOTH'
/** normal: shares change hands; mint: two buys create a full set; merge: two sells destroy one. */
export type MatchType = 'normal' | 'mint' | 'merge'
/** The requesting user's role in a trade. */
export type TraderSide = 'TAKER' | 'MAKER'

/** An exact decimal in human units, never rounded: "0.55" (USDC per share), "10" (shares or USDC). */
export type Decimal = string
/** A signed exact decimal in human units: "-1.5". */
export type SignedDecimal = string
/** An integer of micro-units (6 decimals) as a string: "141171137" is 141.171137 USDC. */
export type MicrosText = string
/** An ISO-8601 instant in UTC: "2027-01-31T00:00:00.000Z". */
export type IsoTime = string
/** Unix seconds as a decimal string: "1700000000". */
export type UnixSecondsText = string
/** Unix milliseconds as a decimal string: "1700000000000". */
export type UnixMillisText = string
/** 0x and 64 hex digits (a transaction, order or condition id). */
export type Hash = string
/** A 0x address (40 hex digits), lower case as the server writes it. */
export type Address = string
/** An outcome token id: a uint256 in decimal. */
export type TokenId = string
