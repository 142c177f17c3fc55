/**
 * The one limits module: the engine's bounds (src/engine/limits.ts, kept there so the engine
 * stays self-contained and pure) and the bounds of everything around it. Every queue in Predex
 * has its bound here; when one is reached the caller gets a fast, explicit error.
 */
import { assert } from './stdx/assert.js'
import { BATCH_ORDERS_MAX, CANCEL_IDS_MAX, CLIENT_ORDER_ID_LENGTH_MAX, MASS_QUOTE_LEVELS_MAX } from './engine/limits.js'

export * from './engine/limits.js'

/** Orders in one batch on the native faces (REST and gRPC): the seed's limit; /compat takes BATCH_ORDERS_MAX. */
export const NATIVE_BATCH_ORDERS_MAX = 10
assert(NATIVE_BATCH_ORDERS_MAX <= BATCH_ORDERS_MAX, 'a native batch is one engine command')

/** Bytes of the command ring between the front end and the engine worker. */
export const COMMAND_RING_BYTES = 16 * 1024 * 1024
/**
 * Largest encoded command: a batch of 10 orders is about 4 KiB, a cancel of CANCEL_IDS_MAX order
 * ids (0x and 64 hex digits) about 68 KiB.
 */
export const COMMAND_BYTES_MAX = 128 * 1024
/** Characters of an order id: an EIP-712 hash, 0x and 64 hex digits. */
const ORDER_ID_CHARS = 66
/** Submitted commands waiting for their result, across the whole process. */
export const PENDING_REQUESTS_MAX = 65_536
/**
 * Commands in one journal transaction (a group). One group is written while the next one fills;
 * when that one is full too, the worker stops taking commands until the write is done (the ring
 * then fills and callers get ENGINE_BUSY).
 */
export const BATCH_COMMANDS_MAX = 4_096
/**
 * Commands the engine worker decodes before it applies them (a run: engine-worker.ts,
 * applyFromRing); they stay in the command ring until applied. On one thread, runs of 16, 64, 256
 * or 4 096 cost the same, about 0.4 µs a command less than decoding and applying in turns; a
 * short run keeps a lightly loaded engine's first command as prompt.
 */
export const DECODE_RUN_MAX = 64
assert(DECODE_RUN_MAX <= BATCH_COMMANDS_MAX, 'a run fits in a group')
/**
 * Bytes of one batch record at most: the replicated command log publishes a record as one NATS
 * message, and nats-server refuses a message past its max_payload (1 MiB unless configured), which
 * the log took for a missing answer and retried for ever (writes stalled). 4 096 orders of some
 * 215 bytes are 880 KB; the largest commands (COMMAND_BYTES_MAX) fill it in 7. The rest of the
 * MiB is left for the message's headers. A replicated start checks the servers' max_payload.
 */
export const BATCH_RECORD_BYTES_MAX = 1024 * 1024 - 64 * 1024
/**
 * Requests the host's hop trace (benchmarks only, src/host/hop-trace.ts) holds at once, a slot
 * per request id modulo this: 2 MiB of timestamps, allocated only when the trace is asked for.
 */
export const HOP_TRACE_SLOTS = 65_536
/**
 * Strings a thread's command decoder keeps, to give back when the same bytes come again
 * (src/stdx/string-cache.ts: addresses, API keys, token ids), and the longest it keeps: at most
 * 4 096 strings of 128 characters, about 1 MiB a thread.
 */
export const DECODED_STRINGS_CACHED_MAX = 4_096
export const DECODED_STRING_CACHED_LENGTH_MAX = 128
/** The engine writes a snapshot every this many commands. */
export const SNAPSHOT_EVERY_COMMANDS = 100_000
/** Snapshots kept in the data directory (older ones are deleted). */
export const SNAPSHOTS_KEPT = 2
/**
 * A snapshot's file is flushed every this many bytes as it is written (snapshot-files.ts): the
 * disk's queue then never holds a whole snapshot in front of the journal's next commit. Measured
 * in an open loop at 77 k commands/s, six runs each: the commit's p99 1.8-5.7 ms against 3.1-11
 * with one flush at the end, the ack p99 15-37 ms against 21-55.
 */
export const SNAPSHOT_FLUSH_BYTES = 1 << 20
/**
 * Snapshots the replica (src/host/snapshot-thread.ts) holds asked for and not yet made: a replica
 * that has fallen further behind drops the oldest, which retention would delete anyway.
 */
export const SNAPSHOTS_WANTED_MAX = SNAPSHOTS_KEPT
/** The replica is told how far the journal is durable after this many commands (journal-thread.ts). */
export const REPLICA_FOLLOW_COMMANDS = 4_096
/** Commands the replica applies between two looks at its messages (a `stop`, a new target). */
export const REPLICA_SLICE_COMMANDS = 4_096
/** Queries waiting for an answer from the engine worker. */
export const PENDING_QUERIES_MAX = 4_096
/**
 * How long opening a data directory waits for its lock while another process holds it. A process
 * killed with -9 gives the kernel's lock back only once it has exited, a few milliseconds after
 * the signal (more while the kernel unmaps a large LMDB map): a restart right after the kill waits
 * for that instead of being refused. A live holder is named after this wait.
 */
export const DATA_DIR_LOCK_WAIT_MS_MAX = 2_000
/**
 * The nice value of the signature-verification threads (0 is the default, 19 the lowest
 * priority): the main thread and the engine worker run first (src/crypto/verify-worker.ts).
 */
export const VERIFIER_THREAD_NICE = 10

assert(COMMAND_BYTES_MAX * 4 <= COMMAND_RING_BYTES, 'several of the largest commands fit in the ring')
assert(COMMAND_BYTES_MAX * 4 <= BATCH_RECORD_BYTES_MAX, 'several of the largest commands fit in a record')
// A cancel of the most ids, order hashes or the longest client order ids, is one command: each id
// costs a value tag, a length of up to 2 bytes and its characters; 1 KiB is for the rest.
assert(CANCEL_IDS_MAX * (3 + Math.max(ORDER_ID_CHARS, CLIENT_ORDER_ID_LENGTH_MAX)) + 1_024 <= COMMAND_BYTES_MAX,
  'a cancel of the most ids fits in one command')
assert(BATCH_COMMANDS_MAX <= PENDING_REQUESTS_MAX, 'a batch never holds more than the pending requests')
assert(SNAPSHOTS_KEPT >= 2, 'keep a spare snapshot in case the newest is damaged')

/**
 * Threads whose CPU /metrics reports by name (src/thread-cpu.ts): the main thread, the
 * engine's three, a verification thread per core, and any restarted; past it, a thread counts
 * under `other`.
 */
