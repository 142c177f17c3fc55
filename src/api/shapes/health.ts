/** Health and readiness (GET /health, /ready); GET /time is a bare integer, GET /compat/ the string "OK". */

/** GET /health. */
export type Health = {
  readonly status: 'ok'
  /** The server's version (package.json), not the API's. */
  readonly version: string
  /** The engine sequence the read model has applied. */
  readonly seq: number
  /** Commands submitted and not yet durable (the same as pendingRequests). */
  readonly journalLag: number
  readonly uptimeSec: number
  readonly pendingRequests: number
  /** Bytes in use in the command ring, and its size. */
  readonly ringBytesUsed: number
  readonly ringBytes: number
  /**
   * primary (takes writes); replica: follows the primary's command stream, serves reads, refuses
   * writes; standby: a replica that takes over when the primary's lease lapses; deposed: was the
   * primary and lost its lease, takes nothing more.
   */
  readonly role: 'primary' | 'replica' | 'standby' | 'deposed'
  /** A replica's lag behind the primary; null on a primary. */
  readonly replicaLag: ReplicaLag | null
  /** The chain behind the test network (--chain; docs/testnet.md, "Chains"). */
  readonly chain: ChainHealth
}

/** GET /health's chain: `builtin` alone, or a real chain and how far the ledger follows it. */
export type ChainHealth = { readonly kind: 'builtin' } | {
  readonly kind: 'local' | 'rpc'
  /** Its JSON-RPC URL (loopback for a local chain, --chain-rpc-url for an external one). */
  readonly rpc_url: string | null
  readonly chain_id: number | null
  /** The last head block seen (polled once a block); null before the first answer. */
  readonly head_block: number | null
  /** Blocks on top of one before the ledger follows it and a settlement is CONFIRMED (--chain-confirmations). */
  readonly confirmations: number | null
  /** Why the last look at the node failed; null while it answers. */
  readonly rpc_error: string | null
  /** The last block whose facts the ledger has; null until the mirror follows. */
  readonly synced_block: number | null
  /** Transactions that moved funds in a way the ledger does not mirror yet (a direct split, merge or redemption). */
  readonly unmirrored_transactions: number
  /** Why the mirror's last step failed; null while it follows. */
  readonly mirror_error: string | null
  /**
   * Trades matched and not yet CONFIRMED nor FAILED; at SETTLEMENT_UNSETTLED_MAX new orders are
   * refused (503 SETTLEMENT_BACKLOG).
   */
  readonly unsettled_trades: number
}

/** How far a read replica is behind its primary (GET /health). */
export type ReplicaLag = {
  /** The newest seq it has heard of minus the last it has applied. */
  readonly seqsBehind: number
  /** Records the stream held beyond the newest one received. */
  readonly recordsPending: number
  /** How old the newest applied command is while behind, in ms; 0 when level. */
  readonly msBehind: number
}

/** GET /ready: 200 while commands are accepted (503 NOT_READY otherwise). */
export type Readiness = {
  readonly ready: true
  readonly seq: number
}

/** GET /time: unix seconds. */
export type ServerTime = number

/** GET /compat/: Polymarket's liveness answer. */
export type CompatLiveness = 'OK'
