/**
 * Reads answered by the engine worker from the engine's state (exact, and released only after
 * every command applied before them is durable, so a read never shows what a crash could undo).
 * The read models for history (trades, portfolio) come later, fed by the events.
 */
import type { Engine } from '../engine/engine.js'
import { stateHashOf } from '../engine/snapshot.js'
import { accountSummaryOf, bookOf, type BookView } from '../engine/view.js'
import type { AccountSummary } from '../engine/summary.js'
import { checkInvariants } from '../engine/invariants.js'
import type { MarketRecord } from '../engine/event.js'
import { isDerived, type ApiKeyRecord } from '../engine/api-key.js'
import { threadMemory, type ThreadMemory } from './thread-memory.js'
import { queueAheadMicros } from '../engine/queue.js'
import { orderGroupsOf, type OrderGroupView } from '../engine/order-group.js'
import { QUEUE_QUERY_ORDERS_MAX } from '../limits.js'
import { assert } from '../stdx/assert.js'

export type Query =
  | { readonly kind: 'status' }
  | { readonly kind: 'book'; readonly tokenId: string; readonly unified: boolean; readonly depthMax: number }
  | { readonly kind: 'account'; readonly address: string }
  | { readonly kind: 'stateHash' }
  /** Every API credential (legacy secrets in clear included): for the front end's credential store only. */
  | { readonly kind: 'apiKeys' }
  | { readonly kind: 'markets' }
  /**
   * The heaps of the engine's threads (thread-memory.ts: each its own V8 isolate, which the main
   * thread's figures do not count): the worker answers with its own and the journal thread adds
   * its own and the snapshot replica's. With `collect`, each thread runs a full collection first
   * when the process runs with --expose-gc, so that a memory bench samples live data and not
   * garbage a later collection would free.
   */
  | { readonly kind: 'memory'; readonly collect: boolean }
  /** The micro-shares ahead of each order in its level's queue (null: not live); at most QUEUE_QUERY_ORDERS_MAX. */
  | { readonly kind: 'queue'; readonly orderIds: readonly string[] }
  /** An API key's order groups (at most ORDER_GROUPS_PER_KEY_MAX). */
  | { readonly kind: 'orderGroups'; readonly owner: string }

export type QueryAnswer =
  | {
    readonly kind: 'status'
    readonly seq: number
    readonly timeMs: number
    readonly openOrders: number
    readonly markets: number
    /** The last block of a real chain the ledger follows (0: none). */
    readonly chainBlock: number
  }
  | { readonly kind: 'book'; readonly book: BookView | null }
  | { readonly kind: 'account'; readonly account: AccountSummary | null }
  | { readonly kind: 'stateHash'; readonly seq: number; readonly stateHash: string; readonly invariantsHold: boolean }
  | { readonly kind: 'apiKeys'; readonly keys: readonly ApiKeyEntry[] }
  | { readonly kind: 'markets'; readonly markets: readonly MarketRecord[] }
  | { readonly kind: 'memory'; readonly threads: readonly ThreadMemory[] }
  | { readonly kind: 'queue'; readonly aheadMicros: readonly (number | null)[] }
  | { readonly kind: 'orderGroups'; readonly groups: readonly OrderGroupView[] }

/** One API key; `stored` null when its secret and passphrase derive from the master key (none kept). */
export interface ApiKeyEntry {
  readonly apiKey: string
  readonly address: string
  readonly nonce: number
  readonly stored: { readonly secret: string; readonly passphrase: string } | null
}

export function answer(engine: Engine, query: Query): QueryAnswer {
  switch (query.kind) {
    case 'status':
      return { kind: 'status', seq: engine.seq, timeMs: engine.timeMs, openOrders: engine.openOrderCount,
        markets: engine.markets.length, chainBlock: engine.chainBlock }
    case 'book':
      return { kind: 'book', book: bookOf(engine, query.tokenId, query.unified, query.depthMax) }
    case 'account': {
      const account = engine.accountsByAddress.get(query.address)
      return { kind: 'account', account: account === undefined ? null : accountSummaryOf(account) }
    }
    case 'stateHash':
      return { kind: 'stateHash', seq: engine.seq, stateHash: stateHashOf(engine),
        invariantsHold: invariantsHold(engine) }
    case 'markets':
      return { kind: 'markets', markets: engine.markets.map((market) => market.record()) }
    case 'apiKeys':
      return { kind: 'apiKeys', keys: [...engine.apiKeys.values()].map(apiKeyEntryOf) }
    case 'memory':
      return { kind: 'memory', threads: [threadMemory('engine', query.collect)] }
    case 'queue':
      assert(query.orderIds.length <= QUEUE_QUERY_ORDERS_MAX, 'a queue query is bounded')
      return { kind: 'queue', aheadMicros: query.orderIds.map((orderId) => queueAheadMicros(engine, orderId)) }
    case 'orderGroups':
      return { kind: 'orderGroups', groups: orderGroupsOf(engine, query.owner) }
  }
}

function apiKeyEntryOf(key: ApiKeyRecord): ApiKeyEntry {
  const { apiKey, address, nonce, secret, passphrase } = key
  return { apiKey, address, nonce, stored: isDerived(key) ? null : { secret, passphrase } }
}

function invariantsHold(engine: Engine): boolean {
  try {
    checkInvariants(engine)
    return true
  } catch {
    return false
  }
}
