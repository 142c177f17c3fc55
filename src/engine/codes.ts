/**
 * Rejection codes of the engine: stable strings that clients can switch on, each with the
 * human message clients of Polymarket's CLOB already know where one exists. The API's error
 * catalogue maps each code to an HTTP and gRPC status; this file only names them.
 * A rejected command changes nothing.
 */
export const Code = {
  // Order shape and market rules.
  INVALID_ORDER_PAYLOAD: 'INVALID_ORDER_PAYLOAD',
  INVALID_ORDER_AMOUNTS: 'INVALID_ORDER_AMOUNTS',
  INVALID_ORDER_PRICE: 'INVALID_ORDER_PRICE',
  INVALID_ORDER_MIN_TICK_SIZE: 'INVALID_ORDER_MIN_TICK_SIZE',
  INVALID_ORDER_MIN_SIZE: 'INVALID_ORDER_MIN_SIZE',
  INVALID_ORDER_SIZE_MAX: 'INVALID_ORDER_SIZE_MAX',
  INVALID_ORDER_EXPIRATION: 'INVALID_ORDER_EXPIRATION',
  INVALID_ORDER_FEE_RATE: 'INVALID_ORDER_FEE_RATE',
  INVALID_ORDER_DUPLICATED: 'INVALID_ORDER_DUPLICATED',
  CLIENT_ORDER_ID_DUPLICATED: 'CLIENT_ORDER_ID_DUPLICATED',
  INVALID_ORDER_NOT_ENOUGH_BALANCE: 'INVALID_ORDER_NOT_ENOUGH_BALANCE',
  INVALID_POST_ONLY_ORDER_TYPE: 'INVALID_POST_ONLY_ORDER_TYPE',
  INVALID_POST_ONLY_ORDER: 'INVALID_POST_ONLY_ORDER',
  FOK_ORDER_NOT_FILLED: 'FOK_ORDER_NOT_FILLED',
  FAK_ORDER_NOT_FILLED: 'FAK_ORDER_NOT_FILLED',
  TOKEN_NOT_FOUND: 'TOKEN_NOT_FOUND',
  MARKET_NOT_READY: 'MARKET_NOT_READY',
  MARKET_CANCEL_ONLY: 'MARKET_CANCEL_ONLY',
  MARKET_CLOSED: 'MARKET_CLOSED',
  BATCH_TOO_LARGE: 'BATCH_TOO_LARGE',
  ENGINE_ORDERS_FULL: 'ENGINE_ORDERS_FULL',
  // Cancels.
  ORDER_NOT_FOUND: 'ORDER_NOT_FOUND',
  ORDER_ALREADY_MATCHED: 'ORDER_ALREADY_MATCHED',
  ORDER_ALREADY_CANCELED: 'ORDER_ALREADY_CANCELED',
  CANCEL_TOO_MANY: 'CANCEL_TOO_MANY',
  // Order groups.
  ORDER_GROUP_INVALID: 'ORDER_GROUP_INVALID',
  ORDER_GROUP_NOT_FOUND: 'ORDER_GROUP_NOT_FOUND',
  ORDER_GROUP_EXISTS: 'ORDER_GROUP_EXISTS',
  ORDER_GROUPS_FULL: 'ORDER_GROUPS_FULL',
  ORDER_GROUP_TRIGGERED: 'ORDER_GROUP_TRIGGERED',
  // Mass quotes.
  MASS_QUOTE_INVALID: 'MASS_QUOTE_INVALID',
  MASS_QUOTE_TOO_LARGE: 'MASS_QUOTE_TOO_LARGE',
  // Amends.
  AMEND_SIZE_INVALID: 'AMEND_SIZE_INVALID',
  AMEND_NOT_REDUCING: 'AMEND_NOT_REDUCING',
  // Markets (admin).
  MARKET_NOT_FOUND: 'MARKET_NOT_FOUND',
  MARKET_EXISTS: 'MARKET_EXISTS',
  MARKET_INVALID: 'MARKET_INVALID',
  MARKET_STATUS_TRANSITION: 'MARKET_STATUS_TRANSITION',
  MARKET_TICK_SIZE_INVALID: 'MARKET_TICK_SIZE_INVALID',
  MARKET_TICK_SIZE_OFF_GRID: 'MARKET_TICK_SIZE_OFF_GRID',
  MARKET_FEE_RATE_INVALID: 'MARKET_FEE_RATE_INVALID',
  MARKETS_FULL: 'MARKETS_FULL',
  // Ledger (faucet, approvals, split, merge, redeem).
  LEDGER_AMOUNT_INVALID: 'LEDGER_AMOUNT_INVALID',
  LEDGER_BALANCE_LIMIT: 'LEDGER_BALANCE_LIMIT',
  LEDGER_INSUFFICIENT_BALANCE: 'LEDGER_INSUFFICIENT_BALANCE',
  LEDGER_ALLOWANCE_BELOW_HOLDS: 'LEDGER_ALLOWANCE_BELOW_HOLDS',
  LEDGER_MARKET_RESOLVED: 'LEDGER_MARKET_RESOLVED',
  LEDGER_MARKET_NOT_RESOLVED: 'LEDGER_MARKET_NOT_RESOLVED',
  LEDGER_NOTHING_TO_REDEEM: 'LEDGER_NOTHING_TO_REDEEM',
  // Gasless relay (the action's own rejections keep their ledger codes).
  RELAY_INVALID: 'RELAY_INVALID',
  RELAY_DEADLINE_PASSED: 'RELAY_DEADLINE_PASSED',
  RELAY_NONCE_MISMATCH: 'RELAY_NONCE_MISMATCH',
  // A real chain's facts (chain-sync.ts).
  CHAIN_SYNC_STALE: 'CHAIN_SYNC_STALE',
  CHAIN_SYNC_INVALID: 'CHAIN_SYNC_INVALID',
  TRADE_REVERSAL_INVALID: 'TRADE_REVERSAL_INVALID',
  // API keys.
  API_KEY_EXISTS: 'API_KEY_EXISTS',
  API_KEY_NOT_FOUND: 'API_KEY_NOT_FOUND',
  API_KEY_INVALID: 'API_KEY_INVALID',
} as const

