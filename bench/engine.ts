/**
 * `npm run bench:engine`: workload 1 of ../shared/spec/benchmarks.md. The same seeded stream goes
 * straight into the engine's `execute` (no I/O; events written as the bytes the host ships, and as
 * the server's engine worker runs it: no `balance` events, which the host does not ship) and
 * into nodejs-order-book in one process, interleaved in slices of the stream (the engine's slice,
 * then the peer's same slice, and so on), so that both meet the same moments of a shared machine:
 * with whole runs one after the other, a neighbour's burst during one side's run moved a run's
 * ratio by a third. Each side's time is the sum of its slices; a young-generation collection
 * (untimed) before each slice starts it with an empty nursery, so neither side pays for the
 * other's garbage (the peer, which allocates, would otherwise leave its scavenges to the engine).
 * The report gives medians (min, max) and per-run ratios, because absolute numbers drift. The engine runs with holds on (every order is checked
 * against and reserves its trader's balance) and, in the headline variant, with 40 % of the
 * orders on the No token so that mint and merge matches happen. Both final books are checked
 * against the stream's own reference book, so the two sides provably did the same work.
 *
 * Before the timed runs, each side runs the stream untimed (`--warmup N`, 2 by default), so that
 * both are measured with their code optimised, as a server is after its first seconds: the first
 * run of either ran 20 to 40 % slower while V8 compiled it, and one such run in three moved the
 * median.
 *
 * Flags: --quick (200 k commands, 3 runs), --json (last line is a JSON object), --runs N,
 * --warmup N, --commands N, --seed N.
 */
import { OrderBook, type LimitOrderOptions } from 'nodejs-order-book'
import { cpus } from 'node:os'
import { mkdirSync, writeFileSync } from 'node:fs'
import { Engine } from '../src/engine/engine.js'
import type { Command } from '../src/engine/command.js'
import { bookOf } from '../src/engine/view.js'
import { readEvents } from '../src/engine/event-reader.js'
import { generateStream, type Stream } from './engine-stream.js'
import { engineCommands, peerCalls, setupCommands, YES, type PeerCall } from './engine-adapters.js'
import { percentile, summarize, type Summary } from './stats.js'
import { histogram, TimelineRecorder, type LatencyHistogram, type Timeline } from './series.js'
import { BenchFlags } from './flags.js'
import { fullCollection } from '../src/host/thread-memory.js'
import { allocationFigures, type AllocationFigures } from './engine-allocation.js'
import { assert } from '../src/stdx/assert.js'

interface Options {
  readonly quick: boolean
  readonly json: boolean
  readonly runs: number
  readonly warmup: number
  readonly commands: number
  readonly seed: number
}

const TRADERS_PER_SIDE = 50

function parseOptions(argv: readonly string[]): Options {
  const flags = new BenchFlags(argv)
  return { quick: flags.quick, json: flags.json, runs: flags.integer('--runs', flags.quick ? 3 : 5),
    warmup: flags.integer('--warmup', 2),
    commands: flags.integer('--commands', flags.quick ? 200_000 : 1_000_000), seed: flags.integer('--seed', 42) }
}

const log = (line: string): void => void process.stderr.write(line + '\n')

interface VariantResult {
  readonly name: string
  readonly commands: number
  readonly restingMax: number
  readonly engine: Summary
  readonly peer: Summary
  readonly ratio: Summary
  readonly latencyUs: { readonly p50: number; readonly p99: number; readonly p999: number; readonly max: number }
  readonly matchTypes: Readonly<Record<string, number>>
  /** The latency pass's histogram, and the last timed run's throughput over time (engine, then peer). */
  readonly histogram: LatencyHistogram
  readonly timelines: readonly Timeline[]
  readonly allocation: AllocationFigures
  /** The ratio with `balance` events written too (the headline variant only; null elsewhere). */
  readonly everyEventRatio: Summary | null
}

/**
 * The timelines count per chunk of commands: a clock read per 1 024 commands costs nothing
 * measurable, and 20 ms intervals give a quick run (about 0.4 s) some twenty points.
 */
const TIMELINE_CHUNK_MASK = 1023
const TIMELINE_INTERVAL_SECONDS = 0.02
/** Commands per slice of the interleaved run: 20 slices of a quick run, each side's about 10 ms. */
const SLICE_COMMANDS = 10_240

