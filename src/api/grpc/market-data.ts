/**
 * gRPC MarketDataService: public reads, each calling what its REST route calls (the market and
 * market-data services, the REST shapes, market-query.ts) so both faces answer the same values and
 * refuse with the same codes: an unknown token is TOKEN_NOT_FOUND, a bad side or interval
 * INVALID_PARAMETER. No rate budget of their own, as their REST routes: the address's general one.
 */
import type { UntypedServiceImplementation } from '@grpc/grpc-js'
import { MarketDataService } from '../../gen/predex/v1/market_data_pb.js'
import type { ServiceContext } from '../../service/context.js'
import * as marketData from '../../service/market-data/market-data.js'
import { allMarkets, marketById } from '../../service/market-data/markets.js'
import { cachedBook } from '../book-cache.js'
import { bookSummary, nativeMarket, tickText } from '../format.js'
import { candleRows, checkBatchLength, lastTradeText, midpointText, priceText, quoteSideOf, spreadText, tokenOf }
  from '../market-query.js'
import { tokenIdOf } from '../wire.js'
import type { PageRequest } from '../../gen/predex/v1/common_pb.js'
import type { GrpcFace } from './call.js'
import { unaryService } from './call.js'
import { pageOf, secondsOf } from './query.js'
import { bookMessage, candleMessage, intervalText, marketMessage, optional, quoteSideText, sideMessage }
  from './market-messages.js'

function bookOfToken(context: ServiceContext, tokenId: string, unified: boolean) {
  return { book: bookMessage(cachedBook(context, tokenOf(context, tokenId).tokenId, unified).summary) }
}

function listMarkets(context: ServiceContext, request: PageRequest | undefined) {
  const { data, ...rest } = pageOf(allMarkets(context), request)
  return { ...rest, data: data.map((market) => marketMessage(nativeMarket(context.read, market))) }
}

function books(context: ServiceContext, tokenIds: readonly string[]) {
  checkBatchLength(tokenIds.length)
  const valid = tokenIds.map((tokenId) => tokenIdOf(tokenId))
  return { books: valid.map((tokenId) => bookMessage(bookSummary(context.read,
    marketData.bookOf(context, tokenId, false).book, context.nowMs()))) }
}

export function marketDataService(face: GrpcFace): UntypedServiceImplementation {
  const context = face.context
  return unaryService(face, MarketDataService, {
    listMarkets: { auth: 'none',
      handle: (request) => listMarkets(context, request.page) },
    getMarket: { auth: 'none',
      handle: (request) => ({ market: marketMessage(nativeMarket(context.read, marketById(context, request.market))) }),
    },
    getBook: { auth: 'none', handle: (request) => bookOfToken(context, request.tokenId, false) },
    getUnifiedBook: { auth: 'none', handle: (request) => bookOfToken(context, request.tokenId, true) },
    getBooks: { auth: 'none', handle: (request) => books(context, request.tokenIds) },
    getMidpoint: { auth: 'none',
      handle: (request) => ({ mid: optional(midpointText(context, tokenOf(context, request.tokenId).tokenId)) }) },
    getPrice: { auth: 'none', handle: (request) => {
      const { tokenId } = tokenOf(context, request.tokenId)
      const side = quoteSideOf(quoteSideText(request.side))
      return { price: optional(priceText(marketData.priceOf(context, tokenId, side))) }
    } },
    getSpread: { auth: 'none',
      handle: (request) => ({ spread: optional(spreadText(context, tokenOf(context, request.tokenId).tokenId)) }) },
    getLastTradePrice: { auth: 'none', handle: (request) => {
      const last = lastTradeText(context, tokenOf(context, request.tokenId).tokenId)
      return { price: optional(last.price), side: sideMessage(last.side) }
    } },
    getTickSize: { auth: 'none',
      handle: (request) => ({ minimumTickSize: tickText(tokenOf(context, request.tokenId).market.tickSizeMicros) }) },
    getFeeRate: { auth: 'none',
      handle: (request) => ({ baseFeeBps: tokenOf(context, request.tokenId).market.feeRateBps }) },
    getCandles: { auth: 'none', handle: (request) => ({ candles: candleRows(context, { symbol: request.symbol,
      interval: intervalText(request.interval), fromSec: secondsOf(request.from, 'from'),
      toSec: secondsOf(request.to, 'to') }).map(candleMessage) }) },
  })
}
