/**
 * Markets over REST (src/service/market-data/markets.ts): list, one by UUID, condition id or
 * slug, upcoming, resolving.
 */
import type { MarketRecord } from '../../../engine/event.js'
import type { ServiceContext } from '../../../service/context.js'
import { compatMarket, nativeMarket } from '../../format.js'
import { limitOf, page } from '../../wire.js'
import type { CompatMarket, NativeMarket } from '../../shapes/market.js'
import type { Page } from '../../shapes/page.js'
import type { RestRequest } from '../route.js'
import type { TypedRoute } from '../typed-route.js'
import { allMarkets, marketById, resolvingMarkets, upcomingMarkets } from '../../../service/market-data/markets.js'

const GET = 'GET' as const

function formatted(context: ServiceContext, request: RestRequest, market: MarketRecord): NativeMarket | CompatMarket {
  return request.compat ? compatMarket(context.read, market) : nativeMarket(context.read, market)
}

function listing(context: ServiceContext, request: RestRequest, markets: readonly MarketRecord[]):
  Page<NativeMarket> | Page<CompatMarket> {
  const limit = limitOf(request.query.get('limit'))
  const { data, nextCursor } = page(markets, request.query.get('next_cursor'), limit)
  const head = { limit, count: data.length, next_cursor: nextCursor }
  return request.compat ? { ...head, data: data.map((m) => compatMarket(context.read, m)) }
    : { ...head, data: data.map((m) => nativeMarket(context.read, m)) }
}

export const marketRoutes: TypedRoute[] = [
  { method: GET, path: '/markets', auth: 'none', bodyMax: 0,
    openapi: { tag: 'markets', summary: 'All markets, paginated',
      query: { next_cursor: 'cursor (MA== first, LTE= end)', limit: 'page size, 1..500' },
      response: '{limit, count, next_cursor, data: [Market]}' },
    handler: (request, _identity, context) => ({ body: listing(context, request, allMarkets(context)) }) },
  { method: GET, path: '/markets/upcoming', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'markets', summary: 'Markets listed but not trading yet',
      query: { limit: 'at most this many (default 100, max 500)' }, response: '[Market]' },
    handler: (request, _identity, context) => {
      const upcoming = upcomingMarkets(context, limitOf(request.query.get('limit')))
      return { body: upcoming.map((m) => nativeMarket(context.read, m)) }
    } },
  { method: GET, path: '/markets/resolving', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'markets', summary: 'Markets whose outcome is proposed', response: '[Market]' },
    handler: (_request, _identity, context) =>
      ({ body: resolvingMarkets(context).map((m) => nativeMarket(context.read, m)) }) },
  { method: GET, path: '/markets/:id', auth: 'none', bodyMax: 0,
    openapi: { tag: 'markets', summary: 'One market by UUID, condition id or slug', response: 'Market' },
    handler: (request, _identity, context) =>
      ({ body: formatted(context, request, marketById(context, request.params[0]!)) }) },
]