/**
 * An engine set up as the server's engine worker runs it: without `balance` events, which nobody
 * on the host's path reads (src/host/messages.ts, EVENTS_CROSSING). `everyEvent` writes them too,
 * as `Engine.apply` does for tests and tools: the report gives that ratio beside the judged one.
 */
function freshEngine(setup: readonly Command[], everyEvent = false): Engine {
  const engine = new Engine()
  engine.balanceEvents = everyEvent
  for (const command of setup) {
    const { result } = engine.apply(command)
    if (!result.ok) throw new Error(`setup command failed: ${JSON.stringify(result)}`)
  }
  return engine
}

/** A young-generation collection, untimed, between slices (bench runs with --expose-gc). */
function emptyNursery(): void {
  const gc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc
  if (gc === undefined) throw new Error('bench:engine runs with node --expose-gc')
  gc({ type: 'minor' })
}

interface TimedRun {
  readonly engineMs: number
  readonly peerMs: number
  readonly engine: Engine
  readonly peer: OrderBook
  readonly timelines: Timeline[]
}

/** One run of the stream through both sides, slice by slice (see the header). */
function timeRun(setup: readonly Command[], commands: readonly Command[], calls: readonly PeerCall[], name: string,
  everyEvent = false): TimedRun {
  assert(commands.length === calls.length, 'both sides apply the same stream')
  const engine = freshEngine(setup, everyEvent)
  const peer = new OrderBook()
  fullCollection()
  const engineTimeline = new TimelineRecorder(`engine, ${name}`, TIMELINE_INTERVAL_SECONDS)
  const peerTimeline = new TimelineRecorder(`nodejs-order-book, ${name}`, TIMELINE_INTERVAL_SECONDS)
  let engineMs = 0
  let peerMs = 0
  for (let from = 0; from < commands.length; from += SLICE_COMMANDS) {
    const to = Math.min(commands.length, from + SLICE_COMMANDS)
    emptyNursery()
    let start = performance.now()
    for (let i = from; i < to; i++) {
      engine.execute(commands[i]!)
      if ((i & TIMELINE_CHUNK_MASK) === TIMELINE_CHUNK_MASK) {
        engineTimeline.markAt(engineMs + performance.now() - start, TIMELINE_CHUNK_MASK + 1)
        // The events of a chunk are a batch, as the host's are of a group commit: written, then dropped.
        engine.log.clear()
      }
    }
    engineMs += performance.now() - start
    emptyNursery()
    start = performance.now()
    for (let i = from; i < to; i++) {
      const call = calls[i]!
      if (call.kind === 'limit') peer.limit(call.options as unknown as LimitOrderOptions)
      else peer.cancel(call.id)
      if ((i & TIMELINE_CHUNK_MASK) === TIMELINE_CHUNK_MASK) {
        peerTimeline.markAt(peerMs + performance.now() - start, TIMELINE_CHUNK_MASK + 1)
      }
    }
    peerMs += performance.now() - start
  }
  return { engineMs, peerMs, engine, peer, timelines: [engineTimeline.done(), peerTimeline.done()] }
}

/** One extra engine pass timing every command, and counting the trades by match type. */
function latencyPass(setup: readonly Command[], commands: readonly Command[], label: string):
  Pick<VariantResult, 'latencyUs' | 'matchTypes' | 'histogram'> {
  const engine = freshEngine(setup)
  const micros = new Float64Array(commands.length)
  const matchTypes: Record<string, number> = {}
  for (let i = 0; i < commands.length; i++) {
    const start = performance.now()
    engine.execute(commands[i]!)
    micros[i] = (performance.now() - start) * 1000
    for (const event of readEvents(engine.log.take())) {
      if (event.type === 'trade') matchTypes[event.matchType] = (matchTypes[event.matchType] ?? 0) + 1
    }
  }
  const latencyHistogram = histogram(label, 'us', micros)
  micros.sort()
  return {
    histogram: latencyHistogram,
    latencyUs: { p50: percentile(micros, 0.5), p99: percentile(micros, 0.99), p999: percentile(micros, 0.999), max: micros[micros.length - 1]! },
    matchTypes,
  }
}

