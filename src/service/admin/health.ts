/** Liveness and readiness of the exchange, for every face. */
import { ApiCode, PredexError } from '../../errors.js'
import type { ServiceContext } from '../context.js'

export interface Health {
  readonly version: string
  /** The engine's sequence number as the read model has it (the last durable command). */
  readonly seq: number
  /** Commands submitted and not yet answered: they are acknowledged only once journaled. */
  readonly journalLag: number
  readonly uptimeSec: number
  readonly pendingRequests: number
  readonly ringBytesUsed: number
  readonly ringBytes: number
  /**
   * primary; replica: a node that follows the primary's command stream and refuses writes; standby:
   * a replica that takes over when the primary's lease lapses; deposed: was the primary and lost its
   * lease, takes nothing more (issue 34).
   */
  readonly role: 'primary' | 'replica' | 'standby' | 'deposed'
  /** A replica's lag behind the primary's stream; null on a primary. */
  readonly replicaLag: { readonly seqsBehind: number; readonly recordsPending: number; readonly msBehind: number }
    | null
  /**
   * The chain behind the test network (--chain; docs/testnet.md, "Chains"), its fields in
   * snake_case as issue 35 names them: `builtin` alone, or a real chain's JSON-RPC URL, id, last
   * head block seen, why the last look at it failed (null: it answered), and how far the ledger follows it.
   */
  readonly chain: ChainHealth
}

export type ChainHealth =
  | { readonly kind: 'builtin' }
  | { readonly kind: 'local' | 'rpc'; readonly rpc_url: string | null; readonly chain_id: number | null;
    readonly head_block: number | null; readonly confirmations: number | null; readonly rpc_error: string | null;
    readonly synced_block: number | null; readonly unmirrored_transactions: number;
    readonly mirror_error: string | null; readonly unsettled_trades: number }

export function healthOf(context: ServiceContext): Health {
  const load = context.host.load
  const lag = context.host.isReplica ? context.replica?.lag() ?? null : null
  return { version: context.version, seq: context.read.seq, journalLag: load.pendingRequests,
    uptimeSec: Math.floor((context.nowMs() - context.startedMs) / 1000), ...load,
    role: context.host.role,
    replicaLag: lag === null ? null
      : { seqsBehind: lag.seqsBehind, recordsPending: lag.recordsPending, msBehind: lag.msBehind },
    chain: chainHealthOf(context) }
}

function chainHealthOf(context: ServiceContext): ChainHealth {
  const status = context.chain.status()
  if (status.kind === 'builtin') return { kind: 'builtin' }
  const follower = status.follower
  return { kind: status.kind, rpc_url: status.rpcUrl, chain_id: status.chainId, head_block: status.headBlock,
    confirmations: status.confirmations, rpc_error: status.rpcError, synced_block: follower?.syncedBlock ?? null,
    unmirrored_transactions: follower?.unmirroredTransactions ?? 0, mirror_error: follower?.error ?? null,
    unsettled_trades: context.settlement?.unsettledCount() ?? 0 }
}

/**
 * The last durable seq while the engine takes commands; NOT_READY (with the reason) when it does
 * not. Asked for the primary (`role` "primary": a load balancer's check for where writes go), the
 * refusal a write would get: NOT_PRIMARY naming the primary on a replica or standby,
 * COMMAND_LOG_UNAVAILABLE while the replicated log has no quorum.
 */
export function readySeq(context: ServiceContext, role: string | null = null): number {
  if (role !== null && role !== 'primary') {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'Invalid role: the only role asked for is primary',
      { field: 'role' })
  }
  const reason = context.host.unavailableReason
  if (reason !== null && role === null) throw new PredexError(ApiCode.NOT_READY, `not ready: ${reason}`)
  const refusal = role === null ? null : context.host.writeRefusal()
  if (refusal !== null) throw refusal
  return context.read.seq
}
