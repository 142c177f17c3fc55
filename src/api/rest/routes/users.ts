/**
 * Users' public data (api.md, "users"), for any address, without authentication, as a block
 * explorer would show it: profile and stats, activity, open orders, trades, balances,
 * redemptions, the ledger's on-chain events, and the portfolio history (read/portfolio.ts).
 * Nothing private is shown: orders and trades leave out the `owner` (the API key). Lists are paged
 * by the services, each page charged to the client address's budget of entries read.
 */
import { transactionOf } from '../../../chain/transaction.js'
import { PORTFOLIO_PAGE_ENTRIES_MAX } from '../../../limits.js'
import type { ServiceContext } from '../../../service/context.js'
import { orderInfo, publicOrder, publicTrade, tradeInfo } from '../../format.js'
import type { Page } from '../../shapes/page.js'
import type { LedgerEvent, Milestone as MilestoneBody, UserProfile } from '../../shapes/user.js'
import { addressOf, cursorOfOffset, decimalOfMicros, limitOf, offsetOfCursor } from '../../wire.js'
import type { RestRequest } from '../route.js'
import type { TypedRoute } from '../typed-route.js'
import type { LedgerRecord } from '../../../read/read-model.js'
import type { Milestone } from '../../../read/portfolio.js'
import type { ChainTransaction } from '../../../engine/event.js'
import * as users from '../../../service/account/users.js'

function eventInfo(context: ServiceContext, record: LedgerRecord): LedgerEvent {
  // On a real chain, the chain's transaction; on the builtin network, the command's.
  const { transactionHash, blockNumber } = record.chainTransaction ?? transactionOf(context.chainId, record.seq)
  const market = record.marketId === '' ? undefined : context.read.markets.get(record.marketId)
  return {
    transaction_hash: transactionHash, block_number: blockNumber, log_index: record.index, action: record.action,
    address: record.address,
    market_id: record.marketId === '' ? null : record.marketId, condition_id: market?.conditionId ?? null,
    amount: decimalOfMicros(record.amountMicros), payout: decimalOfMicros(record.payoutMicros),
    timestamp: new Date(record.timeMs).toISOString(),
  }
}

/** A signed decimal string of micro-units. */
function signedDecimal(micros: number): string {
  return micros < 0 ? '-' + decimalOfMicros(-micros) : decimalOfMicros(micros)
}

/**
 * The transaction a milestone names: on a real chain, its fact's (a ledger milestone) or its
 * trade's settlement ('' and block 0 until it is in a block: a trade not settled yet, or FAILED);
 * on the builtin network, the command's.
 */
function milestoneTransaction(context: ServiceContext, m: Milestone): ChainTransaction {
  if (m.chainTransaction !== undefined && m.chainTransaction !== null) return m.chainTransaction
  if (context.settlement !== undefined && context.settlement !== null && m.tradeId !== undefined && m.tradeId !== '') {
    const settlement = context.settlement.of(m.tradeId, m.timeMs)
    return { transactionHash: settlement.transactionHash ?? '', blockNumber: settlement.blockNumber ?? 0 }
  }
  return transactionOf(context.chainId, m.seq)
}

function milestoneInfo(context: ServiceContext, m: Milestone): MilestoneBody {
  const { transactionHash, blockNumber } = milestoneTransaction(context, m)
  return {
    time: new Date(m.timeMs).toISOString(), kind: m.kind, market_id: m.marketId === '' ? null : m.marketId,
    token_id: m.tokenId === '' ? null : m.tokenId, shares: decimalOfMicros(m.sharesMicros),
    price: m.priceMicros === null ? null : decimalOfMicros(m.priceMicros), usdc_delta: signedDecimal(m.usdcDeltaMicros),
    usdc_balance: signedDecimal(m.usdcBalanceMicros),
    positions: Object.fromEntries(Object.entries(m.positions).map(([token, shares]) => [token, signedDecimal(shares)])),
    transaction_hash: transactionHash, block_number: blockNumber,
  }
}

/** The page a request asks for (`next_cursor`, `limit`). */
function pageRequestOf(request: RestRequest): users.PageRequest {
  return { offset: offsetOfCursor(request.query.get('next_cursor')), limit: limitOf(request.query.get('limit')) }
}

/** A page as the users endpoints answer it: `{limit, count, next_cursor, data: [...]}`. */
function paged<T, B>(limit: number, page: users.Paged<T>, format: (item: T) => B): Page<B> {
  return { limit, count: page.items.length, next_cursor: cursorOfOffset(page.nextOffset), data: page.items.map(format) }
}

/** Reads a page of `read` for the request's client address and formats it. */
function listed<T, B>(request: RestRequest,
  read: (address: string, page: users.PageRequest, caller: string) => users.Paged<T>,
  format: (item: T) => B): Page<B> {
  const address = addressOf(request.params[0], 'address')
  const page = pageRequestOf(request)
  return paged(page.limit, read(address, page, request.remoteAddress), format)
}

