/**
 * What a contract case needs from Predex, whatever the face: a `Driver`. A case (test/contract/
 * cases/) speaks to a driver only, so the same case runs over REST and over gRPC, each face with
 * its own driver (test/support/rest-driver.ts, test/support/grpc-driver.ts).
 *
 * The contract is the native API's: requests are the native JSON request objects (a driver for
 * another face translates them into its messages, and passes on what it cannot express as the
 * refusal the catalogue gives), and every answer is a `Reply` with the catalogue's HTTP status and
 * the native JSON body. A request parameter typed `unknown` is one a case may deliberately break
 * (`RawText` for a body that does not even parse).
 *
 * Setting up state (markets, funds, positions) goes straight to the engine, the same way for
 * every face: it is the stage, not the play.
 */
import type { Test } from 'tap'
import type { ApiCredentials } from '../../src/api/shapes/credential.js'
import { orderBody, signLimitOrder, type LimitOrder, type MarketTerms, type OrderType, type SignedOrder } from '../../src/client/orders.js'
import type { Wallet } from '../../src/crypto/wallet.js'
import type { RelayStruct } from '../../src/crypto/eip712.js'
import type { MarketInput, UnstampedCommand } from '../../src/engine/command.js'
import type { MarketRecord } from '../../src/engine/event.js'
import type { CommandResult } from '../../src/engine/result.js'

export const USDC = 1_000_000
export const CHAIN_ID = 80002

export interface Trader {
  readonly wallet: Wallet
  /** Lower-case. */
  readonly address: string
  readonly credentials: ApiCredentials
}

/** A request made with no credentials at all. */
export const ANONYMOUS = { anonymous: true } as const

/** A request of `forged`'s, with its credentials but a signature that does not match the request. */
export interface Forged {
  readonly forged: Trader
}

export type Caller = Trader | typeof ANONYMOUS | Forged

/** The answer to a request: the catalogue's HTTP status and the body in the native API's shape. */
export interface Reply {
  readonly status: number
  readonly body: any
}

/** Query parameters of a listing (`limit`, `next_cursor`, `market`, `asset_id`, `status`, ...). */
export type Query = Readonly<Record<string, string | number>>

export type MarketOptions = Partial<Omit<MarketInput, 'marketId' | 'conditionId' | 'yesTokenId' | 'noTokenId'>>

export interface AccountSummary {
  readonly usdcMicros: number
  readonly heldMicros: number
  readonly shares: ReadonlyMap<string, number>
}

export type OrderGroupCall = 'list' | 'create' | 'update' | 'trigger' | 'reset' | 'delete'

export interface Driver {
  /**
   * What stands behind the test network: the engine's own ledger, or a real chain (--chain local),
   * where a case expects what differs there (a trade settles after it matches; transactions are the chain's).
   */
  readonly chain: 'builtin' | 'local'
  // --- Setup, through the engine (on a real chain, its ledger commands through the chain: test/support/chain-stage.ts).
  /** Submits an engine command; throws if the engine refuses it. */
  command(command: UnstampedCommand): Promise<CommandResult>
  /** A new active market (tick 0.01, minimum size 5, no fee unless `options` say otherwise). */
  createMarket(options?: MarketOptions): Promise<MarketRecord>
  /** A new wallet with API credentials and, if asked, USDC (micro-units) approved for trading. */
  trader(usdcMicros?: number): Promise<Trader>
  /** The engine's exact account summary. */
  account(address: string): Promise<AccountSummary>
  /**
   * What a wallet does after the relay's approve to sell, merge or redeem its outcome tokens: nothing on
   * the builtin network (the approve covers them); on a real chain, `setApprovalForAll` of the settling
   * exchange sent from its own key, paying its own gas (docs/testnet.md, "The relay on a real chain").
   */
  approveOutcomeTokens(trader: Trader): Promise<{ transactionHash: string } | null>
  /** Stops Predex and starts it again on the same data. */
  restart(): Promise<void>

