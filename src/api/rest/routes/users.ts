/**
 * Users' public data (api.md, "users"). So far the ledger's on-chain event history of an
 * address: every credit, approval, split, merge and redemption with its transaction, as a block
 * explorer would list them. Profiles, activity and portfolio history come with their own issue.
 */
import { transactionOf } from '../../../chain/transaction.js'
import type { ApiContext } from '../../context.js'
import { addressOf, decimalOfMicros, limitOf, page } from '../../wire.js'
import type { Route } from '../route.js'
import type { LedgerRecord } from '../../../read/read-model.js'

function eventInfo(context: ApiContext, record: LedgerRecord): Record<string, unknown> {
  const { transactionHash, blockNumber } = transactionOf(context.chainId, record.seq)
  const market = record.marketId === '' ? undefined : context.read.markets.get(record.marketId)
  return {
    transaction_hash: transactionHash, block_number: blockNumber, log_index: record.index, action: record.action, address: record.address,
    market_id: record.marketId === '' ? null : record.marketId, condition_id: market?.conditionId ?? null,
    amount: decimalOfMicros(record.amountMicros), payout: decimalOfMicros(record.payoutMicros),
    timestamp: new Date(record.timeMs).toISOString(),
  }
}

export const userRoutes: Route<ApiContext>[] = [
  { method: 'GET', path: '/users/:address/events', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'users', summary: "An address's ledger events on the test network (credit, approve, split, merge, redeem), oldest first",
      query: { next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: '{limit, count, next_cursor, data: [{transaction_hash, block_number, log_index, action, address, market_id, condition_id, amount, payout, timestamp}]}' },
    handler: (request, _identity, context) => {
      const address = addressOf(request.params[0], 'address')
      const limit = limitOf(request.query.get('limit'))
      const { data, nextCursor } = page(context.read.ledgerByAddress.get(address) ?? [], request.query.get('next_cursor'), limit)
      return { body: { limit, count: data.length, next_cursor: nextCursor, data: data.map((record) => eventInfo(context, record)) } }
    } },
]