export type Code = (typeof Code)[keyof typeof Code]

/** Default messages; Polymarket's wording where it has one (reference section 7). */
export const CODE_MESSAGES: Readonly<Record<Code, string>> = {
  INVALID_ORDER_PAYLOAD: 'Invalid order payload',
  INVALID_ORDER_AMOUNTS: 'invalid amounts',
  INVALID_ORDER_PRICE: 'invalid price: must lie strictly between 0 and 1',
  INVALID_ORDER_MIN_TICK_SIZE: 'order is invalid. Price breaks minimum tick size rule',
  INVALID_ORDER_MIN_SIZE: 'order is invalid. Size lower than the minimum',
  INVALID_ORDER_SIZE_MAX: 'order is invalid. Size above the maximum',
  INVALID_ORDER_EXPIRATION: 'invalid expiration',
  INVALID_ORDER_FEE_RATE: 'invalid fee rate: the order must carry the market fee rate',
  INVALID_ORDER_DUPLICATED: 'order is invalid. Duplicated.',
  CLIENT_ORDER_ID_DUPLICATED: 'a live order of this API key already has this client order id',
  INVALID_ORDER_NOT_ENOUGH_BALANCE: 'not enough balance / allowance',
  INVALID_POST_ONLY_ORDER_TYPE: 'invalid post-only order: only GTC and GTD orders can be post-only',
  INVALID_POST_ONLY_ORDER: 'invalid post-only order: order crosses book',
  FOK_ORDER_NOT_FILLED: "order couldn't be fully filled. FOK orders are fully filled or killed.",
  FAK_ORDER_NOT_FILLED:
    'no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found.',
  TOKEN_NOT_FOUND: 'No orderbook exists for the requested token id',
  MARKET_NOT_READY: 'the market is not yet ready to process new orders',
  MARKET_CANCEL_ONLY:
    'Trading is currently cancel-only. New orders are not accepted, but cancels are allowed.',
  MARKET_CLOSED: 'the market is closed: new orders are not accepted',
  BATCH_TOO_LARGE: 'Too many orders in payload',
  ENGINE_ORDERS_FULL: 'the exchange holds as many open orders as it can; try again later',
  ORDER_NOT_FOUND: 'Order not found or already canceled',
  ORDER_ALREADY_MATCHED: 'Order already matched',
  ORDER_ALREADY_CANCELED: 'the order is already canceled',
  CANCEL_TOO_MANY: 'Too many orders in payload',
  ORDER_GROUP_INVALID: 'invalid order group: an id of 1 to 64 printable characters, a limit on contracts or notional, '
    + 'a window of 1 to 60 s in steps of 0.1 s, a freeze of at most an hour',
  ORDER_GROUP_NOT_FOUND: 'no order group of this API key has this id',
  ORDER_GROUP_EXISTS: 'an order group of this API key already has this id',
  ORDER_GROUPS_FULL: 'this API key (or the exchange) has as many order groups as it may',
  ORDER_GROUP_TRIGGERED:
    'the order group was triggered by its fill limits: it takes no orders until it is reset (or its freeze ends)',
  MASS_QUOTE_INVALID:
    'invalid mass quote: every order must be one of its market\'s, placed with the same API key, each named once',
  MASS_QUOTE_TOO_LARGE: 'a mass quote names at most 20 orders on each side of the book',
  AMEND_SIZE_INVALID:
    'invalid amend: give exactly one of new_size and reduce_by, a positive multiple of 0.01 share',
  AMEND_NOT_REDUCING:
    'an amend only lowers the remaining size: to raise it or change the price, cancel-replace the order',
  MARKET_NOT_FOUND: 'market not found',
  MARKET_EXISTS: 'a market with this id, condition id, slug or token id already exists',
  MARKET_INVALID: 'Invalid market',
  MARKET_STATUS_TRANSITION: 'this market status change is not allowed',
  MARKET_TICK_SIZE_INVALID: 'invalid tick size: allowed are 0.1, 0.01, 0.001 and 0.0001',
  MARKET_TICK_SIZE_OFF_GRID: 'resting orders would lie off the new tick grid',
  MARKET_FEE_RATE_INVALID: 'invalid fee rate',
  MARKETS_FULL: 'the exchange holds as many markets as it can',
  LEDGER_AMOUNT_INVALID: 'invalid amount',
  LEDGER_BALANCE_LIMIT: 'the balance would exceed the largest allowed balance',
  LEDGER_INSUFFICIENT_BALANCE: 'not enough balance',
  LEDGER_ALLOWANCE_BELOW_HOLDS:
    'the allowance would be below what open orders hold: cancel them first',
  LEDGER_MARKET_RESOLVED: 'the market is resolved',
  LEDGER_MARKET_NOT_RESOLVED: 'the market is not resolved yet',
  LEDGER_NOTHING_TO_REDEEM: 'nothing to redeem',
  CHAIN_SYNC_STALE: 'the chain sync does not go past the last block the ledger follows',
  CHAIN_SYNC_INVALID: 'invalid chain sync entry',
  TRADE_REVERSAL_INVALID: 'invalid trade reversal',
  RELAY_INVALID: 'invalid relay request',
  RELAY_DEADLINE_PASSED: 'the relay deadline has passed',
  RELAY_NONCE_MISMATCH: 'invalid relay nonce: it must equal the next relay nonce of the owner',
  API_KEY_EXISTS: 'Could not create api key',
  API_KEY_NOT_FOUND: 'api key not found',
  API_KEY_INVALID: 'invalid api key record',
}