export const THREADS_NAMED_MAX = 64

/** Orders in one signature-verification task (one message to a pool thread). */
export const VERIFY_BATCH_MAX = 64
/**
 * Orders in signature verification at once (queued or being verified); beyond this a new order
 * is refused at once with 503 SIGNATURE_POOL_BUSY and Retry-After. Counted in orders, not tasks:
 * 256 tasks of 64 let about 16 000 orders wait, some ten seconds of two threads' work, so a
 * flood made every trader wait seconds and none was refused (issue 14, finding 2). 1 024 orders
 * are well under a second of the pool's work here (about 1 500 orders/s on two threads).
 */
export const VERIFY_PENDING_ORDERS_MAX = 1_024
/**
 * Orders of one key (the trader's address) in verification at once: a flood from one trader sheds
 * its own orders past this, while every other trader still gets in. Above an order-entry
 * session's ORDER_ENTRY_VERIFYING_MAX, so a market maker with a few sessions is never refused for
 * its normal pipelining.
 */
export const VERIFY_PENDING_PER_KEY_MAX = 256
/**
 * A key with at most this many orders pending is light (a trader placing now and then, a probe)
 * and may use VERIFY_LIGHT_RESERVE_ORDERS beyond VERIFY_PENDING_ORDERS_MAX: when a flood fills
 * the pool, it is the flooders that are refused, not everyone (fair queueing then lets the light
 * key's order past the backlog).
 */
export const VERIFY_LIGHT_KEY_ORDERS_MAX = 16
/** Orders beyond VERIFY_PENDING_ORDERS_MAX that only light keys may fill. */
export const VERIFY_LIGHT_RESERVE_ORDERS = 256
/**
 * Tasks handed to the pool's threads at once, per thread: one being verified and one ready, so a
 * thread never waits for the main thread; the rest wait in the pool's per-key queues, where the
 * next task is made fairly (one order per key in turn), not in piscina's first-come queue.
 */
export const VERIFY_TASKS_PER_THREAD = 2
/** The Retry-After of SIGNATURE_POOL_BUSY: the pool drains its whole bound in less than this. */
export const VERIFY_RETRY_AFTER_SEC = 1
/**
 * How long closing the pool waits for a thread still starting (loading its module: some 0.1 s,
 * seconds on a loaded machine) before it ends it all the same: a thread that never starts must
 * not hold a stop for ever.
 */
export const VERIFY_THREAD_START_WAIT_MS = 10_000
/**
 * Shedding by event-loop lag (service/trading/load-shedder.ts): the front end's timer ticks every
 * LOOP_LAG_TICK_MS; when LOOP_LAG_TICKS_TO_SHED ticks in a row run more than the bound late
 * (--shed-lag-ms, LOOP_LAG_MS_MAX_DEFAULT unless told), new order placements are refused with
 * SERVER_BUSY until a tick is on time. 50 ms: a read waits at most a few times that while a flood
 * is shed (the overload test bounds reads' p99 at 250 ms); two ticks: one late tick is a
 * collection or a busy machine, not an overload.
 */
export const LOOP_LAG_TICK_MS = 20
export const LOOP_LAG_TICKS_TO_SHED = 2
export const LOOP_LAG_MS_MAX_DEFAULT = 50
/** The Retry-After of SERVER_BUSY. */
export const LOOP_LAG_RETRY_AFTER_SEC = 1
/**
 * While shedding, a key that placed more than SHED_LIGHT_PLACEMENTS_PER_WINDOW orders in the
 * current SHED_WINDOW_MS is refused; lighter keys are not (a market maker quoting a few orders a
 * second keeps its door while a flood is turned away). The counts are of SHED_KEYS_TRACKED_MAX keys
 * at most (cleared when full: a flood of new keys forgets, it does not grow).
 */
export const SHED_WINDOW_MS = 1_000
export const SHED_LIGHT_PLACEMENTS_PER_WINDOW = 20
export const SHED_KEYS_TRACKED_MAX = 10_000
/**
 * Per-request refusal lines (REST 'request refused', gRPC 'grpc call refused') written per
 * REFUSAL_LOG_WINDOW_MS, per face; the rest are counted and reported in one line at the window's
 * end (src/log-budget.ts). A flood of refusals wrote one synchronous line each, and the writing
 * took 9 % of the front end's thread in the overload test (the metrics count every refusal).
 */
export const REFUSAL_LOG_LINES_PER_WINDOW = 100
export const REFUSAL_LOG_WINDOW_MS = 1_000
/** Signers whose public key is kept precomputed, per pool thread (about 1 MiB each). */
export const SIGNER_CACHE_ENTRIES_MAX = 64
/** Token ids kept as their 32-byte EIP-712 words, per thread (crypto/eip712.ts); cleared when full. */
export const TOKEN_ID_WORDS_MAX = 4_096
/** Signers whose last recovered public key is kept, per thread (crypto/signature.ts; ~1 MiB); cleared when full. */
export const KNOWN_KEYS_MAX = 4_096
/** Verifications of one signer before its key is precomputed (the table costs tens of ms). */
export const SIGNER_HOT_AFTER = 8
/**
 * Signers whose uses a pool thread counts (about 100 bytes each): enough to remember the market
 * makers through a flood of one-off signers; past it counts are halved (signer-cache.ts).
 */
export const SIGNER_COUNTED_MAX = 16_384
/**
 * Signer tables a pool thread may build per second: a build takes tens of milliseconds, so this
 * bounds the thread's time spent building to about a fifth, whatever signers come.
 */
export const SIGNER_TABLE_BUILDS_PER_SECOND = 2

// ---- REST face ---------------------------------------------------------------------------------

/** Body of one order (a signed order is about 1 KiB of JSON). */
export const REST_ORDER_BODY_BYTES_MAX = 16 * 1024
/** Body of a batch: up to BATCH_ORDERS_MAX orders, or a batch read of up to REST_BATCH_ITEMS_MAX tokens. */
export const REST_BATCH_BODY_BYTES_MAX = 64 * 1024
/** Body of a mass quote (POST /quotes): up to 2 x MASS_QUOTE_LEVELS_MAX orders of about 1 KiB. */
export const REST_QUOTES_BODY_BYTES_MAX = 96 * 1024
/** Body of a cancel by ids: up to CANCEL_IDS_MAX order ids of 66 characters each. */
export const REST_CANCEL_BODY_BYTES_MAX = 128 * 1024
/** Bodies of the small requests (cancel-all, cancel-market, API key calls). */
export const REST_SMALL_BODY_BYTES_MAX = 4 * 1024
/** Characters of a query string. */
export const REST_QUERY_LENGTH_MAX = 4_096
/** Bytes of all header names and values of one request. */
export const REST_HEADERS_BYTES_MAX = 16 * 1024
/**
 * How long a REST reply the socket could not take whole may wait for its client to read it;
 * past it the connection is closed. Until then uWS reads no more of that connection's requests,
 * so a client that pipelines requests and never reads holds one reply, not an unbounded queue.
 */