/** Both books must end exactly as the stream's reference book did. */
function checkFinalBooks(stream: Stream, engine: Engine, peer: OrderBook): void {
  const view = bookOf(engine, YES, true)!
  const engineBids = view.bids.map((e) => [e.priceMicros / 10_000, e.sizeMicros / 1_000_000])
  const engineAsks = view.asks.map((e) => [e.priceMicros / 10_000, e.sizeMicros / 1_000_000])
  const [peerAsks, peerBids] = peer.depth()
  const sorted = (levels: [number, number][], descending: boolean): [number, number][] =>
    [...levels].sort((a, b) => (descending ? b[0] - a[0] : a[0] - b[0]))
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)
  if (!same(engineBids, stream.finalBids) || !same(engineAsks, stream.finalAsks)) {
    throw new Error('the engine\'s final book differs from the stream\'s reference book')
  }
  if (!same(sorted(peerBids, true), stream.finalBids) || !same(sorted(peerAsks, false), stream.finalAsks)) {
    throw new Error('the peer\'s final book differs from the stream\'s reference book')
  }
}

async function runVariant(name: string, options: Options, iocSizeMax: number, noShare: number,
  everyEventToo = false): Promise<VariantResult> {
  log(`\n[${name}] generating ${options.commands.toLocaleString('en')} commands (seed ${options.seed})`)
  const stream = generateStream({ seed: options.seed, commands: options.commands, iocSizeMax, tradersPerSide: TRADERS_PER_SIDE })
  const setup = setupCommands(TRADERS_PER_SIDE * 2)
  const commands = engineCommands(stream, setup.length + 1, noShare, options.seed)
  const calls = peerCalls(stream)
  log(`[${name}] ${stream.fills.toLocaleString('en')} fills, up to ${stream.restingMax.toLocaleString('en')} resting orders`)
  const engineRates: number[] = []
  const peerRates: number[] = []
  const ratios: number[] = []
  let timelines: Timeline[] = []
  for (let run = 1; run <= options.warmup; run++) timeRun(setup, commands, calls, name)
  for (let run = 1; run <= options.runs; run++) {
    const { engineMs, peerMs, engine, peer, timelines: runTimelines } = timeRun(setup, commands, calls, name)
    timelines = runTimelines
    checkFinalBooks(stream, engine, peer)
    const engineRate = commands.length / (engineMs / 1000)
    const peerRate = calls.length / (peerMs / 1000)
    engineRates.push(engineRate)
    peerRates.push(peerRate)
    ratios.push(engineRate / peerRate)
    log(`[${name}] run ${run}/${options.runs}: engine ${Math.round(engineRate).toLocaleString('en')}/s, ` +
      `peer ${Math.round(peerRate).toLocaleString('en')}/s, ratio ${(engineRate / peerRate).toFixed(2)}`)
  }
  const everyEventRatio = everyEventToo ? everyEventRatios(stream, setup, commands, calls, name, options.runs) : null
  const latency = latencyPass(setup, commands, `engine apply per command, ${name}`)
  log(`[${name}] latency p50 ${latency.latencyUs.p50.toFixed(2)} us, p99 ${latency.latencyUs.p99.toFixed(2)} us, ` +
    `p99.9 ${latency.latencyUs.p999.toFixed(2)} us; trades ${JSON.stringify(latency.matchTypes)}`)
  const allocation = await allocationFigures({ commands: options.commands, seed: options.seed, iocSizeMax, noShare })
  log(`[${name}] allocation: ${allocation.bytesPerCommand} B per command (replay ${allocation.replayBytesPerCommand} B), ` +
    `${allocation.scavengesPer100k} scavenges and ${allocation.majorGcsPer100k} major collections per 100 000 commands`)
  return { name, commands: commands.length, restingMax: stream.restingMax, engine: summarize(engineRates),
    peer: summarize(peerRates), ratio: summarize(ratios), ...latency, timelines, allocation, everyEventRatio }
}

/** The same timed runs with `balance` events written: what they cost the engine, beside the judged ratio. */
function everyEventRatios(stream: Stream, setup: readonly Command[], commands: readonly Command[],
  calls: readonly PeerCall[], name: string, runs: number): Summary {
  const ratios: number[] = []
  for (let run = 1; run <= runs; run++) {
    const { engineMs, peerMs, engine, peer } = timeRun(setup, commands, calls, name, true)
    checkFinalBooks(stream, engine, peer)
    ratios.push((commands.length / engineMs) / (calls.length / peerMs))
  }
  log(`[${name}] with balance events written too: ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}`)
  return summarize(ratios)
}

