/**
 * The targets the suite's report checks: issue 13's table and ../shared/spec/benchmarks.md's list,
 * each read off one workload's last-line JSON. A figure a workload does not print yet is "not
 * measured", never a guess; a workload left out with --only is "not run".
 */

export type Figures = Readonly<Record<string, unknown>>

/** The order-entry stream's intake over REST's in the same run (issue 29, benchmarks.md: 2 x). */
export const GRPC_STREAM_VS_REST_MIN = 2
/** Unary PlaceOrder's over REST's in the same run (issue 29, benchmarks.md: 0.8 x). */
export const GRPC_UNARY_VS_REST_MIN = 0.8

type Unit = 'x' | 'percent' | 'ms' | 'per_s' | 'bytes' | 'count'

export interface Target {
  readonly label: string
  readonly workload: string
  /** The JSON fields it is computed from, for the report. */
  readonly source: string
  /** null: the workload does not print what it needs. */
  readonly value: (f: Figures) => number | null
  /** The threshold; null for a figure the report names without judging it (allocation, scavenges). */
  readonly threshold: number | null
  readonly atLeast: boolean
  readonly unit: Unit
  /**
   * What limited it when last profiled, and where that measurement is written up: the report
   * prints it for a target not met (issue 13: say what limits it, measured with a profile).
   */
  readonly limitedBy?: string
  /**
   * The most the figure could reach on the machine that ran it, measured in the same run (for
   * REST: only the signature check and the load generator on the cores); null when not printed.
   */
  readonly reachable?: (f: Figures) => number | null
}

