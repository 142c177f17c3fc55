/**
 * What the engine allocates per command and how often the collector runs because of it (issue
 * 30, point 3), on the bench stream (engine-stream.ts) and its variants (bench:engine's: 40 % of the
 * orders on the No token by default, `--no-share-percent`, `--ioc-size-max`).
 *
 * Two measurements, each in a process of its own, because each needs the heap set up its way:
 * - `--mode bytes`: bytes allocated per command. The process runs with a young generation of
 *   ALLOCATION_SEMI_SPACE_MB (`--min-semi-space-size` and `--max-semi-space-size`), so that no
 *   scavenge runs inside a measured window: after a full collection, the growth of the heap's
 *   used bytes over a window is what the window allocated (what it retained included: resting
 *   orders, id-table entries). The figure is the median over the windows of a second pass (the
 *   first warms the code up).
 * - `--mode gc`: collections per 100 000 commands with the default heap, counted by a
 *   PerformanceObserver over a timed pass after a warm-up pass: scavenges and major collections.
 *
 * `allocationFigures()` runs both children and gives their figures; `npm run bench:engine`
 * reports them, and test/unit/engine/allocation.test.ts holds the bytes to a bound. Run alone:
 * `node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128 dist/bench/engine-allocation.js
 * --mode bytes [--commands N] [--seed N] [--ioc-size-max N] [--no-share-percent P]` prints one JSON line.
 */
import { fileURLToPath } from 'node:url'
import { PerformanceObserver, constants } from 'node:perf_hooks'
import v8 from 'node:v8'
import { Engine } from '../src/engine/engine.js'
import type { Command } from '../src/engine/command.js'
import { generateStream } from './engine-stream.js'
import { engineCommands, setupCommands } from './engine-adapters.js'
import { BenchFlags } from './flags.js'
import { runJsonChild } from './json-child.js'

/** Young generation of the bytes child: 128 MiB a semi-space holds a window of any stream here. */
export const ALLOCATION_SEMI_SPACE_MB = 128
const WINDOW_COMMANDS = 10_000
/** The engine's events are dropped in batches of this many commands, as the host's are per group. */
const LOG_BATCH_MASK = 1023
const TRADERS_PER_SIDE = 50

export interface AllocationFigures {
  /** Median bytes allocated per command over the windows of the measured pass. */
  readonly bytesPerCommand: number
  /** The same, for replay (`applyForReplay`: no events). */
  readonly replayBytesPerCommand: number
  readonly scavengesPer100k: number
  readonly majorGcsPer100k: number
  readonly commands: number
}

/** A variant of the bench stream, as bench:engine's variants name them. */
export interface StreamShape {
  readonly commands: number
  readonly seed: number
  /** Largest marketable size (smaller: a deeper book). */
  readonly iocSizeMax: number
  /** Share of the orders on the No token (mint and merge matches). */
  readonly noShare: number
}

function streamCommands(shape: StreamShape): { setup: Command[]; commands: Command[] } {
  const stream = generateStream({ seed: shape.seed, commands: shape.commands, iocSizeMax: shape.iocSizeMax,
    tradersPerSide: TRADERS_PER_SIDE })
  const setup = setupCommands(TRADERS_PER_SIDE * 2)
  return { setup, commands: engineCommands(stream, setup.length + 1, shape.noShare, shape.seed) }
}

function shapeArgs(shape: StreamShape): string[] {
  return ['--commands', String(shape.commands), '--seed', String(shape.seed), '--ioc-size-max', String(shape.iocSizeMax),
    '--no-share-percent', String(Math.round(shape.noShare * 100))]
}

function freshEngine(setup: readonly Command[]): Engine {
  const engine = new Engine()
  for (const command of setup) engine.apply(command)
  engine.log.clear()
  return engine
}

function run(engine: Engine, commands: readonly Command[], from: number, to: number, replay: boolean): void {
  for (let i = from; i < to; i++) {
    if (replay) {
      engine.applyForReplay(commands[i]!)
    } else {
      engine.execute(commands[i]!)
      if ((i & LOG_BATCH_MASK) === LOG_BATCH_MASK) engine.log.clear()
    }
  }
}