function profileInfo(profile: users.Profile): UserProfile {
  return {
    address: profile.address,
    first_seen: profile.firstSeenMs === null ? null : new Date(profile.firstSeenMs).toISOString(),
    trades_count: profile.tradesCount, volume: decimalOfMicros(profile.volumeMicros),
    markets_traded: profile.marketsTraded,
    realized_pnl: signedDecimal(profile.realizedPnlMicros), open_orders_count: profile.openOrdersCount,
  }
}

export const userRoutes: TypedRoute[] = [
  { method: 'GET', path: '/users/:address', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users',
      summary: 'Profile and stats: first seen, trades, volume (USDC), markets traded, realized P&L (average cost), '
        + 'open orders',
      response: '{address, first_seen, trades_count, volume, markets_traded, realized_pnl, open_orders_count}' },
    handler: (request, _identity, context) => ({
      body: profileInfo(users.profileOf(context, addressOf(request.params[0], 'address'), request.remoteAddress)) }) },
  { method: 'GET', path: '/users/:address/portfolio-history', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users',
      summary: 'Position-changing events (buy, sell, mint, merge, redemption, deposit; reversal: a trade whose '
        + 'settlement failed on a real chain, moved back) with the running USDC balance '
        + `and positions, oldest first, paginated (a page also stops before ${PORTFOLIO_PAGE_ENTRIES_MAX} milestones `
        + 'and positions)',
      query: { next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: '{address, limit, count, next_cursor, milestones: [{time, kind, market_id, token_id, shares, price, '
        + 'usdc_delta, usdc_balance, positions: {token_id: shares}, transaction_hash, block_number}]}' },
    handler: (request, _identity, context) => {
      const address = addressOf(request.params[0], 'address')
      const page = pageRequestOf(request)
      const milestones = users.milestonesOf(context, address, page, request.remoteAddress)
      const { data, ...head } = paged(page.limit, milestones, (m) => milestoneInfo(context, m))
      return { body: { address, ...head, milestones: data } }
    } },
  { method: 'GET', path: '/users/:address/activity', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users', summary: 'The portfolio history newest first, paginated',
      query: { next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: '{limit, count, next_cursor, data: [milestone]}' },
    handler: (request, _identity, context) => ({
      body: listed(request, (address, page, caller) => users.milestonesOf(context, address, page, caller, true),
        (m) => milestoneInfo(context, m)) }) },
  { method: 'GET', path: '/users/:address/orders', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users', summary: 'Open orders of an address, oldest first (without the API key)',
      query: { next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: '{limit, count, next_cursor, data: [OrderInfo without owner]}' },
    handler: (request, _identity, context) => ({
      body: listed(request, (address, page, caller) => users.openOrdersOfAddress(context, address, page, caller),
        (o) => publicOrder(orderInfo(context.read, o, false))) }) },
  { method: 'GET', path: '/users/:address/trades', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users', summary: 'Trades of an address as taker or maker, oldest first (without API keys)',
      query: { next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: '{limit, count, next_cursor, data: [Trade without owners]}' },
    handler: (request, _identity, context) => {
      const address = addressOf(request.params[0], 'address')
      return { body: listed(request, (_, page, caller) => users.tradesOfAddress(context, address, page, caller),
        (trade) => publicTrade(tradeInfo(context.read, trade, address, false, context.chainId,
          context.settlement?.of(trade.tradeId, trade.timeMs) ?? null))) }
    } },
  { method: 'GET', path: '/users/:address/balances', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users', summary: 'USDC and outcome-token balances of an address, exact, from the engine',
      response: '{address, usdc, usdc_held, tokens: [{token_id, market_id, outcome, shares, held}]}' },
    handler: async (request, _identity, context) => {
      const address = addressOf(request.params[0], 'address')
      const balances = await users.balancesOf(context, address)
      const tokens = balances.tokens.map((t) => ({ token_id: t.tokenId, market_id: t.marketId, outcome: t.outcome,
        shares: decimalOfMicros(t.balanceMicros), held: decimalOfMicros(t.heldMicros) }))
      return { body: { address, usdc: decimalOfMicros(balances.usdcMicros),
        usdc_held: decimalOfMicros(balances.usdcHeldMicros), tokens } }
    } },
  { method: 'GET', path: '/users/:address/redemptions', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users', summary: 'Redemptions of an address, oldest first',
      query: { next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: '{limit, count, next_cursor, data: [ledger event]}' },
    handler: (request, _identity, context) => ({
      body: listed(request, (address, page, caller) => users.redemptionsOf(context, address, page, caller),
        (record) => eventInfo(context, record)) }) },
  { method: 'GET', path: '/users/:address/events', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users',
      summary: "An address's ledger events on the test network (credit, approve, split, merge, redeem), oldest first",
      query: { next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: '{limit, count, next_cursor, data: [{transaction_hash, block_number, log_index, action, address, '
        + 'market_id, condition_id, amount, payout, timestamp}]}' },
    handler: (request, _identity, context) => ({
      body: listed(request, (address, page, caller) => users.ledgerOf(context, address, page, caller),
        (record) => eventInfo(context, record)) }) },
]
