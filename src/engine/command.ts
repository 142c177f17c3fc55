/**
 * Commands: the only inputs of the engine. Each carries the sequence number and the time that
 * the host assigned to it, so applying the same commands again gives the same state (the engine
 * reads no clock). Amounts are integers in micro-units; addresses are lower-case hex strings;
 * identifiers are opaque strings checked for length. Signatures are verified before a command is
 * built: the engine trusts `orderId` to be the order's EIP-712 hash.
 */

export type Side = 'BUY' | 'SELL'
export type TimeInForce = 'GTC' | 'GTD' | 'FOK' | 'FAK'
export type Outcome = 'Yes' | 'No'
export type MarketStatus = 'Upcoming' | 'Active' | 'Paused' | 'Closed' | 'Resolving' | 'Resolved'
/**
 * What an order does when its walk meets a resting order of its own account (docs/engine.md,
 * "Self-trade prevention"): cancel that resting order and go on (the default, and Predex's only
 * behaviour before modes), cancel the rest of itself, or both.
 */
export type SelfTradePrevention = 'cancel-maker' | 'cancel-taker' | 'cancel-both'

/** A signed order as the engine sees it (see docs/engine.md, "Orders"). */
export interface OrderInput {
  /** The order's EIP-712 hash: its id. */
  readonly orderId: string
  /** The API key that submitted it (`owner` in Polymarket's records). */
  readonly owner: string
  /** The account whose funds the order uses. */
  readonly maker: string
  /** The key that signed it; may cancel it as well as the maker. */
  readonly signer: string
  readonly tokenId: string
  readonly side: Side
  /** BUY: USDC offered; SELL: shares offered. */
  readonly makerAmountMicros: number
  /** BUY: shares wanted; SELL: USDC wanted. */
  readonly takerAmountMicros: number
  /** Unix seconds; 0 = none (required for GTD, and only GTD may carry one). */
  readonly expirationSec: number
  /**
   * The fee rate a V1 order signs, which must equal the market's; null for a V2 order, which signs
   * none. Either way the taker pays the market's rate at match time.
   */
  readonly feeRateBps: number | null
  readonly timeInForce: TimeInForce
  readonly postOnly: boolean
  /**
   * The trader's own name for the order ('' = none): at most CLIENT_ORDER_ID_LENGTH_MAX printable
   * ASCII characters, not signed. Unique per owner (API key) among its live orders: placing
   * another order with it while one lives is refused with CLIENT_ORDER_ID_DUPLICATED, naming the
   * live one; once that order has ended the id is free again.
   */
  readonly clientOrderId: string
  /** Absent: 'cancel-maker'. Not signed, as the time in force: a request field. */
  readonly selfTradePrevention?: SelfTradePrevention
  /**
   * The id of an order group of `owner` the order joins (absent or '': none): the group's fill
   * limits then cover it (docs/engine.md, "Order groups"). A request field, not signed.
   */
  readonly orderGroupId?: string
}

export interface MarketInput {
  readonly marketId: string
  readonly conditionId: string
  readonly question: string
  readonly slug: string
  readonly description: string
  readonly yesTokenId: string
  readonly noTokenId: string
  readonly tickSizeMicros: number
  /** Smallest resting order, in micro-shares. */
  readonly minOrderSizeMicros: number
  readonly feeRateBps: number
  readonly negRisk: boolean
  /** Unix milliseconds; 0 = no end date. */
  readonly endDateMs: number
  /** `Active` to trade at once, `Upcoming` to list first. */
  readonly status: 'Active' | 'Upcoming'
}

interface Stamped {
  /** Gap-free sequence number assigned by the host; the engine checks it. */
  readonly seq: number
  /** Unix milliseconds assigned by the host; never decreases. */
  readonly timeMs: number
}

export interface PlaceOrder extends Stamped { readonly kind: 'placeOrder'; readonly order: OrderInput }
export interface PlaceOrders extends Stamped {
  readonly kind: 'placeOrders'
  readonly orders: readonly OrderInput[]
}
export interface CancelOrder extends Stamped {
  readonly kind: 'cancelOrder'
  /** The requester: an order is cancelled only for its maker or signer. */
  readonly address: string
  readonly orderId: string
}
export interface CancelOrders extends Stamped {
  readonly kind: 'cancelOrders'
  readonly address: string
  readonly orderIds: readonly string[]
}
/** Cancels the live orders of an owner (API key) by their client order ids. */
export interface CancelByClientOrderId extends Stamped {
  readonly kind: 'cancelByClientOrderId'
  /** The requester: an order is cancelled only for its maker or signer, as by cancelOrders. */
  readonly address: string
  /** The API key whose client order ids these are (the orders' `owner`). */
  readonly owner: string
  readonly clientOrderIds: readonly string[]
}
export interface CancelAll extends Stamped { readonly kind: 'cancelAll'; readonly address: string }
/**
 * Lowers a live order's remaining size; the order keeps its place in its level's queue and its
 * holds shrink to match (docs/engine.md, "Amend"). Exactly one of the two sizes is set (the other
 * is 0), each a whole number of lots: the new remaining size, or how much to take off it.
 */