/**
 * Heap retained per resting order, from 100 000 passive orders. The inputs (ids included) are
 * built before the first measurement and kept alive until after the second, so that only what
 * the book retains is counted.
 */
function heapPerRestingOrder(): { engineBytes: number; peerBytes: number } {
  return { engineBytes: engineHeapPerOrder(), peerBytes: peerHeapPerOrder() }
}

const PROBE_ORDERS = 100_000

function probeOrder(i: number): { id: number; isBid: boolean; tick: number } {
  const isBid = i % 2 === 0
  return { id: i + 1, isBid, tick: isBid ? 1 + (i % 49) : 51 + (i % 49) }
}

/**
 * The JavaScript heap plus the ArrayBuffers' backing stores, after full collections: the engine
 * keeps its orders in typed arrays (src/engine/order-table.ts), whose bytes live outside the heap.
 */
function heapUsedAfterGc(): number {
  fullCollection()
  fullCollection()
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.arrayBuffers
}

function engineHeapPerOrder(): number {
  const setup = setupCommands(2)
  const items = Array.from({ length: PROBE_ORDERS }, (_, i) => {
    const { id, isBid, tick } = probeOrder(i)
    return { kind: 'limit' as const, id, isBid, tick, size: 1, trader: isBid ? 0 : 1 }
  })
  const commands = engineCommands({ items, finalBids: [], finalAsks: [], restingMax: 0, fills: 0 }, setup.length + 1, 0, 1)
  const engine = freshEngine(setup)
  const before = heapUsedAfterGc()
  for (const command of commands) engine.apply(command)
  const after = heapUsedAfterGc()
  if (engine.openOrderCount !== PROBE_ORDERS || commands.length !== PROBE_ORDERS) throw new Error('heap probe: every order must rest')
  return (after - before) / PROBE_ORDERS
}

function peerHeapPerOrder(): number {
  const options = Array.from({ length: PROBE_ORDERS }, (_, i) => {
    const { id, isBid, tick } = probeOrder(i)
    return { side: isBid ? 'buy' : 'sell', id: String(id), size: 1, price: tick } as unknown as LimitOrderOptions
  })
  const peer = new OrderBook()
  const before = heapUsedAfterGc()
  for (const option of options) peer.limit(option)
  const after = heapUsedAfterGc()
  if (options.length !== PROBE_ORDERS || peer.depth()[0].length === 0) throw new Error('heap probe: the peer book is empty')
  return (after - before) / PROBE_ORDERS
}

