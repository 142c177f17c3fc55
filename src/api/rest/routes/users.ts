/**
 * Users' public data (api.md, "users"), for any address, without authentication, as a block
 * explorer would show it: profile and stats, activity, open orders, trades, balances,
 * redemptions, the ledger's on-chain events, and the portfolio history (read/portfolio.ts).
 * Nothing private is shown: orders and trades leave out the `owner` (the API key).
 */
import { transactionOf } from '../../../chain/transaction.js'
import type { ServiceContext } from '../../../service/context.js'
import { orderInfo, tradeInfo } from '../../format.js'
import { addressOf, decimalOfMicros, limitOf, page } from '../../wire.js'
import type { RestRequest, Route } from '../route.js'
import type { LedgerRecord } from '../../../read/read-model.js'
import type { Milestone } from '../../../read/portfolio.js'
import * as users from '../../../service/users.js'

function eventInfo(context: ServiceContext, record: LedgerRecord): Record<string, unknown> {
  const { transactionHash, blockNumber } = transactionOf(context.chainId, record.seq)
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

function milestoneInfo(context: ServiceContext, m: Milestone): Record<string, unknown> {
  return {
    time: new Date(m.timeMs).toISOString(), kind: m.kind, market_id: m.marketId === '' ? null : m.marketId,
    token_id: m.tokenId === '' ? null : m.tokenId, shares: decimalOfMicros(m.sharesMicros),
    price: m.priceMicros === null ? null : decimalOfMicros(m.priceMicros), usdc_delta: signedDecimal(m.usdcDeltaMicros),
    usdc_balance: signedDecimal(m.usdcBalanceMicros),
    positions: Object.fromEntries(Object.entries(m.positions).map(([token, shares]) => [token, signedDecimal(shares)])),
    transaction_hash: transactionOf(context.chainId, m.seq).transactionHash, block_number: m.seq,
  }
}

/** Removes every `owner` (an API key) from a formatted order or trade. */
function withoutOwners(value: Record<string, unknown>): Record<string, unknown> {
  const { owner: _owner, ...rest } = value
  if (Array.isArray(rest.maker_orders)) {
    rest.maker_orders = rest.maker_orders.map((m: Record<string, unknown>) => withoutOwners(m))
  }
  return rest
}

function paged<T>(
  request: RestRequest,
  items: readonly T[],
  format: (item: T) => Record<string, unknown>,
): Record<string, unknown> {
  const limit = limitOf(request.query.get('limit'))
  const { data, nextCursor } = page(items, request.query.get('next_cursor'), limit)
  return { limit, count: data.length, next_cursor: nextCursor, data: data.map(format) }
}

function profileInfo(profile: users.Profile): Record<string, unknown> {
  return {
    address: profile.address,
    first_seen: profile.firstSeenMs === null ? null : new Date(profile.firstSeenMs).toISOString(),
    trades_count: profile.tradesCount, volume: decimalOfMicros(profile.volumeMicros),
    markets_traded: profile.marketsTraded,
    realized_pnl: signedDecimal(profile.realizedPnlMicros), open_orders_count: profile.openOrdersCount,
  }
}

export const userRoutes: Route<ServiceContext>[] = [
  { method: 'GET', path: '/users/:address', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users',
      summary: 'Profile and stats: first seen, trades, volume (USDC), markets traded, realized P&L (average cost), '
        + 'open orders',
      response: '{address, first_seen, trades_count, volume, markets_traded, realized_pnl, open_orders_count}' },
    handler: (request, _identity, context) => ({
      body: profileInfo(users.profileOf(context, addressOf(request.params[0], 'address'))) }) },
  { method: 'GET', path: '/users/:address/portfolio-history', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users',
      summary: 'Position-changing events (buy, sell, mint, merge, redemption, deposit) with the running USDC balance '
        + 'and positions, oldest first',
      response: '{address, milestones: [{time, kind, market_id, token_id, shares, price, usdc_delta, usdc_balance, '
        + 'positions: {token_id: shares}, transaction_hash, block_number}]}' },
    handler: (request, _identity, context) => {
      const address = addressOf(request.params[0], 'address')
      const milestones = users.milestonesOf(context, address).map((m) => milestoneInfo(context, m))
      return { body: { address, milestones } }
    } },
  { method: 'GET', path: '/users/:address/activity', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users', summary: 'The portfolio history newest first, paginated',
      query: { next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: '{limit, count, next_cursor, data: [milestone]}' },
    handler: (request, _identity, context) => {
      const milestones = [...users.milestonesOf(context, addressOf(request.params[0], 'address'))].reverse()
      return { body: paged(request, milestones, (m) => milestoneInfo(context, m)) }
    } },
  { method: 'GET', path: '/users/:address/orders', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users', summary: 'Open orders of an address, oldest first (without the API key)',
      query: { next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: '{limit, count, next_cursor, data: [OrderInfo without owner]}' },
    handler: (request, _identity, context) => {
      const open = users.openOrdersOfAddress(context, addressOf(request.params[0], 'address'))
      return { body: paged(request, open, (o) => withoutOwners(orderInfo(context.read, o, false))) }
    } },
  { method: 'GET', path: '/users/:address/trades', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users', summary: 'Trades of an address as taker or maker, oldest first (without API keys)',
      query: { next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: '{limit, count, next_cursor, data: [Trade without owners]}' },
    handler: (request, _identity, context) => {
      const address = addressOf(request.params[0], 'address')
      const trades = users.tradesOfAddress(context, address)
      const format = (trade: (typeof trades)[number]): Record<string, unknown> =>
        withoutOwners(tradeInfo(context.read, trade, address, false, context.chainId))
      return { body: paged(request, trades, format) }
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
    handler: (request, _identity, context) => {
      const redemptions = users.redemptionsOf(context, addressOf(request.params[0], 'address'))
      return { body: paged(request, redemptions, (record) => eventInfo(context, record)) }
    } },
  { method: 'GET', path: '/users/:address/events', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users',
      summary: "An address's ledger events on the test network (credit, approve, split, merge, redeem), oldest first",
      query: { next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: '{limit, count, next_cursor, data: [{transaction_hash, block_number, log_index, action, address, '
        + 'market_id, condition_id, amount, payout, timestamp}]}' },
    handler: (request, _identity, context) => {
      const address = addressOf(request.params[0], 'address')
      return { body: paged(request, users.ledgerOf(context, address), (record) => eventInfo(context, record)) }
    } },
]