export const REST_WRITE_STALL_MS = 10_000
/**
 * Bytes of the web page's files (dist/web: every file with its gzip and brotli twins) the REST
 * server holds in memory to serve them (src/api/rest/web-page.ts). The page is some tens of KiB
 * (its scripts have a 250 KiB gzipped budget, scripts/build-web.mjs); a tree past this is not a
 * page build but something else put there, and it is refused (the page is then absent) rather
 * than kept in the front end's memory for the process's life.
 */
export const WEB_PAGE_BYTES_MAX = 16 * 1024 * 1024
/**
 * Requests one client address may have answered back to back in one event-loop turn. uWS parses
 * every request of a read (up to 512 KiB: some 15 000 small pipelined requests) and runs their
 * handlers one after another before any other client is served: measured, a probe on another
 * connection waited 0.7 s behind 15 000 pipelined GET /time. Past the bound the request is
 * refused (429 RATE_LIMITED, Retry-After: 1, Connection: close) and uWS closes the connection at
 * the next one it parses, so one read costs at most this many requests' work (about 10 us each
 * for the cheap ones: some 10 ms). Per client address, not per connection, because uWS v20.30
 * shows JavaScript no connection identity (no remote port); several connections of one address
 * ready in the same turn share it, which is why it is well above the connections a client or a
 * test opens from one address (the overload test: 256).
 */
export const REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX = 1_024
/** Nesting depth of a JSON body. */
export const JSON_DEPTH_MAX = 16
/** Items in a batch market-data read (`POST /books`, `/prices`, ...). */
export const REST_BATCH_ITEMS_MAX = 500
/** Page size of every paginated read, when not asked, and at most. */
export const PAGE_LIMIT_DEFAULT = 100
export const PAGE_LIMIT_MAX = 500
/** Orders in one queue-position read of the engine: a page of open orders at most. */
export const QUEUE_QUERY_ORDERS_MAX = PAGE_LIMIT_MAX
/**
 * Entries (a milestone and each position it shows) of one page of a wallet's portfolio history,
 * besides the page's `limit`: a wallet holding many positions has big milestones, and a page is
 * cut short before it passes this (about 60 ms of formatting and 1 MB of JSON), its cursor going
 * on from there.
 */
export const PORTFOLIO_PAGE_ENTRIES_MAX = 10_000
/**
 * Milestones between two copies of a wallet's whole positions in its history (src/read/portfolio.ts):
 * a page at any offset steps through at most this many milestones before its first, and the copies
 * cost a wallet's positions once per this many milestones.
 */
export const PORTFOLIO_CHECKPOINT_EVERY = 64
/**
 * Orders and trades of the read store (src/read/read-store.ts) kept in memory once read from
 * disk, each: about 1 KB each, so at most about 32 MB for both. Reads of recent history hit it;
 * the rest costs an LMDB read (a few microseconds, from the page cache).
 */
export const READ_CACHE_RECORDS_MAX = 16_384
/**
 * API secrets kept decoded for the L2 HMAC (src/crypto/hmac.ts): the keys in use, not every key
 * ever made; a key past it is decoded again at its next request (a few hundred nanoseconds).
 */
export const HMAC_DECODED_SECRETS_MAX = 4_096
/**
 * The read store writes what the outcomes changed at most this long after them, in one
 * transaction (src/read/read-store.ts saveSoon), rather than one transaction per batch of
 * outcomes: each transaction has fixed costs (the totals and seq records, the prune's look-up,
 * an fsync), and at a few thousand commands a second a batch holds one to three. Reads never
 * wait for it (the model and the pending records answer them); a crash loses at most this much of
 * the projection, which the journal replays at the next start. 20 ms took 15-20 % off a REST
 * cancel's server CPU (bench:rest, interleaved). 100 ms took another 15-30 % off (0.182-0.184 ->
 * 0.130-0.156 ms a cancel, a batched order 0.194-0.223 -> 0.182-0.183; two alternating pairs of
 * `node dist/bench/rest.js --quick`): a transaction's cost is mostly the B-tree pages it copies and
 * flushes, and orders keyed by their random ids touch a page each, so fewer, larger transactions
 * write the same hot pages fewer times. 250 ms took only a little more off, and a save encodes
 * its records in one turn of the main thread: the longer the interval, the more gather at
 * moderate load (the open loop's p99 was too noisy to tell them apart: docs/performance.md).
 */
export const READ_STORE_SAVE_INTERVAL_MS = 100
/** ...or sooner, once this many records wait: a flood's pending records stay bounded in memory. */
export const READ_STORE_SAVE_RECORDS_MAX = 4_096
/**
 * Orders that ended with nothing filled (cancelled, expired, killed) are kept on disk this long
 * after they ended, then removed from the read store (--unfilled-orders-retention-days). The rule
 * of Binance's order history: such an order holds no money record (no trade refers to it).
 */
export const UNFILLED_ORDERS_RETENTION_DAYS = 90
/** Unfilled ended orders removed per save at most: a long-stopped server catches up in small steps. */
export const READ_PRUNE_PER_SAVE_MAX = 256
/** Requests in flight that the server waits for when it shuts down. */
export const SHUTDOWN_DRAIN_MS_MAX = 5_000

assert(REST_CANCEL_BODY_BYTES_MAX >= CANCEL_IDS_MAX * 80, 'a full cancel-by-ids body fits')
assert(REST_BATCH_BODY_BYTES_MAX >= BATCH_ORDERS_MAX * 2 * 1024, 'a full order batch fits')
assert(REST_QUOTES_BODY_BYTES_MAX >= 2 * MASS_QUOTE_LEVELS_MAX * 1200, 'a full ladder of signed orders fits')
assert(PAGE_LIMIT_DEFAULT <= PAGE_LIMIT_MAX, 'the default page fits the maximum')

// ---- Rate limits -------------------------------------------------------------------------------
//
// Token buckets mirroring Polymarket's published limits (reliability-anchors.md, "Rate
// limiting"), so clients tuned for it keep working, and answering 429 with Retry-After at once
// instead of queueing. Budgets are per API key for authenticated routes, per client address
// otherwise; cancels have their own, larger budgets so a throttled client can always cut risk.