function usedBytes(): number {
  let used = 0
  for (const space of v8.getHeapSpaceStatistics()) used += space.space_used_size
  return used
}

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error('run with --expose-gc')
  gc()
}

/** Median bytes per command over windows of the second of two passes. */
function bytesPerCommand(setup: readonly Command[], commands: readonly Command[], replay: boolean): number {
  run(freshEngine(setup), commands, 0, commands.length, replay)
  const engine = freshEngine(setup)
  const perWindow: number[] = []
  for (let from = 0; from + WINDOW_COMMANDS <= commands.length; from += WINDOW_COMMANDS) {
    collect()
    const before = usedBytes()
    run(engine, commands, from, from + WINDOW_COMMANDS, replay)
    perWindow.push((usedBytes() - before) / WINDOW_COMMANDS)
  }
  perWindow.sort((a, b) => a - b)
  return Math.round(perWindow[perWindow.length >> 1]!)
}

/** Scavenges and major collections per 100 000 commands over a pass after a warm-up pass. */
async function collections(setup: readonly Command[], commands: readonly Command[]):
  Promise<{ scavenges: number; majors: number }> {
  run(freshEngine(setup), commands, 0, commands.length, false)
  const engine = freshEngine(setup)
  collect()
  let scavenges = 0
  let majors = 0
  let counting = true
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind
      if (!counting) continue
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++
    }
  })
  observer.observe({ entryTypes: ['gc'] })
  run(engine, commands, 0, commands.length, false)
  // The entries are delivered after the pass, on a later turn.
  await new Promise((resolve) => setTimeout(resolve, 50))
  counting = false
  observer.disconnect()
  const per100k = 100_000 / commands.length
  return { scavenges: scavenges * per100k, majors: majors * per100k }
}

async function child(argv: readonly string[]): Promise<void> {
  const flags = new BenchFlags(argv)
  const mode = argv[argv.indexOf('--mode') + 1]
  const noSharePercent = argv.includes('--no-share-percent') ? Number(argv[argv.indexOf('--no-share-percent') + 1]) : 40
  if (!Number.isInteger(noSharePercent) || noSharePercent < 0 || noSharePercent > 100) {
    throw new Error('--no-share-percent needs an integer from 0 to 100')
  }
  const { setup, commands } = streamCommands({ commands: flags.integer('--commands', 200_000),
    seed: flags.integer('--seed', 42), iocSizeMax: flags.integer('--ioc-size-max', 400), noShare: noSharePercent / 100 })
  if (mode === 'bytes') {
    console.log(JSON.stringify({ bytes_per_command: bytesPerCommand(setup, commands, false),
      replay_bytes_per_command: bytesPerCommand(setup, commands, true) }))
  } else if (mode === 'gc') {
    const { scavenges, majors } = await collections(setup, commands)
    console.log(JSON.stringify({ scavenges_per_100k: Number(scavenges.toFixed(1)), major_gcs_per_100k: Number(majors.toFixed(2)) }))
  } else {
    throw new Error('--mode bytes or --mode gc')
  }
}

/** The flags of the bytes child: a young generation no window fills. */
export function bytesChildFlags(): string[] {
  return ['--expose-gc', `--min-semi-space-size=${ALLOCATION_SEMI_SPACE_MB}`,
    `--max-semi-space-size=${ALLOCATION_SEMI_SPACE_MB}`]
}

function runChild(nodeFlags: readonly string[], args: readonly string[]): Promise<Record<string, number>> {
  return runJsonChild([...nodeFlags, fileURLToPath(import.meta.url), ...args], 'engine-allocation child') as
    Promise<Record<string, number>>
}

/** Both children's figures for a variant of the stream. */
export async function allocationFigures(shape: StreamShape): Promise<AllocationFigures> {
  const bytes = await runChild(bytesChildFlags(), ['--mode', 'bytes', ...shapeArgs(shape)])
  const gc = await runChild(['--expose-gc'], ['--mode', 'gc', ...shapeArgs(shape)])
  return { bytesPerCommand: bytes.bytes_per_command!, replayBytesPerCommand: bytes.replay_bytes_per_command!,
    scavengesPer100k: gc.scavenges_per_100k!, majorGcsPer100k: gc.major_gcs_per_100k!, commands: shape.commands }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  child(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