  // --- Trading (api.md "trading").
  placeOrder(caller: Caller, request: unknown): Promise<Reply>
  placeOrders(caller: Caller, requests: unknown): Promise<Reply>
  /** A dry run: every check of a placement, nothing placed. */
  verifyOrder(caller: Caller, request: unknown): Promise<Reply>
  /** `request`: `{orderID}` (or `{orderId}`). */
  cancelOrder(caller: Caller, request: unknown): Promise<Reply>
  /** `ids`: an array of order ids. */
  cancelOrders(caller: Caller, ids: unknown): Promise<Reply>
  cancelAll(caller: Caller): Promise<Reply>
  /**
   * Lowers one of the caller's live orders, keeping its place in the queue. `request`:
   * `{orderID, new_size?, reduce_by?}`, sizes as decimal shares ("5.5"), exactly one of the two.
   * Answer: `{success, order_id, size_matched, size_remaining, reduced_by, engine_seq}`.
   */
  amendOrder(caller: Caller, request: unknown): Promise<Reply>
  /**
   * Cancels one of the caller's live orders and places a signed one in its stead, in one engine
   * command. `request`: POST /order's body plus `orderID`, the order to cancel. Answer:
   * `{canceled: {order_id, size_remaining}, placement: <POST /order's answer, or its refusal with
   * success false>, engine_seq}`; a refusal status when nothing changed.
   */
  replaceOrder(caller: Caller, request: unknown): Promise<Reply>
  /**
   * Sets the caller's ladder on a market. `request`: `{market, orders: [POST /order's body]}`.
   * Answer: `{canceled: [id], levels: [{outcome: kept|gone|placed|refused, order_id, ...}], engine_seq}`.
   */
  massQuote(caller: Caller, request: unknown): Promise<Reply>
  /**
   * The caller's order groups (docs/rest.md, "Order groups"): `list` (GET /order-groups), `create`
   * (POST, `body`), `update` (PATCH `groupId`, `body`), `trigger`, `reset`, `delete` (`groupId`).
   * Answers: OrderGroup `{group_id, contracts_limit, ..., triggered, ...}`, `{data: [...]}`, `{deleted, group_id}`.
   */
  orderGroup(caller: Caller, action: OrderGroupCall, groupId?: string, body?: unknown): Promise<Reply>
  /** One of the caller's orders, open or ended. */
  order(caller: Caller, orderId: string): Promise<Reply>
  /** The caller's open orders, with `available_usdc`. */
  openOrders(caller: Caller, query?: Query): Promise<Reply>
  /** The caller's orders, ended ones too (the client listing). */
  orders(caller: Caller, query?: Query): Promise<Reply>
  /** The caller's trades as taker or maker. */
  trades(caller: Caller, query?: Query): Promise<Reply>

  // --- Account.
  balance(caller: Caller, query: Query): Promise<Reply>

  // --- Market data (public).
  /** A read of one token; `query` holds `token_id` (and `side` for a price). */
  tokenRead(read: TokenRead, query: Query): Promise<Reply>
  /** A read of several tokens; `items`: an array of `{token_id, side?}`. */
  tokensRead(read: TokensRead, items: unknown): Promise<Reply>
  /** OHLCV candles of a token id or a market's slug (`interval`, `from`, `to`). */
  candles(symbol: string, query?: Query): Promise<Reply>
  /** Polymarket's price history of a token (`market`, ...), as the compat surface answers it. */
  priceHistory(query: Query): Promise<Reply>

  /** Replaces the services' clock (`null`: the real one again), for a case that needs time to stand still or move. */
  setNowMs(nowMs: (() => number) | null): void

  stop(): Promise<void>

  // --- Test network, users and admin (api.md "test network", "users", "admin").
  /** The engine's journal position and state hash: a refusal that never reaches the engine leaves both as they were. */
  engineState(): Promise<{ readonly seq: number; readonly stateHash: string }>
  /** Every market and `address`'s account as the engine holds them: what a refusal the engine journals leaves as it was. */
  ledgerState(address: string): Promise<string>
  /** Test USDC and gas; `request`: `{address, amount?}`. Public. */
  faucet(request: unknown): Promise<Reply>
  walletStatus(address: string): Promise<Reply>
  relayNonce(address: string): Promise<Reply>
  /** A signed relay request (see `relayRequest`): approve, split, merge, redeem, gasless and without credentials. */
  relay(request: unknown): Promise<Reply>
  /** A public read of an address (any case): its profile, history, orders, trades, balances, events. */
  userRead(read: UserRead, address: string, query?: Query): Promise<Reply>
  /** A market by id or slug, public. */
  market(idOrSlug: string): Promise<Reply>
  upcomingMarkets(query?: Query): Promise<Reply>
  resolvingMarkets(): Promise<Reply>
  adminCreateMarket(access: AdminAccess, request: unknown): Promise<Reply>
  adminUpdateMarket(access: AdminAccess, idOrSlug: string, change: unknown): Promise<Reply>
  /** `request`: `{outcome}`. */
  adminResolveMarket(access: AdminAccess, idOrSlug: string, request: unknown): Promise<Reply>
  adminStats(access: AdminAccess): Promise<Reply>

  // --- Health and the market listing (public).
  /** Liveness: `{status, version, seq, journalLag, uptimeSec, pendingRequests, ringBytesUsed, ...}`. */
  health(): Promise<Reply>
  /** Readiness: `{ready: true, seq}` while the engine takes commands, NOT_READY once it does not. */
  ready(): Promise<Reply>
  /** Every market, paginated (`limit`, `next_cursor`). */
  markets(query?: Query): Promise<Reply>
  /** The engine's record of a market as it is now (a status change included). */
  marketRecord(marketId: string): Promise<MarketRecord | undefined>
  /** Stops the engine under the running face; a case that does must `restart` before it ends. */
  stopEngine(): Promise<void>