export interface RateRule {
  /** Requests allowed in a burst, refilled evenly over `burstWindowMs`. */
  readonly burst: number
  readonly burstWindowMs: number
  /** An optional longer-term budget, refilled evenly over `sustainedWindowMs`. */
  readonly sustained?: number
  readonly sustainedWindowMs?: number
}

const TEN_SECONDS_MS = 10_000
const TEN_MINUTES_MS = 600_000

export const RATE_RULES = {
  /** Every request, per client address. */
  general: { burst: 9_000, burstWindowMs: TEN_SECONDS_MS },
  /** POST /order. */
  order: { burst: 3_500, burstWindowMs: TEN_SECONDS_MS, sustained: 36_000, sustainedWindowMs: TEN_MINUTES_MS },
  /** POST /orders and DELETE /orders (each its own bucket). */
  batch: { burst: 1_000, burstWindowMs: TEN_SECONDS_MS, sustained: 15_000, sustainedWindowMs: TEN_MINUTES_MS },
  /** DELETE /order. */
  cancel: { burst: 3_000, burstWindowMs: TEN_SECONDS_MS, sustained: 30_000, sustainedWindowMs: TEN_MINUTES_MS },
  /** DELETE /cancel-all and /cancel-market-orders. */
  cancelAll: { burst: 250, burstWindowMs: TEN_SECONDS_MS, sustained: 6_000, sustainedWindowMs: TEN_MINUTES_MS },
  /** API key endpoints; the L1 ones are counted per client address before the signature is recovered. */
  apiKey: { burst: 100, burstWindowMs: TEN_SECONDS_MS },
  /** GET /balance-allowance. */
  balance: { burst: 200, burstWindowMs: TEN_SECONDS_MS },
  /** GET /balance-allowance/update. */
  balanceUpdate: { burst: 50, burstWindowMs: TEN_SECONDS_MS },
  /**
   * POST /faucet and POST /relay, per client address (a relay costs a signature recovery on the
   * front end's thread).
   */
  testnet: { burst: 100, burstWindowMs: TEN_SECONDS_MS },
  /**
   * POST /faucet, per client address, besides each address's cooldown: new addresses are free, so
   * without it one client could take a credit per address per cooldown, and drain the supply.
   */
  faucet: { burst: 30, burstWindowMs: 60_000, sustained: 300, sustainedWindowMs: 3_600_000 },
  /** Failed authentications per (client address, claimed key or wallet); exhausting it blocks that pair. */
  authFailure: { burst: 100, burstWindowMs: TEN_SECONDS_MS },
  /**
   * Entries of wallets' public records read (GET /users/:address/...: each milestone and each
   * position it shows, order, trade or ledger event returned), per client address, charged by what
   * each page returned (src/auth/cost-budget.ts): a few connections reading long histories cannot
   * take the front end's thread from everyone else: at about 6 us an entry (measured with two
   * positions a milestone), some 30 ms of the thread a second for one client address, and still a
   * wallet's whole history of 10 000 milestones in a few seconds.
   */
  historyEntries: { burst: 50_000, burstWindowMs: TEN_SECONDS_MS },
} as const satisfies Record<string, RateRule>

export type RateClass = keyof typeof RATE_RULES
assert(PORTFOLIO_PAGE_ENTRIES_MAX <= RATE_RULES.historyEntries.burst, 'a full budget pays for the largest page')

/** How long a (client address, claimed key) pair is refused after exhausting its failure budget. */
export const AUTH_FAILURE_BLOCK_MS = 60_000
/** Rate-limited keys remembered at once (least recently used go first). */
export const RATE_LIMIT_KEYS_MAX = 100_000

// ---- Test network ------------------------------------------------------------------------------

/**
 * On a real chain the faucet's and the relay's answers wait at most this long for the ledger to
 * mirror their transaction (CHAIN_CONFIRMATIONS blocks and a poll); past it, they answer anyway
 * (the relay with status MINED) and the ledger follows. The relay also waits at most this long
 * for its transaction's receipt.
 */
export const CHAIN_LEDGER_WAIT_MS = 30_000
/** How often such an answer looks whether the ledger has followed (an in-memory read). */
export const CHAIN_LEDGER_POLL_MS = 50
/** Test gas a new address receives with its first faucet credit (0.1 ETH, in 10^-6 units). */
export const FAUCET_GAS_MICROS = 100_000
/**
 * Faucet credits per hour for every client together (a token bucket; a minute's share in a burst).
 * The test network's supply is finite (the engine's SUPPLY_MICROS_MAX, 4e9 USDC: sums stay exact),
 * so many clients must not be able to drain it: at 1 000 USDC a credit, this many an hour keeps
 * it for about 46 days of constant maximal use (docs/operations.md, "The faucet").
 */
export const FAUCET_CREDITS_PER_HOUR_MAX = 3_600

/** Intervals one GET /ticks request may span (from..to); wider ranges are refused, not truncated. */
export const CANDLES_MAX = 1_000

// ---- WebSocket streams -------------------------------------------------------------------------

/** Largest message a client may send (subscriptions). */
export const WS_MESSAGE_BYTES_MAX = 16 * 1024
/** Bytes queued for one socket; past this the slow consumer is dropped (closed), not waited for. */
export const WS_BACKPRESSURE_BYTES_MAX = 1024 * 1024
/** Assets one market-channel socket may follow. */
export const WS_SUBSCRIPTIONS_MAX = 500
/** Seconds without a frame before the socket is closed (clients send PING every 10 s). */
export const WS_IDLE_TIMEOUT_SEC = 60
/**
 * Book snapshots one market-channel socket is sent per WS_SNAPSHOT_WINDOW_MS: a full subscription
 * (WS_SUBSCRIPTIONS_MAX assets) twice. Each subscribe snapshots every asset it names, so without a
 * budget a client re-subscribing in a loop would have the server build books without end.
 */
export const WS_SNAPSHOTS_PER_WINDOW = 2 * WS_SUBSCRIPTIONS_MAX
export const WS_SNAPSHOT_WINDOW_MS = 10_000

// ---- gRPC --------------------------------------------------------------------------------------

/** Largest request message (a batch of 15 signed orders is about 6 KiB). */
export const GRPC_RECEIVE_MESSAGE_BYTES_MAX = 256 * 1024
/** Largest response message (a book of every level of a token, a page of 500 orders). */
export const GRPC_SEND_MESSAGE_BYTES_MAX = 8 * 1024 * 1024
/**
 * The buffer a method's answer encoder (src/api/grpc/init-encoder.ts) keeps between answers: one
 * answer larger than this (a long page of orders) is written into a buffer of its own size, which
 * is then dropped, so a single large answer does not hold its size for the life of the server.
 */