function report(options: Options, variants: readonly VariantResult[], heap: { engineBytes: number; peerBytes: number }):
  string {
  const cpu = cpus()[0]?.model ?? 'unknown cpu'
  const lines = [
    '# Engine benchmark (workload 1)', '',
    `Command: \`npm run bench:engine${options.quick ? ' -- --quick' : ''}\`; machine: ${cpus().length} cores (${cpu}), Node ${process.version}; ` +
    `${options.runs} runs per variant after ${options.warmup} untimed warm-up runs of each side, interleaved with the ` +
    `peer in slices of ${SLICE_COMMANDS.toLocaleString('en')} commands; seed ${options.seed}.`, '',
    '| variant | commands | engine cmds/s median (min-max) | nodejs-order-book cmds/s median (min-max) | ratio median (min-max) | p50 / p99 / p99.9 us |',
    '| --- | --- | --- | --- | --- | --- |',
  ]
  const k = (n: number): string => `${Math.round(n / 1000).toLocaleString('en')} k`
  for (const v of variants) {
    lines.push(`| ${v.name} | ${v.commands.toLocaleString('en')} | ${k(v.engine.median)} (${k(v.engine.min)}-${k(v.engine.max)}) | ` +
      `${k(v.peer.median)} (${k(v.peer.min)}-${k(v.peer.max)}) | ${v.ratio.median.toFixed(2)} (${v.ratio.min.toFixed(2)}-${v.ratio.max.toFixed(2)}) | ` +
      `${v.latencyUs.p50.toFixed(2)} / ${v.latencyUs.p99.toFixed(2)} / ${v.latencyUs.p999.toFixed(2)} |`)
  }
  lines.push('', `Heap per resting order: engine ${Math.round(heap.engineBytes)} B, nodejs-order-book ${Math.round(heap.peerBytes)} B ` +
    '(100 000 passive orders, ids built beforehand; the JavaScript heap and ArrayBuffers).', '')
  lines.push('Allocation (bench/engine-allocation.ts, child processes, after a warm-up pass; target: none in steady ' +
    'state, so no major collection):', '', '| variant | bytes per command | replay | scavenges per 100 k | major per 100 k |',
  '| --- | --- | --- | --- | --- |')
  for (const v of variants) {
    const a = v.allocation
    lines.push(`| ${v.name} | ${a.bytesPerCommand} | ${a.replayBytesPerCommand} | ${a.scavengesPer100k} | ${a.majorGcsPer100k} |`)
  }
  lines.push('')
  const headline = variants[0]!
  const everyEvent = headline.everyEventRatio!
  lines.push('The engine runs as the server\'s engine worker runs it: it writes every event the host ships, and no ' +
    '`balance` events, which nothing on the host\'s path reads (src/host/messages.ts, EVENTS_CROSSING). With them ' +
    `written too (as \`Engine.apply\` does for tests and tools), the headline's ratio is ${everyEvent.median.toFixed(2)} ` +
    `(${everyEvent.min.toFixed(2)}-${everyEvent.max.toFixed(2)}).`, '')
  lines.push(`Target: engine >= 5 x nodejs-order-book with holds and complementary matching on: ` +
    `${headline.ratio.median >= 5 ? 'met' : 'NOT met'} (median ratio ${headline.ratio.median.toFixed(2)}).`)
  return lines.join('\n') + '\n'
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2))
  if ((globalThis as { gc?: unknown }).gc === undefined) log('note: run with --expose-gc for steadier numbers')
  const variants = [await runVariant('complementary (40 % on No), holds on', options, 400, 0.4, true)]
  variants.push(await runVariant('Yes book only, holds on', options, 400, 0))
  if (!options.quick) variants.push(await runVariant('deep book, holds on', options, 200, 0))
  const heap = heapPerRestingOrder()
  const markdown = report(options, variants, heap)
  const allocation = variants[0]!.allocation
  log('\n' + markdown)
  const headline = variants[0]!
  const summary = {
    commands_per_s: Math.round(headline.engine.median),
    peer_commands_per_s: Math.round(headline.peer.median),
    ratio: Number(headline.ratio.median.toFixed(3)),
    commands_per_s_min: Math.round(headline.engine.min),
    commands_per_s_max: Math.round(headline.engine.max),
    peer_commands_per_s_min: Math.round(headline.peer.min),
    peer_commands_per_s_max: Math.round(headline.peer.max),
    ratio_min: Number(headline.ratio.min.toFixed(3)),
    ratio_max: Number(headline.ratio.max.toFixed(3)),
    ratio_every_event: Number(headline.everyEventRatio!.median.toFixed(3)),
    p50_us: Number(headline.latencyUs.p50.toFixed(3)),
    p99_us: Number(headline.latencyUs.p99.toFixed(3)),
    p999_us: Number(headline.latencyUs.p999.toFixed(3)),
    runs: options.runs,
    warmup_runs: options.warmup,
    commands: options.commands,
    heap_bytes_per_resting_order: Math.round(heap.engineBytes),
    bytes_per_command: allocation.bytesPerCommand,
    replay_bytes_per_command: allocation.replayBytesPerCommand,
    scavenges_per_100k: allocation.scavengesPer100k,
    major_gcs_per_100k: allocation.majorGcsPer100k,
    peer_heap_bytes_per_resting_order: Math.round(heap.peerBytes),
    variants,
    machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? '', node: process.version },
  }
  const resultsDir = new URL('../../bench/results/', import.meta.url)
  mkdirSync(resultsDir, { recursive: true })
  writeFileSync(new URL('engine.md', resultsDir), markdown)
  writeFileSync(new URL('engine.json', resultsDir), JSON.stringify(summary, null, 2) + '\n')
  if (options.json) {
    const { variants: _v, machine: _m, ...line } = summary
    // The charts' data (bench/series.ts) for the suite: every variant's latency histogram, the headline's timelines.
    const series = { histograms: variants.map((v) => v.histogram), timelines: headline.timelines }
    console.log(JSON.stringify({ ...line, medians_over_runs: options.runs, series }))
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