function field(f: Figures, name: string): number | null {
  const value = f[name]
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

/** a / b, or null when either is missing or b is 0 (a baseline that did not run). */
function quotient(f: Figures, a: string, b: string): number | null {
  const top = field(f, a)
  const bottom = field(f, b)
  return top === null || bottom === null || bottom === 0 ? null : top / bottom
}

/** native_to_raw is 0 when the native backend did not load: not measured, not a failure. */
function nativeToRaw(f: Figures): number | null {
  return field(f, 'raw_libsecp256k1_per_s') === 0 ? null : field(f, 'native_to_raw')
}

const at = (label: string, workload: string, source: string, value: Target['value'], threshold: number | null,
  unit: Unit, atLeast = true, reachable?: Target['reachable']): Target => ({ label, workload, source, value, threshold,
  unit, atLeast, ...(LIMITED_BY[label] === undefined ? {} : { limitedBy: LIMITED_BY[label] }),
  ...(reachable === undefined ? {} : { reachable }) })

const PERFORMANCE = 'docs/performance.md'
/**
 * By target label: what the last measurements found (each entry says when, or points at the dated
 * section of docs/performance.md); re-measure with `--profile <workload>` and the CPU tables of
 * bench:rest and bench:grpc.
 */
const LIMITED_BY: Readonly<Record<string, string>> = {
  'engine vs nodejs-order-book, same stream (holds + complementary)': 'no single cost large enough: 5 x needs ' +
    'about 0.55 µs a command against 1.0-1.1. In a CPU profile of the engine alone on the bench stream ' +
    '(2026-12-01) the order-id table is about a quarter (a lookup that finds its id costs about 150 ns of cache ' +
    'misses, the hash of the id 28 ns), then placement, matching and the event log; the output is a fifth ' +
    '(applyForReplay runs the same stream at 1.24 M commands/s against 0.98 M); 17 B allocated a command and no ' +
    'collection. The lever is commands read from their bytes: ids hashed from their raw 32 bytes once, addresses ' +
    `and tokens resolved to indices as they are decoded (${PERFORMANCE}, "The read store's saves, a raw unary ` +
    'client, and what was measured and left")',
  'durable host (sync) vs engine alone': 'the host\'s own code around the engine, not the shape nor the machine: ' +
    'the bare shape (bench/shape-floor.ts: the ring, a writer thread, a journal thread committing each group, the ' +
    'ids back; no decoding, no engine) runs at 1.3-1.5 M commands/s and 0.9 µs of CPU a command, the engine alone ' +
    'at about 1 µs, and the sync host spends 5.2-5.5 µs (main thread 1.6-1.7: encoding, a promise and an ' +
    'outcome per command; engine worker 3.15-3.35: command decoding, the outcomes\' encoding, its loop; V8\'s and ' +
    'libuv\'s threads 0.27-0.49, down from 1 since the main thread no longer promotes its commands\' objects). ' +
    '0.4 x needs about 5 µs in all and 2.5 on the worker, the serial stage. The lever is commands and results ' +
    'that stay bytes through the worker (issue 29 point 2, issue 30) ' +
    `(${PERFORMANCE}, "A Map's old tables, objects tenured too soon, and snapshots off the commit path")`,
  'ack p99 at half of the closed-loop maximum (its host run as the server runs, snapshot replica on) vs the disk\'s flush p99':
    'the disk\'s stalls first (2026-12-02): this disk holds a flush for 50-800 ms a few times in ten seconds, so ' +
    'steady arrivals wait p99 100-560 ms for a flush of their own (bench:host\'s `disk_arrival_p99_ms`, flushes back ' +
    'to back just before the step) where the per-flush p99 reads 0.3-0.5 ms; in the step, the longest commit ' +
    '(`half_hop_taken_to_committed_max_ms`, 69 ms) matched the ack p99 (67 ms), everything that arrived meanwhile ' +
    'held before it; in three suite runs the longest commits were 361, 309 and 9.5 ms and the ack p99s 373, 312 ' +
    'and 45 ms. No design meets 3 x the per-flush p99 while the disk stalls. On a steady disk (the third run, ' +
    '57 k/s) the host\'s own queues held it: decoded -> handed p99 25 ms, submitted -> decoded 11, the commit 6.9; ' +
    'and before: ' +
    'at 87-96 k/s (half of 173-191 k/s) the ack waits in the worker and behind the commits: decoded -> handed ' +
    'p99 8-15 ms, taken -> committed p99 2.4-4 ms, against a one-at-a-time commit p99 of about 0.6 ms. Two cores carry ' +
    'the main thread (the load generator\'s too), the worker, the journal thread and the snapshot replica (a ' +
    'replay of every command and a 6 MB snapshot every 100 000: about 30 % of a core at 77 k/s), and the disk ' +
    'carries the commits and the snapshots\' files. Snapshots written in LMDB on the journal thread had held the ' +
    'commits for their megabytes (p99 120-135 ms at 77 k/s; 15-37 ms as files flushed a megabyte at a time). ' +
    'Levers: a cheaper replica ' +
    '(replay at the engine\'s speed), one flush per commit ' +
    `(${PERFORMANCE}, "A Map's old tables, objects tenured too soon, and snapshots off the commit path")`,
  'knee (highest open-loop rate with ack p99 <= 3 x the disk\'s flush p99) vs the closed-loop maximum': 'the same ' +
    'floor at light load: at 570-1 100 commands/s the ack p99 read 1.25-6.3 ms against a bound of 0.7-0.9 ms, the ' +
    'sender mostly on time (late p99 0.1-0.2 ms); a lone durable ack crosses three hand-offs between threads ' +
    '(p99.9 of a wake here about 2 ms) and an LMDB commit of two flushes (p99 0.5-0.6 ms alone). The lever is ' +
    'fewer hand-offs (the commit on the worker when the journal thread is idle) and one flush per commit ' +
    `(${PERFORMANCE}, "What a wake and a commit cost here")`,
  'replay vs engine alone': 'a fresh thread that compiles its code while it replays, and the garbage of ' +
    'decoded commands: since records are decoded whole with one reader and applied in a plain loop (2026-12-01, ' +
    '09:00 UTC: 1.13 x in paired cold restarts), a cold replay spends about 15 % in the collector (each command\'s ' +
    'object, its order\'s and its order id\'s string, which the engine keeps), 12 % hashing new ids into the id ' +
    'table, then decoding; the engine\'s first pass runs at about 1.1 µs a command against 0.86 warm. The lever is ' +
    'an engine that reads a command from its bytes and keeps ids as bytes ' +
    `(${PERFORMANCE}, "Replay a record at a time")`,
  'native backend vs raw libsecp256k1, per core': 'what a full check does around the recovery in JavaScript ' +
    '(the EIP-712 digest, the address, parsing: about 5 µs) and the recovery\'s tables evicted from L2 by it; ' +
    'it reads 0.89-0.93 x in interleaved chunks (docs/signatures-and-auth.md, the signature backend)',
  'signer cache vs plain noble recovery, per core': 'noisy on a shared machine (3.54, 3.49, 3.42 and 2.50 x in ' +
    'quick runs); noble\'s plain recovery and its cached tables differ by the load, not the code ' +
    '(docs/signatures-and-auth.md)',
  'REST signed POST /order vs uWS constant JSON': 'the two cores (83-86 % busy), and beyond the server: an ' +
    'order\'s signature check and the load generator\'s HTTP and HMAC alone fit at most 12-17 % of uWS\'s rate on ' +
    'them (bench:rest\'s `orders_vs_uws_reachable`). The server adds 0.36-0.46 ms an order (2026-12-01: main ' +
    'thread 0.13-0.17, signature check 0.08-0.10, engine worker and journal 0.03-0.05 each, other 0.05-0.09: V8\'s ' +
    'compiler and collector, the read store\'s LMDB commits); the generator 0.05-0.07 (bench:rest\'s CPU table; ' +
    `${PERFORMANCE}, "Write path v2, fourth and fifth steps", and "The read store's saves")`,
  'REST signed intake vs the verification pool\'s ceiling': 'the ceiling has both cores to itself (9-10 k/s); ' +
    'with the load generator on the same cores, the signature check and the generator\'s own 0.21 ms an order fit ' +
    'at most 51-59 % of it (bench:rest\'s `intake_vs_pool_reachable`), whatever the server does; the server\'s ' +
    'own work besides the check (0.27-0.36 ms an order on 2026-12-01) takes it to 20-37 % ' +
    `(${PERFORMANCE}, "Write path v2, fifth step")`,
  'REST DELETE /order vs uWS constant JSON': 'the disk, then the server. A durable write cannot beat uWS answering ' +
    'the same connections after a group flush and nothing else (bench:rest\'s `uws_durable_per_s`, 34-42 % of ' +
    'uWS on 2026-12-02), so 40 % needs a cancel to cost nothing beyond HTTP and the flush. Predex\'s cancels ' +
    'reach about a fifth of that floor: 0.12 ms of the server\'s CPU a cancel (2026-12-02: main thread 0.05, ' +
    'the engine\'s threads 0.03, other 0.03), where every thread it wakes on the way costs a wake-up on shared ' +
    'cores. The durable host alone at the same 32 in flight reaches the floor (0.6-1.0 x, ' +
    '`node scripts/host-window.mjs`): the gap is the main thread\'s work a request and the load generator\'s, ' +
    'which the closed loop runs one after the other with the host\'s ack, a cycle of 32 cancels being their sum; ' +
    'with 64 or 128 connections cancels stop near 6 k a second, where the main thread is full ' +
    '(bench:rest\'s CPU table, `cancels_vs_durable` and `cancels_vs_uws_reachable`; ' +
    `${PERFORMANCE}, "A durable write's floor over HTTP" and "REST's closed loop is a convoy")`,
  'REST GET /book vs uWS constant JSON': 'met since the book cache formats a book once per version and replies ' +
    'ready at once skip the promise (65-75 %, 49-79, in two sets of three quick runs); it swings with the machine: the server\'s ' +
    `main thread is 0.04-0.05 ms a read, the load generator 0.03-0.06 (${PERFORMANCE}, "Write path v2, fifth step")`,
  'REST POST /orders (10 per batch) vs single POST /order, orders/s': 'what an order costs besides its request: ' +
    'in a batch 0.18-0.24 ms of server CPU an order (2026-12-01: signature check 0.076, main thread 0.05, other ' +
    '0.035-0.06, engine and journal 0.016) and 0.02 of the generator, against 0.36-0.46 and 0.05-0.07 for a single ' +
    'order; 3 x needs a batched order near 0.15 ms in all, of which the signature check is half. On the main thread ' +
    'the read store (records encoded with msgpack, LMDB puts) is about a fifth of a batch\'s time, the pool\'s ' +
    `hand-off a tenth (${PERFORMANCE}, "The read store's saves, a raw unary client")`,
  'gRPC unary PlaceOrder vs REST (same run)': 'since 2026-12-02 REST, unary and the stream place in turns (three ' +
    'slices each: the disk\'s stalls had decided which phase lost, 0.69-0.75 x run to run); in turns unary read ' +
    '0.70-0.80 x over four quick runs, its server CPU 0.67-0.68 ms an order against REST\'s 0.51-0.52 (main thread ' +
    '0.30-0.32 against 0.19), the cores 69-79 % busy. Before: ' +
    'grpc-js\'s own server cost, and a closed loop not bound by the ' +
    'cores: a unary order costs the server 0.51 ms against REST\'s 0.41 (main thread 0.24 against 0.15; grpc-js ' +
    'answering a constant costs 0.077), while both cores were 77 % busy (REST\'s phase 85 %), so the 32 calls in ' +
    'flight wait on the hand-offs and flushes of the write path. The load generator is no longer in the way: on ' +
    'raw sockets (bench/grpc-raw-unary.ts) it costs 0.067 ms a call, as REST\'s does (node:http2\'s 0.15-0.20, ' +
    `grpc-js's 0.3-0.44) (bench:grpc's CPU table; ${PERFORMANCE}, "The read store's saves, a raw unary client")`,
  'gRPC order-entry stream intake vs REST (same run)': 'in turns with REST (2026-12-02: three slices each, so that ' +
    'both meet the same disk) the stream read 1.47 and 1.36 x, where one after the other it had read 1.48-2.31 x as ' +
    'REST\'s phase met stalls or not; its server CPU 0.34 ms an order against REST\'s 0.51, the cores 68-78 % busy. ' +
    'Predex\'s own work per message, not grpc-js (which ' +
    'answers 65 k messages/s at 0.012 ms a message): the stream\'s verification, engine, journal, read-store ' +
    'writes and V8 threads already cost 0.19-0.25 ms an order, so 2 x REST\'s 0.42 ms would leave its main thread ' +
    '0.02 ms, against 0.08-0.13; the read side has to leave the main thread (bench:grpc\'s CPU table and floors; ' +
    `${PERFORMANCE}, "gRPC: a lean load generator")`,
}

export const TARGETS: readonly Target[] = [
  at('engine vs nodejs-order-book, same stream (holds + complementary)', 'engine', 'ratio', (f) => field(f, 'ratio'), 5,
    'x'),
  // Issue 30, point 3: the goal is no allocation in steady state; test/unit/engine/allocation.test.ts bounds the bytes.
  at('engine: bytes allocated per command after warm-up (bench/engine-allocation.ts)', 'engine', 'bytes_per_command',
    (f) => field(f, 'bytes_per_command'), null, 'bytes'),
  at('engine: scavenges per 100 000 commands, default heap', 'engine', 'scavenges_per_100k',
    (f) => field(f, 'scavenges_per_100k'), null, 'count'),
  // The bare shape's closed loop bounds any host of the design card's shape on this machine.
  at('durable host (sync) vs engine alone', 'host', 'sync_to_engine', (f) => field(f, 'sync_to_engine'), 0.4, 'x',
    true, (f) => field(f, 'bare_shape_to_engine')),
  // Issue 29's target is judged as the issue set it (no subscriber); the server always has one.
  at('durable host (sync) with a subscriber to events, as the server runs it, vs engine alone', 'host',
    'sync_with_events_to_engine', (f) => field(f, 'sync_with_events_to_engine'), null, 'x'),
  at('durable sync vs async', 'host', 'sync_to_async', (f) => field(f, 'sync_to_async'), 0.7, 'x'),
  // Issue 29: a durable ack cannot come sooner than a flush, and this machine's flush time moves
  // with its neighbours, so the ack is judged against the disk's flush measured in the same run.
  at('ack p99 at half of the closed-loop maximum (its host run as the server runs, snapshot replica on) vs the disk\'s flush p99', 'host',
    'ack_p99_ms / disk_flush_p99_ms', (f) => quotient(f, 'ack_p99_ms', 'disk_flush_p99_ms'), 3, 'x', false,
    // The disk as the step's steady arrivals see it (bench/disk-flush.ts, measureDiskArrivals).
    (f) => field(f, 'disk_arrival_p99_to_flush_p99')),
  at('knee (highest open-loop rate with ack p99 <= 3 x the disk\'s flush p99) vs the closed-loop maximum', 'host',
    'ack_knee_per_s / sync_commands_per_s', (f) => quotient(f, 'ack_knee_per_s', 'sync_commands_per_s'), 0.5, 'x'),
  at('the floor under a durable ack: the disk\'s flush (4 KiB + fdatasync), p99', 'host', 'disk_flush_p99_ms',
    (f) => field(f, 'disk_flush_p99_ms'), null, 'ms'),
  at('replay vs engine alone', 'host', 'replay_to_engine (or replay_commands_per_s / engine_commands_per_s)',
    (f) => field(f, 'replay_to_engine') ?? quotient(f, 'replay_commands_per_s', 'engine_commands_per_s'), 0.7, 'x'),
  at('restart to ready with a snapshot', 'host', 'restart_ms', (f) => field(f, 'restart_ms'), 2_000, 'ms', false),
  // benchmarks.md names the replicated figures against local-only without a threshold (issue 34, point 6);
  // not measured when the bench found no nats-server (its `replicated_not_measured` says why).
  at('durable host on the replicated command log (JetStream) vs local-only durable host (same run)', 'host',
    'replicated_to_local', (f) => field(f, 'replicated_to_local'), null, 'x'),
  at('replicated host: ack p99, open loop at half of its closed-loop maximum', 'host', 'replicated_ack_p99_ms',
    (f) => field(f, 'replicated_ack_p99_ms'), null, 'ms', false),
  at('signer cache vs plain noble recovery, per core', 'sig', 'cache_speedup', (f) => field(f, 'cache_speedup'), 3,
    'x'),
  at('native backend vs raw libsecp256k1, per core', 'sig', 'native_to_raw', nativeToRaw, 0.9, 'x'),
  at('REST signed POST /order vs uWS constant JSON', 'rest', 'orders_vs_uws (or orders_per_s / uws_constant_per_s)',
    (f) => field(f, 'orders_vs_uws') ?? quotient(f, 'orders_per_s', 'uws_constant_per_s'), 0.2, 'percent', true,
    (f) => field(f, 'orders_vs_uws_reachable')),
  at('REST signed intake vs the verification pool\'s ceiling', 'rest', 'intake_vs_pool',
    (f) => field(f, 'intake_vs_pool'), 0.8, 'percent', true, (f) => field(f, 'intake_vs_pool_reachable')),
  at('REST DELETE /order vs uWS constant JSON', 'rest', 'cancels_vs_uws (or cancels_per_s / uws_constant_per_s)',
    (f) => field(f, 'cancels_vs_uws') ?? quotient(f, 'cancels_per_s', 'uws_constant_per_s'), 0.4, 'percent', true,
    (f) => field(f, 'cancels_vs_uws_reachable')),
  at('REST GET /book vs uWS constant JSON', 'rest', 'book_vs_uws', (f) => field(f, 'book_vs_uws'), 0.5, 'percent'),
  at('REST POST /orders (10 per batch) vs single POST /order, orders/s', 'rest',
    'batch_vs_single (or batch_orders_per_s / orders_per_s)',
    (f) => field(f, 'batch_vs_single') ?? quotient(f, 'batch_orders_per_s', 'orders_per_s'), 3, 'x'),
  at('gRPC order-entry stream intake vs REST (same run)', 'grpc', 'stream_vs_rest', (f) => field(f, 'stream_vs_rest'),
    GRPC_STREAM_VS_REST_MIN, 'x'),
  at('gRPC unary PlaceOrder vs REST (same run)', 'grpc', 'unary_vs_rest', (f) => field(f, 'unary_vs_rest'),
    GRPC_UNARY_VS_REST_MIN, 'x'),
]

export type Verdict = 'met' | 'NOT met' | 'reported' | 'not measured' | 'not run'

export interface Checked {
  readonly target: Target
  readonly value: number | null
  readonly verdict: Verdict
  /** Met: value / threshold ("at least") or threshold / value ("less than"); >= 1 is met. */
  readonly fractionOfTarget: number | null
  /** "1.67 x", "2 %", "435 ms". */
  readonly measuredText: string
  /** ">= 5 x", "< 5 ms". */
  readonly thresholdText: string
  /** By how much it is met or missed, in words. */
  readonly marginText: string
}

export function formatValue(value: number, unit: Unit): string {
  if (unit === 'percent') return value < 0.1 ? `${(value * 100).toFixed(1)} %` : `${Math.round(value * 100)} %`
  if (unit === 'x') return `${value.toFixed(2)} x`
  if (unit === 'ms') return `${value < 10 ? value.toFixed(2) : Math.round(value).toLocaleString('en')} ms`
  if (unit === 'bytes') return `${Math.round(value).toLocaleString('en')} B`
  if (unit === 'count') return value.toLocaleString('en', { maximumFractionDigits: 2 })
  return `${Math.round(value).toLocaleString('en')}/s`
}

/** Checks one target against the figures of every workload that ran (absent: not run). */
export function check(target: Target, figures: Readonly<Record<string, Figures>>): Checked {
  const thresholdText = target.threshold === null ? 'reported, no threshold' :
    `${target.atLeast ? '>=' : '<'} ${formatValue(target.threshold, target.unit)}`
  const ran = figures[target.workload]
  const value = ran === undefined ? null : target.value(ran)
  if (value === null) {
    const verdict = ran === undefined ? 'not run' : 'not measured'
    return { target, value, verdict, fractionOfTarget: null, measuredText: verdict, thresholdText, marginText: '' }
  }
  const measuredText = formatValue(value, target.unit)
  if (target.threshold === null) {
    return { target, value, verdict: 'reported', fractionOfTarget: null, measuredText, thresholdText, marginText: '' }
  }
  const fraction = target.atLeast ? value / target.threshold : target.threshold / Math.max(value, 1e-9)
  const met = fraction >= 1 && (target.atLeast || value < target.threshold)
  return { target, value, verdict: met ? 'met' : 'NOT met', fractionOfTarget: fraction, measuredText, thresholdText,
    marginText: margin(target, value, met) + (met ? '' : reachableText(target, ran)) }
}

/**
 * For a target not met whose workload measures the best this machine allows: that bound, and
 * whether the target lies beyond it (then no change to the server meets it here).
 */
function reachableText(target: Target, ran: Figures): string {
  const bound = target.reachable?.(ran) ?? null
  if (bound === null) return ''
  const beyond = target.atLeast ? bound < target.threshold! : bound > target.threshold!
  return `; this machine allows ${target.atLeast ? 'at most' : 'no less than'} ${formatValue(bound, target.unit)}` +
    (beyond ? ', so the target is out of reach here' : '')
}

function margin(target: Target, value: number, met: boolean): string {
  const threshold = target.threshold!
  const gap = Math.abs(value - threshold)
  const difference = target.unit === 'percent' ? `${Math.round(gap * 100)} points` : formatValue(gap, target.unit)
  if (target.atLeast) {
    return met ? `${difference} above (${Math.round((value / threshold) * 100)} % of the target)`
      : `${difference} short (${Math.round((value / threshold) * 100)} % of the target)`
  }
  return met ? `${difference} under the limit` : `${difference} over (${(value / threshold).toFixed(1)} x the limit)`
}