export const GRPC_ENCODE_BUFFER_BYTES_KEPT_MAX = 64 * 1024
/**
 * Characters of a refusal's message, and of each of its context values as JSON text, in a gRPC
 * status. Trailers are HTTP/2 headers, and a context may name the client's input (up to
 * GRPC_RECEIVE_MESSAGE_BYTES_MAX): past a client's header list limit (8 to 16 KiB in gRPC's C
 * core, a few hundred KiB in grpc-js) the status never arrives, the call hangs and the connection
 * fails for every call on it. A longer value is cut and ends with '…' (issue 14, found by the live
 * fuzz); the message is counted in characters, each of which grpc-message may spell in up to 12 bytes.
 */
export const GRPC_ERROR_MESSAGE_CHARS_MAX = 512
export const GRPC_ERROR_CONTEXT_CHARS_MAX = 256
/** HTTP/2 streams (calls) open at once on one connection. */
export const GRPC_STREAMS_PER_CONNECTION_MAX = 100
/**
 * A call's header list (its metadata, uncompressed): REST's bound, one rule for both faces. Past it
 * node:http2 resets the stream (ENHANCE_YOUR_CALM, which clients read as RESOURCE_EXHAUSTED) while
 * decoding, so the values never become strings. Predex's own metadata is under 1 KiB; gRPC's C
 * core and Java take 8 KiB. node:http2's default (64 KiB) let a flood of 60 000-byte keys leave
 * some 100 MB in glibc's heap (test/contract/auth-abuse.test.ts).
 */
export const GRPC_METADATA_BYTES_MAX = REST_HEADERS_BYTES_MAX
/** Long-lived streams (order-entry sessions, user streams) open at once per API key, over all connections. */
export const GRPC_STREAMS_PER_KEY_MAX = 16
/** Book streams open at once per client address (they are public). */
export const GRPC_BOOK_STREAMS_PER_ADDRESS_MAX = 32
/** The server pings an idle connection this often, and drops it if the ping is not answered in the timeout. */
export const GRPC_KEEPALIVE_TIME_MS = 30_000
export const GRPC_KEEPALIVE_TIMEOUT_MS = 10_000
/** Clients may ping at most this often (faster pingers get GOAWAY ENHANCE_YOUR_CALM from grpc-js). */
export const GRPC_CLIENT_PING_INTERVAL_MS_MIN = 5_000
/** On stop, calls in progress get this long to finish before the server cancels them. */
export const GRPC_SHUTDOWN_GRACE_MS = 5_000
/**
 * Messages queued for one server stream the client does not read fast enough: past this the
 * stream is ended with RESOURCE_EXHAUSTED (the client resubscribes or resumes), never waited for.
 */
export const GRPC_STREAM_BACKLOG_MESSAGES_MAX = 10_000
/** Requests of one order-entry session sent and not yet answered; past this the session is ended. */
export const ORDER_ENTRY_IN_FLIGHT_MAX = 1_000
/** The dead-man interval of cancel on disconnect: default and bounds. */
export const ORDER_ENTRY_DEAD_MAN_MS_DEFAULT = 10_000
export const ORDER_ENTRY_DEAD_MAN_MS_MIN = 1_000
export const ORDER_ENTRY_DEAD_MAN_MS_MAX = 60_000
/** A client's request id: at most this many characters. */
export const ORDER_ENTRY_REQUEST_ID_LENGTH_MAX = 64
/**
 * A session that cancels its own orders on disconnect remembers the ones it placed that rest; it
 * forgets those that ended when it holds this many (and then at twice what survived each time).
 */
export const ORDER_ENTRY_TRACKED_ORDERS_PRUNE_MIN = 1_024
/**
 * Orders of one session in signature verification at once (the rest wait their turn, in order):
 * a session pipelining hundreds of orders takes a bounded share of the pool's queue
 * (VERIFY_PENDING_ORDERS_MAX orders) instead of getting SIGNATURE_POOL_BUSY for its own burst.
 */
export const ORDER_ENTRY_VERIFYING_MAX = 64
/** Tokens one book stream may follow. */
export const BOOK_STREAM_TOKENS_MAX = 100
/** Updates kept per wallet for user streams to resume from (older ones: the client re-reads a snapshot). */
export const USER_FEED_RETAINED_PER_WALLET = 1_000
/** Wallets whose recent updates are kept (least recently updated go first). */
export const USER_FEED_WALLETS_MAX = 10_000
/**
 * Updates kept over all wallets (about 100 bytes each): the two bounds above alone would allow
 * ten million. Past this the least recently updated wallets' updates go first.
 */
export const USER_FEED_UPDATES_MAX = 1_000_000

// ---- gRPC port: connections, resets and reflection (issue 27; docs/grpc.md, docs/operations.md) ----

/**
 * TCP connections to the gRPC port open at once, over all clients, and per client address. Each
 * costs a file descriptor and an HTTP/2 session: 21 000 idle connections took RSS +300 MB and the
 * descriptors to the process's limit (20 000 here), so that new REST connections timed out too
 * (issue 27). And what a session allocates natively is not all given back when it closes: after
 * a flood of 4 068 connections, closed, own memory stayed 136 MB above its start (descriptors
 * back to 46, the V8 heap 96 MB), about 33 KB per connection, so the total bounds that too: 1 024
 * connections, some 35 MB at worst. A market maker needs a few connections (one carries 100
 * calls at once); 64 per address leaves room for a desk's processes behind one NAT, and takes 16
 * addresses to fill the port. Past either bound a new connection is closed at once, before
 * HTTP/2 starts.
 */
export const GRPC_CONNECTIONS_MAX = 1_024
export const GRPC_CONNECTIONS_PER_ADDRESS_MAX = 64
/**
 * New connections per client address: a burst of 500, refilled at 50 a second. A handshake costs
 * the server a session set-up; a client that reconnects in a loop (to start over nghttp2's own
 * per-connection budget of stream resets) kept a core busy at 32 000 resets a second. An SDK
 * reconnects with a back-off (GRPC_SDK_RECONNECT_DELAY_MS_MIN and up); the live fuzz opens a
 * connection per raw case, a few hundred in its run.
 */
export const GRPC_CONNECT_RULE: RateRule = { burst: 500, burstWindowMs: 10_000 }
/**
 * Calls a client address ends by resetting them (RST_STREAM, or going away with calls open): a
 * burst of 1 000, refilled at 100 a second. A client cancels a stream it no longer follows and
 * a deadline now and then; a reset flood costs the server a call set-up each (nghttp2 closes a
 * connection past about 1 000 resets, so the flooder reconnects). Past the budget the connection
 * that reset is closed, so a flood gets at most a connection's handshake per reset, itself under
 * GRPC_CONNECT_RULE.
 */