export interface AmendOrder extends Stamped {
  readonly kind: 'amendOrder'
  /** The requester: an order is amended only for its maker or signer, as a cancel. */
  readonly address: string
  readonly orderId: string
  /** The new remaining size in micro-shares (0 = not given): strictly below the remaining size. */
  readonly newSizeMicros: number
  /** Micro-shares to take off the remaining size (0 = not given): strictly below it. */
  readonly reduceByMicros: number
}
export type OrderGroupAction = 'create' | 'update' | 'trigger' | 'reset' | 'delete'

/**
 * Manages an order group of an API key (docs/engine.md, "Order groups"): fill limits over a
 * rolling window of engine time that, once reached, cancel every resting order of the group and
 * refuse its new ones until it is reset (or its freeze ends). The limits are read by create and
 * update only.
 */
export interface OrderGroupCommand extends Stamped {
  readonly kind: 'orderGroup'
  readonly action: OrderGroupAction
  /** The requester: the API key's address. */
  readonly address: string
  readonly owner: string
  readonly groupId: string
  /** Shares filled in the window that trigger the group (0: no such limit). */
  readonly contractsLimitMicros: number
  /** USDC notional filled in the window that triggers it (0: no such limit). */
  readonly notionalLimitMicros: number
  readonly windowMs: number
  /** How long it stays triggered on its own (0: until reset). */
  readonly freezeMs: number
}

/**
 * Sets an API key's quotes on one market in one step (docs/engine.md, "Mass quote"): the key's live
 * orders on the market that the quote does not name are cancelled, those it names in `keep` stay
 * as they are (their places kept), and `orders` are placed. At most MASS_QUOTE_LEVELS_MAX a side.
 */
export interface MassQuote extends Stamped {
  readonly kind: 'massQuote'
  /** The requester: the quotes' wallet (the key's address). */
  readonly address: string
  /** The API key whose quotes these are: the owner of every order named. */
  readonly owner: string
  readonly marketId: string
  /** Ids of live orders of the key to leave as they are; one that has ended is reported, never placed. */
  readonly keep: readonly string[]
  /** New orders of the key on the market, placed after the cancels, in order. */
  readonly orders: readonly OrderInput[]
}
/**
 * Cancels order `orderId` and places `order` in one step (docs/engine.md, "Cancel-replace"): the
 * new order is placed only if the old one was still live and is now cancelled, so a quoter never
 * has both live, nor the new one placed after the old was filled.
 */
export interface CancelReplace extends Stamped {
  readonly kind: 'cancelReplace'
  /** The requester: the old order is cancelled only for its maker or signer. */
  readonly address: string
  /** The order to cancel. */
  readonly orderId: string
  /** The order that takes its place, placed as placeOrder would. */
  readonly order: OrderInput
}
export interface CancelMarketOrders extends Stamped {
  readonly kind: 'cancelMarketOrders'
  readonly address: string
  /** Empty string = any market. */
  readonly marketId: string
  /** Empty string = both tokens. */
  readonly tokenId: string
}
/** A clock tick: expires GTD orders whose time has come (every command does this first too). */
export interface Expire extends Stamped { readonly kind: 'expire' }
export interface CreateMarket extends Stamped {
  readonly kind: 'createMarket'
  readonly market: MarketInput
}
export interface SetMarketStatus extends Stamped {
  readonly kind: 'setMarketStatus'
  readonly marketId: string
  readonly status: MarketStatus
}
export interface SetTickSize extends Stamped {
  readonly kind: 'setTickSize'
  readonly marketId: string
  readonly tickSizeMicros: number
}
export interface SetFeeRate extends Stamped {
  readonly kind: 'setFeeRate'
  readonly marketId: string
  readonly feeRateBps: number
}
export interface ResolveMarket extends Stamped {
  readonly kind: 'resolveMarket'
  readonly marketId: string
  readonly outcome: Outcome
}
/** Faucet or deposit: new USDC (and test gas) for an address. */
export interface Credit extends Stamped {
  readonly kind: 'credit'
  readonly address: string
  readonly usdcMicros: number
  readonly gasMicros: number
}
/** Sets the USDC allowance to the exchange; non-zero also approves all outcome tokens. */
export interface Approve extends Stamped {
  readonly kind: 'approve'
  readonly address: string
  readonly usdcAllowanceMicros: number
}
export interface Split extends Stamped {
  readonly kind: 'split'
  readonly address: string
  readonly marketId: string
  readonly amountMicros: number
}
export interface Merge extends Stamped {
  readonly kind: 'merge'
  readonly address: string
  readonly marketId: string
  readonly amountMicros: number
}
export interface Redeem extends Stamped {
  readonly kind: 'redeem'
  readonly address: string
  readonly marketId: string
}
/**
 * Registers an API key. Its secret and passphrase are both empty: derived by the front end from
 * the server's master key and (apiKey, address, nonce), so they are never journaled (api-key.ts).
 * Registrations journaled by older servers carry the two in clear; they are still accepted.
 */