  // --- API keys (api.md "auth"): L1 (a wallet's signature) to create or derive, L2 to list and revoke.
  createApiKey(caller: L1Caller | typeof ANONYMOUS): Promise<Reply>
  deriveApiKey(caller: L1Caller | typeof ANONYMOUS): Promise<Reply>
  /** The caller's API keys. */
  apiKeys(caller: Caller): Promise<Reply>
  /** Revokes the API key the caller authenticates with. */
  deleteApiKey(caller: Caller): Promise<Reply>
}

/**
 * An L1 caller: `wallet` signs the ClobAuth message (EIP-712) for `nonce` (0 by default). The
 * other fields break it on purpose: an old `timestampSec`, another `chainId`, or a claimed
 * `address` that is not the signer's.
 */
export interface L1Caller {
  readonly wallet: Wallet
  readonly nonce?: number
  readonly timestampSec?: number
  readonly chainId?: number
  readonly address?: string
}

/** An admin call with the admin key, with none, or with a wrong one. */
export type AdminAccess = 'admin' | 'no key' | 'wrong key'

/** The public reads of an address. */
export type UserRead = 'profile' | 'portfolioHistory' | 'activity' | 'orders' | 'trades' | 'balances' | 'redemptions' | 'events'

/**
 * The native relay request for `struct`, signed by `signer` (EIP-712, for `chainId`). Signing is
 * the chain's, not a face's: every face carries the same signed fields.
 */
export function relayRequest(signer: Wallet, struct: RelayStruct, chainId: number = CHAIN_ID): Record<string, string> {
  return { owner: struct.owner, action: struct.action, condition_id: struct.conditionId, amount: struct.amount, nonce: struct.nonce,
    deadline: struct.deadline, signature: signer.signRelay(struct, chainId) }
}

/** The reads of one token: its book, the book with the other outcome's implied liquidity, quotes, terms. */
export type TokenRead = 'book' | 'unifiedBook' | 'midpoint' | 'price' | 'spread' | 'lastTradePrice' | 'tickSize' | 'feeRate'

export type TokensRead = 'books' | 'midpoints' | 'prices'

/** A body that is not even the wire's syntax (text that is not JSON): each face answers its own decoding error. */
export class RawText {
  constructor(readonly text: string) {}
}

/** A face-neutral contract case: it sets up its own state (wallets, markets) and asserts on replies. */
export interface ContractCase {
  readonly name: string
  run(t: Test, driver: Driver): Promise<void>
}

/** Runs `cases` as subtests of `t` against `driver`, one after the other. */
export function runCases(t: Test, cases: readonly ContractCase[], driver: Driver): void {
  const names = new Set<string>()
  for (const contractCase of cases) {
    if (names.has(contractCase.name)) throw new Error(`two cases named ${contractCase.name}`)
    names.add(contractCase.name)
    t.test(contractCase.name, (t) => contractCase.run(t, driver))
  }
}

/** The native order request: a signed order, the API key that owns it, its type, post-only or not. */
export function orderRequest(signed: SignedOrder, owner: string, orderType: OrderType = 'GTC', postOnly = false): unknown {
  return JSON.parse(orderBody(signed, owner, orderType, postOnly))
}

/** The terms to sign orders for `market` with (its tick, neg-risk flag and fee rate). */
export function termsOf(market: MarketRecord): MarketTerms {
  const ticks = { 100_000: '0.1', 10_000: '0.01', 1_000: '0.001', 100: '0.0001' } as const
  const tick = ticks[market.tickSizeMicros as keyof typeof ticks]
  return { tickSize: tick, negRisk: market.negRisk, feeRateBps: market.feeRateBps, chainId: CHAIN_ID }
}

export function nowSec(): number {
  return Math.floor(Date.now() / 1000)
}

export type OutcomeOrder = Omit<LimitOrder, 'tokenId'> & { readonly outcome?: 'Yes' | 'No' }

/** Signs a limit order of `trader` on `market` (Yes unless `order` says No) and places it. */
export async function placeOn(d: Driver, trader: Trader, market: MarketRecord, order: OutcomeOrder): Promise<Reply> {
  const { outcome, ...terms } = order
  const tokenId = outcome === 'No' ? market.noTokenId : market.yesTokenId
  const signed = signLimitOrder(trader.wallet, termsOf(market), { tokenId, ...terms })
  return d.placeOrder(trader, orderRequest(signed, trader.credentials.apiKey))
}
