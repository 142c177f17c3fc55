/**
 * The context fields of every error, as they are sent: for each catalogue code (src/errors.ts)
 * that carries context, each field's name and what it means. A code with no entry carries no
 * context. This is the one list the reference (docs/errors.md, written from it by `npm run
 * gen:errors`) and the drift test (test/unit/api/error-context.test.ts, which finds every place a
 * context is made in src and fails on a field written but not declared here, or declared here but
 * written nowhere) both come from; so a client can rely on what it reads here.
 *
 * Every face sends the same fields: REST and the WebSocket in the error body `{error, code,
 * ...context}`, gRPC in the ErrorInfo metadata and in an ErrorDetail's context (each value as JSON
 * text). Units: amounts are integers in micro-units (6 decimals: USDC, shares) and end in `Micros`;
 * times end in their unit (`Sec`, `Ms`, `Seconds`); `Max` and `Min` are bounds.
 *
 * Data only: no logic here.
 */
import type { ErrorCode } from './errors.js'

const MARKET_STATUS = 'the market\'s status (`Upcoming`, `Active`, `Paused`, `Closed`, `Resolving` or `Resolved`)'
const MARKET_ID = 'the market\'s id (UUID)'
const ORDER_STATUS = 'the status of that order (`LIVE`, `MATCHED`, `CANCELED`, ...)'
/** Added by the admin market update (PATCH a market) when the engine refuses one of its changes. */
const ADMIN_FIELD = 'admin market update only: the admin field whose change was refused (`tick_size`, ' +
  '`fee_rate_bps` or `status`)'
const ADMIN_APPLIED = 'admin market update only: the admin fields changed before the refusal, in order (they stay ' +
  'applied)'
const RETRY_AFTER = 'seconds to wait before retrying (also the `Retry-After` header, and gRPC\'s RetryInfo)'

