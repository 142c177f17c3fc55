/**
 * The user channel's messages (`/ws/user`, src/api/ws/user-channel.ts; clob-compat.md section 8.3):
 * the authenticating first message, later subscription changes, and the caller's own order and
 * trade events, in Polymarket's formats (the market is the condition id). The channel builds its
 * events with these types and GET /asyncapi.json documents them from the same. Type-only.
 */
import type { CompatOrder } from './order.js'
import type { Trade } from './trade.js'
import type { Decimal, Hash, UnixMillisText } from './vocabulary.js'
import type { WsError, WsPing, WsPong } from './ws-socket.js'

/** The API credentials of POST /auth/api-key, sent whole (the secret too: there is no HMAC here). */
export type WsUserAuth = {
  readonly apiKey: string
  readonly secret: string
  readonly passphrase: string
}

/** The first message: it authenticates the socket (a failure closes it, 1008). */
export type UserSubscription = {
  /** "user", in any case. */
  readonly type: string
  readonly auth: WsUserAuth
  /** Condition ids; empty or absent: all of the user's markets. At most 500. */
  readonly markets?: readonly Hash[] | null
}

/** Any later message: follow more markets, or fewer. */
export type UserSubscriptionChange = {
  /** "subscribe" when absent; in any case. */
  readonly operation?: 'subscribe' | 'unsubscribe'
  readonly markets?: readonly Hash[] | null
}

/** PLACEMENT: the order rests; UPDATE: a fill; CANCELLATION: cancelled (by its owner, expiry or a heartbeat lapse). */
export type WsOrderEventType = 'PLACEMENT' | 'UPDATE' | 'CANCELLATION'

/** One of the caller's orders changed: Polymarket's OpenOrder, status and size_matched as of this event. */
export type WsOrder = { readonly event_type: 'order'; readonly type: WsOrderEventType } & CompatOrder & {
  /** The API key that placed it. */
  readonly order_owner: string
  /** The command's time. */
  readonly timestamp: UnixMillisText
  /** This socket's message count: 1, 2, ... */
  readonly seq: number
}

/**
 * A trade of the caller's, as taker or maker (trader_side), sent when it matches: CONFIRMED on the
 * builtin chain (a match is final); on a real chain with its settlement's status then (MATCHED),
 * and again at each later one (MINED, CONFIRMED; RETRYING, FAILED).
 */
export type WsTrade = { readonly event_type: 'trade'; readonly type: 'TRADE' } & Trade & {
  /** The API key of the caller's order in the trade. */
  readonly trade_owner: string
  /** The command's time. */
  readonly timestamp: UnixMillisText
  /** This socket's message count: 1, 2, ... */
  readonly seq: number
}

/** What a client sends on /ws/user, by message name (GET /asyncapi.json). */
export type UserChannelRequests = {
  subscription: UserSubscription
  subscription_change: UserSubscriptionChange
  ping: WsPing
}

/** An order group as its change left it (REST's OrderGroup without its window sums and resting count). */
export type WsOrderGroupState = {
  readonly group_id: string
  /** Shares filled in the window that trigger it; "0": no such limit. */
  readonly contracts_limit: Decimal
  /** USDC filled (at the orders' prices) in the window that trigger it; "0": no such limit. */
  readonly notional_limit: Decimal
  readonly window_ms: number
  /** How long it stays triggered on its own; 0: until reset. */
  readonly freeze_ms: number
  /** Triggered and not reset since (as the change left it). */
  readonly triggered: boolean
  /** On a `triggered` change, its time (unix ms); null on the other changes. */
  readonly triggered_at: number | null
}

/**
 * One of the socket's API key's order groups changed (docs/engine.md, "Order groups"), sent to
 * that key's sockets whatever markets they follow: created, updated, reset or deleted. A trigger is
 * WsGroupTriggered.
 */
export type WsOrderGroup = {
  readonly event_type: 'order_group'
  readonly action: 'created' | 'updated' | 'reset' | 'deleted'
  readonly group: WsOrderGroupState
  /** The command's time. */
  readonly timestamp: UnixMillisText
  /** This socket's message count: 1, 2, ... */
  readonly seq: number
}

/**
 * One of the socket's API key's order groups triggered: a fill reached its limits (or its owner
 * triggered it), its resting orders were cancelled in the same engine step (their CANCELLATION
 * events come just before), and it refuses orders until reset or its freeze ends.
 */
export type WsGroupTriggered = Omit<WsOrderGroup, 'event_type' | 'action'> & {
  readonly event_type: 'group_triggered'
  readonly action: 'triggered'
}

/** What the server sends on /ws/user, by message name (GET /asyncapi.json). */
export type UserChannelEvents = {
  order: WsOrder
  trade: WsTrade
  order_group: WsOrderGroup
  group_triggered: WsGroupTriggered
  /** A refused message; an authentication failure or a revoked key then closes the socket (1008). */
  error: WsError
  pong: WsPong
}

export type UserChannelRequest = keyof UserChannelRequests
export type UserChannelEvent = keyof UserChannelEvents