export const GRPC_RESET_RULE: RateRule = { burst: 1_000, burstWindowMs: 10_000 }
/** Client addresses whose connect, reset and reflection budgets are kept (least recently used go first). */
export const GRPC_ADDRESSES_TRACKED_MAX = 10_000
/**
 * A connection without a call for this long is closed (GOAWAY; grpc.max_connection_idle_ms): an
 * idle connection holds a descriptor and a session for nobody. Clients reconnect on their next call.
 */
export const GRPC_CONNECTION_IDLE_MS_MAX = 300_000
/**
 * A connection is told to go away (GOAWAY, no new calls on it) after this long, give or take a
 * tenth (grpc.max_connection_age_ms), so no connection lives for ever. Its open calls are not cut
 * (no grace bound): an order-entry session ends with cancel on disconnect, which a rotation must
 * never cause; the client opens its next calls on a new connection.
 */
export const GRPC_CONNECTION_AGE_MS_MAX = 3_600_000
/**
 * Reflection (grpc.reflection.v1 and v1alpha, for grpcurl and the like): streams open at once per
 * client address and over all clients. Each holds up to its backlog of answers (below) while its
 * client does not read, until the client goes; a tool needs one at a time.
 */
export const GRPC_REFLECTION_STREAMS_PER_ADDRESS_MAX = 4
export const GRPC_REFLECTION_STREAMS_MAX = 64
/**
 * Bytes of one reflection request: a symbol or file name and a host, a few hundred bytes from any
 * tool. Every answer echoes its request, so a 200 KB `host` made each answer 200 KB (issue 27: 2.5
 * GB in seconds); past this the stream ends with BODY_TOO_LARGE (RESOURCE_EXHAUSTED).
 */
export const GRPC_REFLECTION_REQUEST_BYTES_MAX = 4 * 1024
/**
 * Answers waiting for a reflection client that does not read, beyond grpc-js's own buffer (16):
 * past this the stream ends with SLOW_CONSUMER (RESOURCE_EXHAUSTED). A descriptor answer is tens
 * of KB; a tool reads each answer before it asks again.
 */
export const GRPC_REFLECTION_BACKLOG_ANSWERS_MAX = 32
/**
 * Reflection requests per client address: a burst of 200, refilled at 20 a second. `grpcurl
 * describe` of every service asks a few dozen; an answer costs its encoding (a descriptor answer
 * tens of KB). Past it the stream ends with RATE_LIMITED (RESOURCE_EXHAUSTED, with the wait).
 */
export const GRPC_REFLECTION_RULE: RateRule = { burst: 200, burstWindowMs: 10_000 }

assert(GRPC_CONNECTIONS_PER_ADDRESS_MAX <= GRPC_CONNECTIONS_MAX, 'one address cannot take every connection alone')
assert(GRPC_REFLECTION_STREAMS_PER_ADDRESS_MAX <= GRPC_REFLECTION_STREAMS_MAX, 'per address within the total')

// ---- gRPC SDK (src/client/grpc) ------------------------------------------------------------------

/** A unary call of the SDK fails with DEADLINE_EXCEEDED after this long unless the caller says otherwise. */
export const GRPC_SDK_UNARY_DEADLINE_MS_DEFAULT = 10_000
/** Reconnect delays of the SDK's streams: the first retry waits the minimum, each next one twice as long. */
export const GRPC_SDK_RECONNECT_DELAY_MS_MIN = 100
export const GRPC_SDK_RECONNECT_DELAY_MS_MAX = 5_000
/** Failed reconnects in a row (no snapshot in between) before a stream iterator gives up and throws. */
export const GRPC_SDK_RECONNECT_ATTEMPTS_MAX = 10
/**
 * Messages the SDK holds for a stream its caller has not read yet; past this it stops reading the
 * socket (HTTP/2 flow control), so the server's backlog bound decides, not the client's memory.
 */
export const GRPC_SDK_STREAM_BUFFER_MESSAGES_MAX = 1_000
/** An order-entry session with a dead-man timer pings this many times per dead-man interval when idle. */
export const GRPC_SDK_PINGS_PER_DEAD_MAN = 3

// ---- Polymarket surface (routes/polymarket.ts) ---------------------------------------------------

/**
 * Trades of a market that GET /compat/markets/live-activity/:condition_id answers with, newest
 * first: a live feed, not a history (GET /data/trades pages through a trader's history). Also what
 * the server keeps per market to answer it, so the memory it costs is bounded per market.
 */
export const LIVE_ACTIVITY_TRADES_MAX = 100
/**
 * Order ids in one POST /compat/orders-scoring: as many as a cancel by ids may name, so a client
 * can ask about every order it could cancel at once.
 */
export const ORDERS_SCORING_IDS_MAX = CANCEL_IDS_MAX
/** Body of POST /compat/orders-scoring: ORDERS_SCORING_IDS_MAX ids of 66 characters, quoted, with commas. */
export const REST_ORDERS_SCORING_BODY_BYTES_MAX = 128 * 1024
/**
 * Points one GET /compat/prices-history may answer: past this it is refused (a narrower range or a
 * larger `fidelity` is asked for), never truncated, as GET /ticks refuses more than CANDLES_MAX.
 */
export const PRICES_HISTORY_POINTS_MAX = 10_000
/** The largest `fidelity` of GET /compat/prices-history, in minutes: one point per year. */
export const PRICES_HISTORY_FIDELITY_MINUTES_MAX = 525_600

assert(REST_ORDERS_SCORING_BODY_BYTES_MAX >= ORDERS_SCORING_IDS_MAX * (ORDER_ID_CHARS + 3) + 2,
  'a full orders-scoring body fits')

// ---- Heartbeats (cancel on disconnect for REST clients, src/service/trading/heartbeats.ts) --------------

/**
 * A key that started a heartbeat chain and sends no heartbeat for this long (plus the grace) has
 * all its open orders cancelled: Polymarket's window (clob-client's doc comment: "one isn't sent
 * within 10s"), so a bot tuned for it keeps its orders here and loses them as soon as it would there.
 */
export const HEARTBEAT_TIMEOUT_MS = 10_000
/**
 * Added to the timeout before a chain expires: a heartbeat sent on time may arrive late (network,
 * a busy client's timer). Polymarket's docs speak of "up to a 5 second buffer"; with the sweep's
 * interval below, a lapsed chain is cancelled between 14.5 and 15 s after its last heartbeat,
 * inside that buffer.
 */