export const ERROR_CONTEXT: { readonly [C in ErrorCode]?: Readonly<Record<string, string>> } = {
  // ---- Engine: orders ----------------------------------------------------------------------------------
  INVALID_ORDER_PAYLOAD: {
    field: 'the order field that is missing or malformed (the wire\'s name, e.g. `side`, `orderType`, `salt`; or ' +
      'the engine\'s, e.g. `clientOrderId`)',
  },
  INVALID_ORDER_AMOUNTS: {
    field: 'the amount that is not a whole number of lots: `makerAmountMicros` or `takerAmountMicros`',
    lotMicros: 'the lot, in micro-shares: share amounts must be multiples of it',
  },
  INVALID_ORDER_MIN_TICK_SIZE: {
    tickSizeMicros: 'the market\'s tick size, in micro-USDC per share: the price must be a multiple of it',
  },
  INVALID_ORDER_MIN_SIZE: {
    sizeMicros: 'a resting order: its size, in micro-shares',
    minOrderSizeMicros: 'a resting order: the market\'s minimum size, in micro-shares',
    budgetMicros: 'an immediate (FOK/FAK) BUY: its budget (maker amount), in micro-USDC',
    minBudgetMicros: 'an immediate BUY: the least budget that buys one lot at its limit price, in micro-USDC',
  },
  INVALID_ORDER_SIZE_MAX: {
    field: 'the amount above the maximum: `makerAmountMicros` or `takerAmountMicros`',
  },
  INVALID_ORDER_EXPIRATION: {
    expirationSec: 'the order\'s expiration, unix seconds',
    earliestSec: 'a GTD order: the earliest expiration taken now, unix seconds (now plus the margin); any ' +
      'other order: 0, the only expiration it may carry',
  },
  INVALID_ORDER_FEE_RATE: {
    feeRateBps: 'the fee rate the V1 order signed, in basis points',
    marketFeeRateBps: 'the market\'s fee rate, in basis points: the one a V1 order must sign',
  },
  INVALID_ORDER_DUPLICATED: {
    orderId: 'the id of the order already known (the same signed order)',
    status: ORDER_STATUS,
  },
  CLIENT_ORDER_ID_DUPLICATED: {
    orderId: 'the id of the live order of this API key that has this client order id',
    status: ORDER_STATUS,
    clientOrderId: 'the client order id repeated',
  },
  INVALID_ORDER_NOT_ENOUGH_BALANCE: {
    asset: '`USDC` for a BUY; for a SELL, the token id of the shares it offers',
    requiredMicros: 'what the order must hold, in micro-units of `asset`: a BUY\'s cost plus its fee bound, a ' +
      'SELL\'s shares',
    availableMicros: 'what the wallet can hold for it now, in micro-units: for USDC min(balance, allowance) - held, ' +
      'for shares balance - held',
    balanceMicros: 'the wallet\'s balance of `asset`, in micro-units',
    heldMicros: 'how much of `asset` its open orders hold, in micro-units',
    allowanceMicros: 'USDC only: the allowance the wallet gave the exchange, in micro-USDC',
    approved: 'shares only: whether the wallet approved the exchange for its outcome tokens (a non-zero allowance ' +
      'does)',
    shortOf: 'what is missing: `balance`, `allowance`, `balance and allowance`, or `approval` (shares not approved)',
    missingMicros: 'how much the order lacks, in micro-units: requiredMicros - availableMicros',
    fix: 'a sentence saying how to mend it: the approve through `POST /relay` (and the allowance that would do), ' +
      'the faucet, or buying or splitting shares',
  },
  INVALID_POST_ONLY_ORDER_TYPE: {
    timeInForce: 'the order\'s type (`FOK` or `FAK`): only GTC and GTD orders can be post-only',
  },
  TOKEN_NOT_FOUND: {
    tokenId: 'the token id asked for (every face; the WebSocket market channel: the first unknown of `assets_ids`)',
  },
  MARKET_NOT_READY: { marketId: MARKET_ID, status: MARKET_STATUS },
  MARKET_CANCEL_ONLY: { marketId: MARKET_ID, status: MARKET_STATUS },
  MARKET_CLOSED: { marketId: MARKET_ID, status: MARKET_STATUS },
  BATCH_TOO_LARGE: {
    max: 'the most orders one batch may carry',
  },
  CANCEL_TOO_MANY: {
    max: 'the most order ids one cancel may carry',
  },
  // ---- Engine: market-maker controls (amend, cancel-replace, mass quotes, order groups) ----------------
  ORDER_NOT_FOUND: {
    orderId: 'the order named (an amend\'s or a cancel-replace\'s): not a live order of the requester',
    newOrderId: 'cancel-replace only: the id of the new order, which was not placed',
  },
  ORDER_ALREADY_MATCHED: {
    orderId: 'the order named: it was filled before the amend or cancel-replace arrived',
    newOrderId: 'cancel-replace only: the id of the new order, which was not placed',
  },
  ORDER_ALREADY_CANCELED: {
    orderId: 'the order named: it was cancelled before the amend or cancel-replace arrived',
    newOrderId: 'cancel-replace only: the id of the new order, which was not placed',
  },
  AMEND_SIZE_INVALID: {
    newSizeMicros: 'the new size asked, as text (micro-shares; 0: not given)',
    reduceByMicros: 'the reduction asked, as text (micro-shares; 0: not given)',
  },
  AMEND_NOT_REDUCING: {
    remainingMicros: 'what rests of the order now, in micro-shares',
    requestedMicros: 'the size the amend would leave (it must be above 0 and below `remainingMicros`)',
  },
  MASS_QUOTE_INVALID: {
    orderId: 'the order (or kept id) at fault',
    reason: '`named twice`, `an order of another market` or `an order of another API key`',
  },
  MASS_QUOTE_TOO_LARGE: {
    max: 'the most orders a mass quote may name on each side of the book',
    bids: 'the orders named on the bid side (Yes bids, No asks)',
    asks: 'the orders named on the ask side (Yes asks, No bids)',
  },
  ORDER_GROUP_INVALID: {
    field: 'the group field that is out of its bounds: `groupId`, `contractsLimitMicros`, `notionalLimitMicros`, ' +
      '`windowMs`, `freezeMs` or `action`',
  },
  ORDER_GROUP_NOT_FOUND: {
    orderGroupId: 'the group id named: the API key has no group of that id',
  },
  ORDER_GROUP_EXISTS: {
    orderGroupId: 'the group id the API key already has',
  },
  ORDER_GROUPS_FULL: {
    perKeyMax: 'the most order groups one API key may have',
  },
  ORDER_GROUP_TRIGGERED: {
    orderGroupId: 'the group the order names',
    triggeredMs: 'when the group triggered (unix ms): it takes orders again once reset, or when its freeze ends',
  },
  // ---- Engine: markets ---------------------------------------------------------------------------------
  MARKET_NOT_FOUND: {
    marketId: 'the market id asked for (engine commands: cancel by market, split, merge, redeem, admin)',
    id: 'the id asked for where a market may be named by UUID, condition id or slug (market look-ups, trade ' +
      'filters)',
    conditionId: 'the relay: the condition id its split, merge or redeem names',
    field: ADMIN_FIELD,
    applied: ADMIN_APPLIED,
  },
  MARKET_EXISTS: {
    field: 'the market field whose value another market already has (`marketId`, `conditionId`, `slug`, a ' +
      'token id)',
  },
  MARKET_INVALID: {
    field: 'the market field that is missing or malformed (the engine\'s name; `outcome` for a resolution)',
  },
  MARKET_STATUS_TRANSITION: {
    from: MARKET_STATUS,
    to: 'the status asked for (as given, when it is not a status)',
    field: ADMIN_FIELD,
    applied: ADMIN_APPLIED,
  },
  MARKET_TICK_SIZE_INVALID: {
    tickSizeMicros: 'the tick size asked for, in micro-USDC per share',
    field: ADMIN_FIELD,
    applied: ADMIN_APPLIED,
  },
  MARKET_TICK_SIZE_OFF_GRID: {
    tickSizeMicros: 'the tick size asked for, in micro-USDC per share: an open order\'s price is not on its grid',
    field: ADMIN_FIELD,
    applied: ADMIN_APPLIED,
  },
  MARKET_FEE_RATE_INVALID: {
    feeRateBps: 'the fee rate asked for, in basis points',
    field: ADMIN_FIELD,
    applied: ADMIN_APPLIED,
  },
  MARKETS_FULL: {
    max: 'the most markets the engine holds',
  },
  // ---- Engine: ledger and relay ------------------------------------------------------------------------
  LEDGER_AMOUNT_INVALID: {
    field: 'the engine command\'s amount that is not a valid integer: `usdcMicros`, `gasMicros`, ' +
      '`usdcAllowanceMicros` or `amountMicros`',
  },
  LEDGER_BALANCE_LIMIT: {
    asset: 'the asset a credit (or a chain sync\'s mints) would take past its limit: `USDC` or `GAS`',
  },
  LEDGER_INSUFFICIENT_BALANCE: {
    asset: '`USDC` (split), or the token id of the shares short (merge)',
    requiredMicros: 'the amount asked for, in micro-units',
    availableMicros: 'what the wallet holds free of its open orders, in micro-units',
  },
  LEDGER_ALLOWANCE_BELOW_HOLDS: {
    asset: '`USDC`, or the first token id whose shares open orders hold (an approval of 0 revokes shares too)',
    heldMicros: 'how much of `asset` open orders hold, in micro-units: cancel them first',
  },
  LEDGER_MARKET_RESOLVED: { marketId: MARKET_ID },
  LEDGER_MARKET_NOT_RESOLVED: { marketId: MARKET_ID, status: MARKET_STATUS },
  LEDGER_NOTHING_TO_REDEEM: { marketId: MARKET_ID },
  CHAIN_SYNC_STALE: {
    toBlock: 'the last block of the sync refused',
    chainBlock: 'the last block the ledger already follows',
  },
  CHAIN_SYNC_INVALID: { index: 'the position of the malformed entry in the sync' },
  TRADE_REVERSAL_INVALID: {
    field: 'the reversal\'s field that does not describe a trade the engine could have matched, or `chain`: '
      + 'the ledger follows no chain (on the builtin network a match is final)',
  },
  RELAY_INVALID: {
    field: 'the relay command\'s field that is invalid: `nonce`, `deadlineSec` or `action`',
  },
  RELAY_DEADLINE_PASSED: {
    deadlineSec: 'the request\'s deadline, unix seconds',
    nowSec: 'the server\'s time, unix seconds',
  },
  RELAY_NONCE_MISMATCH: {
    expected: 'the wallet\'s next relay nonce (GET /relay/nonce)',
    nonce: 'the nonce the request signed',
  },
  // ---- Engine: API keys --------------------------------------------------------------------------------
  API_KEY_EXISTS: {
    field: '`apiKey` (the key is taken) or `nonce` (this address has a key for this nonce: derive it)',
  },
  API_KEY_NOT_FOUND: {
    nonce: 'deriving: the nonce no key was created for',
  },
  API_KEY_INVALID: {
    field: 'the key field that is missing or malformed',
  },
  // ---- Service -----------------------------------------------------------------------------------------
  ENGINE_BUSY: {
    bytesMax: 'the command was larger than the engine\'s inbox takes: the most bytes one command may have',
  },
  SIGNATURE_POOL_BUSY: {
    pendingMax: 'when the whole pool is full: the most orders waiting for verification at once',
    perKeyMax: 'when this trader\'s share is full: the most orders of one address waiting at once',
    retryAfterSeconds: RETRY_AFTER,
  },
  SERVER_BUSY: {
    lagMs: 'how late the front end\'s thread ran its last timer, in ms: how long a request waited for it',
    lagMsMax: 'the lag past which order placements are shed (--shed-lag-ms)',
    retryAfterSeconds: RETRY_AFTER,
  },
  NOT_PRIMARY: {
    role: 'this node\'s role: `replica` (it follows the primary\'s command stream and serves reads), `standby` '
      + '(the same, and it takes over when the primary\'s lease lapses), or `deposed` (it was the primary and lost '
      + 'its lease: it takes nothing more until it is started again)',
    primary: 'where the primary answers, when this node knows it (its REST base URL), else null',
    retryAfterSeconds: RETRY_AFTER,
  },
  COMMAND_LOG_UNAVAILABLE: {
    retryAfterSeconds: RETRY_AFTER,
  },
  // ---- Authentication ----------------------------------------------------------------------------------
  AUTH_TIMESTAMP: {
    serverTime: 'the server\'s clock, unix seconds (as GET /time)',
    deltaSec: 'the request\'s timestamp minus the server\'s, in seconds (when the timestamp is a number)',
  },
  AUTH_L1_SIGNATURE: {
    chainId: 'the chain id the ClobAuth signature is checked for',
    recovered: 'the address the signature recovers to (empty when nothing recovers)',
  },
  // ---- API input ---------------------------------------------------------------------------------------
  BAD_REQUEST: {
    field: 'the part of the request that is wrong (`content-length`, a message\'s `type`, `operation` or ' +
      '`action`)',
  },
  INVALID_PARAMETER: {
    field: 'the parameter that is wrong, by its name on the wire (query, path, body or message field; `body` ' +
      'for the body as a whole, `path` for a path parameter)',
    max: 'the largest value, length or count the parameter takes',
    min: 'the smallest value the parameter takes',
    allowed: 'the values the parameter takes (e.g. the tick sizes, as decimals)',
    decimalsMax: 'the most decimal places a decimal amount takes',
    lengthMax: 'the most characters the parameter takes',
    candlesMax: 'the most candles one request may span',
    pointsMax: 'the most points one price history may have',
  },
  FORBIDDEN_KEY: {
    key: 'the JSON key refused (`__proto__`, `constructor`, `prototype`)',
  },
  BODY_TOO_LARGE: {
    bytesMax: 'the most bytes the route\'s body may have',
  },
  INVALID_SIGNATURE: {
    check: 'the check that failed: `signature-length`, `signature-zero`, `signature-range`, `signature-high-s`, ' +
      '`signature-v` (a malformed signature), `signature-type`, `signature-domain`, `signature-chain`, ' +
      '`signature-nested` (POLY_1271) or `signature-signer`',
    signatureType: '`signature-type`: the order\'s signature type (0 EOA, 1 proxy, 2 Safe, 3 POLY_1271)',
    maker: '`signature-type`: the order\'s maker',
    signer: '`signature-type` and `signature-signer`: the order\'s signer; for a relay request\'s ' +
      '`signature-signer`: the address its signature recovers to',
    wallet: '`signature-type`, POLY_1271: the deposit wallet (the order\'s signer)',
    signedBy: '`signature-type`, POLY_1271: the EOA that signed for the wallet',
    signedFor: '`signature-domain`: the exchange contract the signature was made for',
    expected: '`signature-domain`: the exchange contract this market needs',
    negRisk: '`signature-domain`: the market\'s neg_risk flag, which chooses the exchange',
    signedForChain: '`signature-chain`: the chain id the signature was made for',
    chainId: '`signature-chain`: the chain id of this exchange',
    recovered: '`signature-signer`: the address the order\'s signature recovers to',
    owner: 'a relay request\'s `signature-signer`: the wallet that had to sign (the request\'s owner)',
    contentsHash: '`signature-nested`: the contents hash the POLY_1271 signature carries (hex)',
    structHash: '`signature-nested`: the order\'s struct hash, which it had to be (hex)',
  },
  NOT_OWNER: {
    owner: 'the API key the order names as its owner, when it is not the key used',
    signer: 'the order\'s signer, when it is not the API key\'s address',
    address: 'the API key\'s address',
    signedBy: 'POLY_1271: the EOA that signed for the deposit wallet, when it is not the API key\'s address',
  },
  ORDER_VERSION_MISMATCH: {
    check: '`signature-version`',
    signedForVersion: 'the exchange version the order is signed for (3)',
    version: 'the version the order was taken as, and the one this server takes (2)',
  },
  ORDER_UNKNOWN: {
    orderID: 'the order id asked for (Polymarket\'s name)',
    clientOrderId: 'the client order id asked for',
  },
  RATE_LIMITED: {
    retryAfterSeconds: RETRY_AFTER,
    limit: 'the budget: requests (or book snapshots, or heartbeat chains) allowed in the window',
    windowSeconds: 'the budget\'s window, in seconds (absent for the pipelined burst and heartbeat chains)',
  },
  TOO_MANY_STREAMS: {
    max: 'the most streams of this kind one API key or client address may have open',
  },
  SLOW_CONSUMER: {
    backlogMax: 'the most messages that may wait for the client: past it the stream was ended',
  },
  SESSION_PROTOCOL: {
    inFlightMax: 'the most requests of an order-entry session that may wait for their answers',
  },
  DEAD_MAN_TIMER: {
    deadManMs: 'the session\'s dead-man interval, in milliseconds, that passed with no request',
  },
  FAUCET_COOLDOWN: {
    address: 'the address that used the faucet recently',
    retryAfterSeconds: RETRY_AFTER,
  },
  FAUCET_BUDGET: {
    retryAfterSeconds: RETRY_AFTER,
    creditsPerHour: 'the faucet\'s credits an hour, for all clients together',
  },
  CHAIN_REVERTED: {
    contract: 'the contract that refused, by role: `exchange`',
    errorName: 'its error\'s name (`Error` for a `require` message), for example `UnknownCondition`',
    reason: 'its message',
  },
  TOKENS_NOT_APPROVED: {
    owner: 'the wallet',
    operator: 'the settling exchange, to approve with a relayed `approve`, or the wallet\'s own '
      + '`setApprovalForAll(operator, true)` on the Conditional Tokens',
    conditionalTokens: 'the Conditional Tokens contract\'s address',
  },
  CHAIN_UNAVAILABLE: { retryAfterSeconds: RETRY_AFTER },
  SETTLEMENT_BACKLOG: {
    unsettledTrades: 'trades matched and not yet CONFIRMED nor FAILED',
    unsettledTradesMax: 'how many may wait before new orders do (`SETTLEMENT_UNSETTLED_MAX`)',
    retryAfterSeconds: RETRY_AFTER,
  },
}
