/** Helpers shared by the route modules: looking things up in the read model, or failing with a catalogue code. */
import { Code, CODE_MESSAGES } from '../../../engine/codes.js'
import type { MarketRecord } from '../../../engine/event.js'
import type { Rejection } from '../../../engine/result.js'
import type { UnstampedCommand } from '../../../engine/command.js'
import type { Outcome } from '../../../host/messages.js'
import type { AccountSummary } from '../../../engine/summary.js'
import { ApiCode, PredexError } from '../../../errors.js'
import type { ServiceContext } from '../../../service/context.js'
import type { Identity, RestRequest } from '../route.js'
import { tokenIdOf } from '../../wire.js'
import { REST_BATCH_ITEMS_MAX } from '../../../limits.js'

export function marketOfToken(context: ServiceContext, tokenId: string): MarketRecord {
  const marketId = context.read.tokens.get(tokenId)
  const market = marketId === undefined ? undefined : context.read.markets.get(marketId)
  if (market === undefined) throw new PredexError(Code.TOKEN_NOT_FOUND, 'No orderbook exists for the requested token id', { tokenId })
  return market
}

/** The `token_id` query parameter of a market-data read, and its market. */
export function tokenQuery(request: RestRequest, context: ServiceContext): { tokenId: string; market: MarketRecord } {
  const raw = request.query.get('token_id')
  if (raw === null || raw === '') throw new PredexError(ApiCode.INVALID_PARAMETER, 'Invalid token id: token_id is required', { field: 'token_id' })
  const tokenId = tokenIdOf(raw)
  return { tokenId, market: marketOfToken(context, tokenId) }
}

/** A market by UUID, condition id or slug. */
export function marketById(context: ServiceContext, id: string): MarketRecord {
  const read = context.read
  const market = read.markets.get(id) ?? read.marketsByConditionId.get(id) ?? read.marketsBySlug.get(id)
  if (market === undefined) throw new PredexError(Code.MARKET_NOT_FOUND, CODE_MESSAGES.MARKET_NOT_FOUND, { id })
  return market
}

/** Submits one engine command and waits until it is durable; the commit latency goes to the metrics. */
export async function submitCommand(context: ServiceContext, command: UnstampedCommand): Promise<Outcome> {
  const started = performance.now()
  const outcome = await context.host.submit(command)
  context.metrics.observeCommit(performance.now() - started)
  return outcome
}

/** The engine's exact account of `address` (null: it never appeared), read once everything before is durable. */
export async function accountOf(context: ServiceContext, address: string): Promise<AccountSummary | null> {
  const answer = await context.host.query({ kind: 'account', address })
  return answer.kind === 'account' ? answer.account : null
}

/** USDC a new order may hold, by the engine's rule (docs/engine.md, "Holds"): min(balance, allowance) - held. */
export function availableUsdcMicros(account: AccountSummary | null): number {
  return account === null ? 0 : Math.max(0, Math.min(account.usdcMicros, account.usdcAllowanceMicros) - account.usdcHeldMicros)
}

export function rejectionError(rejection: Rejection): PredexError {
  return new PredexError(rejection.code, rejection.message, rejection.context)
}

/** The identity an L1/L2 route always has (the server authenticated it). */
export function identityOf(identity: Identity | null): Identity {
  if (identity === null) throw new PredexError(ApiCode.INTERNAL, 'route without identity')
  return identity
}

/** Parses `[{token_id, side?}]` bodies of the batch market-data reads (at most REST_BATCH_ITEMS_MAX items). */
export function tokenItems(body: unknown): { token_id: string; side?: string }[] {
  if (!Array.isArray(body)) throw new PredexError(ApiCode.INVALID_PARAMETER, 'the body must be an array of {token_id}', { field: 'body' })
  if (body.length > REST_BATCH_ITEMS_MAX) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `Payload exceeds the limit: at most ${REST_BATCH_ITEMS_MAX} items`, { max: REST_BATCH_ITEMS_MAX })
  }
  return body.map((item: unknown) => {
    const object = item as { token_id?: unknown; side?: unknown }
    if (object === null || typeof object !== 'object') throw new PredexError(ApiCode.INVALID_PARAMETER, 'each item must be {token_id}')
    return { token_id: tokenIdOf(object.token_id), ...(typeof object.side === 'string' ? { side: object.side } : {}) }
  })
}