export const HEARTBEAT_GRACE_MS = 4_500
/** How often expired chains are looked for (the expiry lands at most this late). */
export const HEARTBEAT_SWEEP_INTERVAL_MS = 500
/**
 * Chains watched at once (one per API key with a live chain, about 200 bytes each). API keys are
 * cheap to make, so the count gets a bound of its own; past it a new chain is refused with
 * RATE_LIMITED (Retry-After: until the oldest chain must have lapsed), while live chains go on.
 */
export const HEARTBEAT_CHAINS_MAX = 100_000
/** Characters of a heartbeat id a client sends back (Predex issues UUIDs, 36). */
export const HEARTBEAT_ID_LENGTH_MAX = 64

assert(HEARTBEAT_SWEEP_INTERVAL_MS <= HEARTBEAT_GRACE_MS, 'a sweep comes within the grace')
assert(HEARTBEAT_TIMEOUT_MS + HEARTBEAT_GRACE_MS + HEARTBEAT_SWEEP_INTERVAL_MS <= 15_000,
  "a lapsed chain is cancelled inside Polymarket's 10 s + 5 s")

// ---- The living demo (src/demo/quoter.ts, trader.ts) --------------------------

/** How often the demo account puts back the quotes users took (a pass submits nothing when none is missing). */
export const DEMO_REQUOTE_INTERVAL_MS = 5_000
/** What one top-up adds when a demo quote lacks funds: a split for shares, a credit for USDC (1 000 USDC). */
export const DEMO_TOP_UP_MICROS = 1_000_000_000
/**
 * How far (in cents of the Yes price) the quotes' centre may drift from a demo market's home price
 * as it follows the last trade: far enough that candles and prices visibly move, near enough that
 * a demo market keeps its story (rain in Lisbon stays unlikely).
 */
export const DEMO_DRIFT_CENTS_MAX = 10
/**
 * How often the demo trader may take liquidity from a demo market (--demo-trade-interval-ms): a
 * trade every few seconds makes a fresh server's prices, candles and trades feed move.
 */
export const DEMO_TRADE_INTERVAL_MS = 4_000
/** The shortest trade interval a configuration may set (tests use it; the per-minute cap still holds). */
export const DEMO_TRADE_INTERVAL_MS_MIN = 100
/**
 * Demo trades in any minute, whatever the interval. Each costs some 3 journaled commands (the order,
 * the quoter's placements and cancels that follow it): about 60 a minute at most.
 */
export const DEMO_TRADES_PER_MINUTE_MAX = 20
/** The largest demo trade, in shares (the smallest is a market's minimum order size): a dent in a 100-share level. */
export const DEMO_TRADE_SHARES_MAX = 20
/** The demo trader's seed: its choices of market, outcome, side and size are the same on every start. */
export const DEMO_TRADER_SEED = 0x5eed_de30

// ---- GTD expiry on the host's clock (src/service/trading/expiry-timer.ts) ----------------------------

/** When an expire command failed or came before the engine's clock reached the time: the next try. */
export const EXPIRY_RETRY_MS = 1_000
/** setTimeout's longest delay (2^31 - 1 ms): a later expiration is waited for in steps. */
export const EXPIRY_TIMER_DELAY_MS_MAX = 2 ** 31 - 1
/** The watched expirations are swept of ended orders when they reach twice the survivors of the last sweep, or this. */
export const EXPIRY_WATCHED_PRUNE_MIN = 1_024

// ---- Keys a client chooses: authentication failures, the failure table, /metrics (issue 27) ----

/**
 * Characters of an API key. Predex issues UUIDs (36) and Polymarket's keys are UUIDs too; a longer
 * key cannot be one, so it is refused at once (AUTH_UNKNOWN_KEY) before it is looked up or kept:
 * distinct 60 000-byte keys grew the failure table by about 100 MB per 1 000 failures.
 */
export const API_KEY_CHARS_MAX = 64
/**
 * Characters of a claimed identity (an API key, a wallet address of 42) kept as a key of the failure
 * table. A longer claim can never authenticate, so all of a client address's longer claims are
 * counted together under one entry: an entry's key stays under about a hundred characters.
 */
export const AUTH_CLAIM_CHARS_MAX = API_KEY_CHARS_MAX
/**
 * How often the rate limiter drops the entries whose budgets are full again and which block
 * nothing (they are as good as absent): the table a flood of one-off keys filled shrinks back
 * within this after the flood, instead of holding RATE_LIMIT_KEYS_MAX entries for good. A sweep
 * walks the whole table (about 5 ms at 100 000 entries); none runs while the table is empty.
 */
export const RATE_LIMIT_SWEEP_INTERVAL_MS = 10_000
/**
 * GET /metrics renders the registry at most once per this; scrapes in between get the text of the
 * last render. A render costs about 2.6 ms, so one address scraping 377 times a second kept a core
 * busy; Prometheus scrapes every 15 s or so and never sees the difference.
 */
export const METRICS_RENDER_INTERVAL_MS = 100

/**
 * External strings' growth since the last full collection that makes the front end force one
 * (src/external-memory-watch.ts): large HTTP/2 header values are external strings whose bytes V8
 * does not count, so without it a flood of gRPC calls with big metadata grew the process by their
 * size (60 KB a call) until it died. What the garbage reaches between collections glibc keeps in
 * its heap after they are freed: at 32 MiB checked each second, a flood of 15 000-byte keys left
 * 76-82 MB there; at 8 MiB checked every 200 ms, 16-18 MB (.scratch measure, 2026-11-29). A
 * collection costs some 30 ms, so one per 8 MiB is one per about 550 such calls; honest metadata
 * values are under 64 bytes and never count.
 */
export const EXTERNAL_MEMORY_GROWTH_BYTES_MAX = 8 * 1024 * 1024
/** How often that growth is checked (process.memoryUsage(), some 20 us). */
export const EXTERNAL_MEMORY_CHECK_INTERVAL_MS = 200

/**
 * The heap slack watch (src/heap-slack-watch.ts): a full collection when V8's main heap holds
 * HEAP_SLACK_BYTES_MAX or more beyond what it uses and the event loop was busy less than
 * HEAP_SLACK_QUIET_UTILIZATION_MAX of the last HEAP_SLACK_CHECK_INTERVAL_MS. A spike left 126 MB
 * of such slack for a minute of quiet (the gRPC abuse test); a collection costs some 25-60 ms,
 * paid only while the process is quiet, and each one gives back part of the empty pages.
 */
export const HEAP_SLACK_BYTES_MAX = 64 * 1024 * 1024
export const HEAP_SLACK_CHECK_INTERVAL_MS = 2_000
export const HEAP_SLACK_QUIET_UTILIZATION_MAX = 0.2