export interface RegisterApiKey extends Stamped {
  readonly kind: 'registerApiKey'
  readonly apiKey: string
  readonly address: string
  /** Empty: derived (with the passphrase). Otherwise the secret in clear, as older servers sent it. */
  readonly secret: string
  /** Empty: derived (with the secret). */
  readonly passphrase: string
  readonly nonce: number
}
export interface RevokeApiKey extends Stamped {
  readonly kind: 'revokeApiKey'
  readonly apiKey: string
}
/**
 * One confirmed fact of a real chain (docs/testnet.md, "The ledger follows the chain"), in the
 * chain's order. `kind`:
 * - `usdc`: `amountMicros` USDC moved from `from` to `to` outside any settlement; '' stands for
 *   where new USDC comes from (a mint) or leaves to (a burn, a contract outside the mirror);
 * - `shares`: `amountMicros` of outcome token `tokenId` moved between two wallets;
 * - `usdcAllowance`: `from`'s USDC allowance for the exchanges is now `amountMicros` (capped at
 *   2^53 - 1, which stands for unlimited, as the relay's approve);
 * - `tokenApproval`: `from` approved (`amountMicros` 1) or revoked (0) the settling exchange for
 *   its outcome tokens;
 * - `allowance`: as `usdcAllowance`, and the outcome tokens approved with a non-zero allowance
 *   (revoked with 0): a relayed approve, which sets both at once as the builtin network's approve
 *   does (and how journals written before `tokenApproval` existed read);
 * - `split`, `merge`: `from` turned `amountMicros` USDC into full sets of the market of token
 *   `tokenId` (either of its two), or full sets back into USDC, in the Conditional Tokens;
 * - `redeem`: `from` redeemed (burnt) `amountMicros` of token `tokenId` of a resolved market,
 *   and was paid what it wins.
 * Fields a kind does not use are ''. `transactionHash` and `blockNumber` name the transaction the fact
 * is of, for the ledger's records ('' and 0 in journals written before they were kept).
 */
export interface ChainEntry {
  readonly kind: 'usdc' | 'shares' | 'usdcAllowance' | 'tokenApproval' | 'allowance' | 'split' | 'merge' | 'redeem'
  readonly from: string
  readonly to: string
  readonly tokenId: string
  readonly amountMicros: number
  readonly transactionHash: string
  readonly blockNumber: number
}
/**
 * The chain's confirmed facts up to block `toBlock`, mirrored into the ledger in one step. Each
 * sync starts after the last one's block (a sync not past it is refused, so journaling one twice
 * changes nothing), so the ledger never counts a block twice.
 */
export interface ChainSync extends Stamped {
  readonly kind: 'chainSync'
  readonly toBlock: number
  readonly entries: readonly ChainEntry[]
}
/** The ledger actions the gasless relay may run for a wallet (api.md "Formats decided here"). */
export type RelayAction =
  | Omit<Approve, 'seq' | 'timeMs'>
  | Omit<Split, 'seq' | 'timeMs'>
  | Omit<Merge, 'seq' | 'timeMs'>
  | Omit<Redeem, 'seq' | 'timeMs'>
/**
 * A wallet-signed ledger action run for its owner (`action.address`); the front end has checked
 * the EIP-712 signature. The nonce makes each signed message usable once, across restarts.
 */
export interface Relay extends Stamped {
  readonly kind: 'relay'
  /** Must equal the owner's next relay nonce (0 for a new address); consumed only when the action succeeds. */
  readonly nonce: number
  /** Unix seconds: refused once the command's time is past it (timeMs > deadlineSec * 1000). */
  readonly deadlineSec: number
  readonly action: RelayAction
}

/**
 * A trade whose settlement failed on chain (src/service/testnet/settlement.ts), as its `trade` event told
 * it: the engine moved its funds when it matched, and this moves them back (trade-reversal.ts).
 */
export interface ReverseTrade extends Stamped {
  readonly kind: 'reverseTrade'
  readonly tradeId: string
  readonly takerAddress: string
  readonly tokenId: string
  readonly side: Side
  /** In the taker's token. */
  readonly priceMicros: number
  readonly makerAddress: string
  readonly makerTokenId: string
  readonly makerSide: Side
  readonly makerPriceMicros: number
  readonly sizeMicros: number
  /** Paid by the taker. */
  readonly feeMicros: number
}

export type Command =
  | ChainSync
  | ReverseTrade
  | PlaceOrder
  | PlaceOrders
  | CancelOrder
  | CancelOrders
  | CancelByClientOrderId
  | CancelAll
  | CancelMarketOrders
  | AmendOrder
  | CancelReplace
  | MassQuote
  | OrderGroupCommand
  | Expire
  | CreateMarket
  | SetMarketStatus
  | SetTickSize
  | SetFeeRate
  | ResolveMarket
  | Credit
  | Approve
  | Split
  | Merge
  | Redeem
  | RegisterApiKey
  | RevokeApiKey
  | Relay

export type CommandKind = Command['kind']

/** A command as a front end submits it: the engine's host stamps the sequence number and time. */
export type UnstampedCommand = Command extends infer C ? (C extends Command ? Omit<C, 'seq' | 'timeMs'> : never) : never
