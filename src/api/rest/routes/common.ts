/** Parsing shared by the route modules: token queries, batch bodies, and the authenticated caller. */
import type { MarketRecord } from '../../../engine/event.js'
import { ApiCode, PredexError } from '../../../errors.js'
import type { ServiceContext } from '../../../service/context.js'
import type { Trader } from '../../../service/trading/trading.js'
import { checkBatchLength, tokenOf } from '../../market-query.js'
import { tokenIdOf } from '../../wire.js'
import type { TokenSideQuery, Unparsed } from '../../shapes/requests.js'
import type { Identity, RestRequest } from '../route.js'

/** The `token_id` query parameter of a market-data read, and its market. */
export function tokenQuery(request: RestRequest, context: ServiceContext): { tokenId: string; market: MarketRecord } {
  return tokenOf(context, request.query.get('token_id'))
}

/** The identity an L1/L2 route always has (the server authenticated it). */
export function identityOf(identity: Identity | null): Identity {
  if (identity === null) throw new PredexError(ApiCode.INTERNAL, 'route without identity')
  return identity
}

/** The trader of an L2 route: the API key used and its wallet. */
export function traderOf(identity: Identity | null): Trader {
  const { apiKey, address } = identityOf(identity)
  if (apiKey === null) throw new PredexError(ApiCode.INTERNAL, 'L2 route without an API key')
  return { apiKey, address }
}

/** Parses `[{token_id, side?}]` bodies of the batch market-data reads (at most REST_BATCH_ITEMS_MAX items). */
export function tokenItems(body: unknown): { token_id: string; side?: string }[] {
  if (!Array.isArray(body)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'the body must be an array of {token_id}', { field: 'body' })
  }
  checkBatchLength(body.length)
  return body.map((item: unknown) => {
    const object = item as Unparsed<TokenSideQuery> | null
    if (object === null || typeof object !== 'object') {
      throw new PredexError(ApiCode.INVALID_PARAMETER, 'each item must be {token_id}')
    }
    return { token_id: tokenIdOf(object.token_id), ...(typeof object.side === 'string' ? { side: object.side } : {}) }
  })
}