/**
 * The replicated command log (src/replication/jetstream-log.ts, issue 34). A publish not
 * acknowledged within NATS_PUBLISH_TIMEOUT_MS is sent again (same message id: JetStream's
 * duplicate window makes the retry idempotent) every NATS_PUBLISH_RETRY_MS, without end: while a
 * quorum is lost nothing is acknowledged, and the host's own bounds (the ring, requests pending)
 * refuse new work. The duplicate window covers the retries of one record many times over.
 */
export const NATS_PUBLISH_TIMEOUT_MS = 2_000
export const NATS_PUBLISH_RETRY_MS = 250
export const NATS_DUPLICATE_WINDOW_MS = 120_000
/** How long a start waits for the NATS servers before it gives up (the process exits, saying so). */
export const NATS_CONNECT_TIMEOUT_MS = 10_000
/**
 * Groups appended to the replicated command log and not yet acknowledged: one. The journal thread
 * holds one group at a time, and the worker hands the next over only once the last is durable
 * (src/host/engine-worker.ts), so what waits for a quorum waits in the ring, under its bounds; a
 * second append in flight would mean the pipeline broke that bound, and the log stops (an assertion).
 */
export const REPLICATED_APPENDS_IN_FLIGHT_MAX = 1
/**
 * A read replica hands its engine at most this many of the primary's records before they are
 * applied (src/replication/replica-feed.ts): the stream's backlog waits in JetStream, not in the
 * replica's memory. A record holds at most BATCH_COMMANDS_MAX commands.
 */
export const REPLICA_RECORDS_IN_FLIGHT_MAX = 64
/**
 * A replica's consumer silent for REPLICA_STALL_MS while the stream holds newer records is
 * started again (checked every REPLICA_WATCHDOG_MS): after nats-servers died and came back, an
 * ordered consumer was seen to stay silent for good.
 */
export const REPLICA_STALL_MS = 2_000
export const REPLICA_WATCHDOG_MS = 1_000
/**
 * The primary's lease (src/replication/lease.ts): it lapses LEASE_TTL_MS after its last renewal,
 * renewed every LEASE_RENEW_MS (a renewal can miss twice before the lease is at risk); a standby
 * looks every LEASE_POLL_MS. A killed primary is replaced within about TTL + poll + the catch-up:
 * the bound on a takeover is 3 s.
 */
export const LEASE_TTL_MS = 2_000
export const LEASE_RENEW_MS = 500
export const LEASE_POLL_MS = 250
/**
 * Reads of the lease's entry after a refused renewal (lease.ts, `reclaim`): a write refused after
 * a read says the read was behind or the entry moved meanwhile, so it reads again, this many
 * reads in all before the lease counts as lost.
 */
export const LEASE_RECLAIM_READS_MAX = 3
/** JetStream replicas of the command stream: 1 (tests) or an odd number up to 5 (a quorum is a majority). */
export const NATS_REPLICAS_MAX = 5

/**
 * The local chain (`--chain local`, src/chain/anvil-process.ts): anvil must listen within
 * ANVIL_START_MS_MAX of its start (it loads its state file first) and exit within
 * ANVIL_STOP_MS_MAX of being told (it writes its state first), or it is killed. The last
 * ANVIL_OUTPUT_TAIL_BYTES of what it printed are kept for the error that reports a failure; the
 * rest (a line per block) is dropped as it comes.
 */
export const ANVIL_START_MS_MAX = 30_000
export const ANVIL_STOP_MS_MAX = 10_000
export const ANVIL_OUTPUT_TAIL_BYTES = 16 * 1024
/** A new block every this many ms on the local chain (Amoy makes one about every 2 s). */
export const CHAIN_BLOCK_MS = 1_000
/** Seconds between two writes of the local chain's state file (it is written at its stop too). */
export const CHAIN_STATE_INTERVAL_SEC = 1
/**
 * A JSON-RPC call waits at most CHAIN_RPC_TIMEOUT_MS. What follows the chain (its head for
 * /health, the ledger's mirror, settlement) looks at it once a block (--chain-block-ms).
 */
export const CHAIN_RPC_TIMEOUT_MS = 5_000
/**
 * The ledger follows a chain's blocks once CHAIN_CONFIRMATIONS more are on top of them (a reorg
 * shallower than that changes nothing it mirrored; `--chain-confirmations`, at most
 * CHAIN_CONFIRMATIONS_MAX), reading at most CHAIN_LOG_BLOCKS_MAX blocks' logs at a time, and
 * journals at most CHAIN_SYNC_ENTRIES_MAX facts in one command (about 190 bytes each at most,
 * within COMMAND_BYTES_MAX); a range with more is read again in halves.
 */
export const CHAIN_CONFIRMATIONS = 2
export const CHAIN_CONFIRMATIONS_MAX = 256
export const CHAIN_LOG_BLOCKS_MAX = 500
export const CHAIN_SYNC_ENTRIES_MAX = 500
/**
 * Settlement on a real chain (src/service/testnet/settlement.ts) sends at most SETTLEMENT_BATCH_MAX
 * trades in one transaction, looking for trades to send once a block.
 */
export const SETTLEMENT_BATCH_MAX = 20
/** A trade MINED this long without its confirmation is asked of the exchange again (its transaction may be gone). */
export const SETTLEMENT_MINED_RECHECK_MS = 30_000
/**
 * Trades matched and not yet CONFIRMED nor FAILED beyond which new orders are refused (503
 * SETTLEMENT_BACKLOG) until settlement catches up: a node that stops answering must not let the
 * unsettled trades (kept, counted, scanned once a block, and what a FAILED reversal can move
 * back) grow without end. At 20 a transaction, once a block, 10 000 are 500 blocks of backlog.
 */
export const SETTLEMENT_UNSETTLED_MAX = 10_000
/** The Retry-After of SETTLEMENT_BACKLOG: a few blocks of settlement. */
export const SETTLEMENT_BACKLOG_RETRY_AFTER_SECONDS = 5
/** The Retry-After of CHAIN_UNAVAILABLE: the node's call timeout and a poll. */
export const CHAIN_RETRY_AFTER_SECONDS = 5
/** How often a wait for a transaction's receipt asks the chain. */
export const CHAIN_POLL_MS = 100
/** How long npm run deploy:contracts waits for each transaction's receipt before it fails, not hangs. */
export const CHAIN_DEPLOY_RECEIPT_WAIT_MS = 120_000

assert(API_KEY_CHARS_MAX >= 36, 'a UUID fits')
assert(AUTH_CLAIM_CHARS_MAX >= 42, 'a wallet address fits')
