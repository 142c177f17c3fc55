#!/usr/bin/env node
/**
 * The engine worker's loop on one thread, piece by piece: `node scripts/worker-loop.mjs [--runs N]`
 * (after scripts/build.mjs; it loads dist/). The bench stream (bench/engine-stream.ts, 200 k
 * commands, 40 % on No) as the worker takes it, as ring records, and the same work cut down:
 *
 * - prebuilt: the engine alone on command objects made beforehand (bench:engine's and bench:host's
 *   "engine alone");
 * - decode: the request reader alone;
 * - in turns: decode a command, stamp and apply it, the next (the worker's loop before bd94a7f);
 * - run of 64: decode 64, then stamp and apply them (the worker's loop since);
 * - worker loop: the run of 64 through a ring, each recorded command's bytes into the batch
 *   record, its head into the outcome heads, and each group of 2 048 encoded and sealed, as the
 *   worker hands it over (no threads, no disk: what the worker's own thread spends).
 *
 * Every variant runs in every round, in turn, on a fresh engine; the first two rounds warm up; the
 * figures are medians in µs a command. One thread, no I/O: steadier than the host's benchmarks on
 * a shared machine, but blind to what crosses threads (docs/performance.md, "Decode a run, then
 * apply it", says what that hid once).
 */
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'

const load = (path) => import(pathToFileURL(resolve('dist', path)).href)
const { Engine } = await load('src/engine/engine.js')
const { Ring } = await load('src/ring/ring.js')
const { RequestReader, encodeRequest } = await load('src/codec/request-codec.js')
const { BatchRecordWriter } = await load('src/journal/batch-record.js')
const { OutcomeHeads, OutcomeWriter } = await load('src/codec/outcome-codec.js')
const { generateStream } = await load('bench/engine-stream.js')
const { engineCommands, setupCommands } = await load('bench/engine-adapters.js')

const runsIndex = process.argv.indexOf('--runs')
const ROUNDS = 2 + (runsIndex > 0 ? Number(process.argv[runsIndex + 1]) : 7)
const COMMANDS = 200_000
const RUN = 64
const GROUP = 2_048
const LOG_BATCH_MASK = 1_023

const stream = generateStream({ seed: 42, commands: COMMANDS, iocSizeMax: 400, tradersPerSide: 50 })
const setup = setupCommands(100)
const stamped = engineCommands(stream, setup.length + 1, 0.4, 42)
const records = stamped.map(({ seq: _seq, timeMs: _timeMs, ...command }, i) =>
  Uint8Array.from(encodeRequest(i + 1, command)))

function freshEngine() {
  const engine = new Engine({ hashSeed: 1 })
  // As the worker runs it (src/host/messages.ts, EVENTS_CROSSING).
  engine.balanceEvents = false
  for (const command of setup) engine.apply(command)
  return engine
}

/** Stamps and applies one decoded command as the worker does; whether it changed the state. */
function apply(engine, command) {
  const previousSeq = engine.seq
  const previousTimeMs = engine.timeMs
  command.seq = previousSeq + 1
  command.timeMs = Math.max(Date.now(), previousTimeMs)
  engine.execute(command)
  if (engine.changed) return true
  engine.rewind(previousSeq, previousTimeMs)
  return false
}

const variants = {
  prebuilt() {
    const engine = freshEngine()
    const started = performance.now()
    for (let i = 0; i < COMMANDS; i++) {
      engine.execute(stamped[i])
      if ((i & LOG_BATCH_MASK) === LOG_BATCH_MASK) engine.log.clear()
    }
    return performance.now() - started
  },
  decode() {
    const reader = new RequestReader()
    let kinds = 0
    const started = performance.now()
    for (let i = 0; i < COMMANDS; i++) kinds += reader.read(records[i]).kind.length
    if (kinds === 0) throw new Error('nothing decoded')
    return performance.now() - started
  },
  'in turns'() {
    const engine = freshEngine()
    const reader = new RequestReader()
    const started = performance.now()
    for (let i = 0; i < COMMANDS; i++) {
      apply(engine, reader.read(records[i]))
      if ((i & LOG_BATCH_MASK) === LOG_BATCH_MASK) engine.log.clear()
    }
    return performance.now() - started
  },
  'run of 64'() {
    const engine = freshEngine()
    const reader = new RequestReader()
    const run = new Array(RUN)
    const started = performance.now()
    for (let from = 0; from < COMMANDS; from += RUN) {
      const to = Math.min(COMMANDS, from + RUN)
      for (let i = from; i < to; i++) run[i - from] = reader.read(records[i])
      for (let i = from; i < to; i++) {
        apply(engine, run[i - from])
        if ((i & LOG_BATCH_MASK) === LOG_BATCH_MASK) engine.log.clear()
      }
    }
    return performance.now() - started
  },
  'worker loop'() {
    const engine = freshEngine()
    const reader = new RequestReader()
    const ring = new Ring(Ring.allocate(1 << 24))
    const batch = new BatchRecordWriter()
    const heads = new OutcomeHeads()
    const outcomes = new OutcomeWriter()
    const run = new Array(RUN)
    const starts = new Int32Array(RUN)
    const ids = new Float64Array(RUN)
    const views = new Array(RUN)
    let written = 0
    let handedBytes = 0
    const started = performance.now()
    for (let applied = 0; applied < COMMANDS;) {
      // The front end's writes, a group's worth ahead (not the worker's cost, but its ring's).
      while (written < COMMANDS && written - applied < GROUP) ring.tryWrite(records[written++], false)
      let count = 0
      while (count < RUN) {
        const bytes = ring.peekAhead()
        if (bytes === null) break
        run[count] = reader.read(bytes)
        ids[count] = reader.requestId
        starts[count] = reader.commandStart
        views[count++] = bytes
      }
      for (let i = 0; i < count; i++, applied++) {
        const command = run[i]
        const recorded = apply(engine, command)
        if (recorded) batch.add(command.seq, command.timeMs, views[i].subarray(starts[i]))
        ring.advance()
        heads.push(ids[i], engine.seq, command.timeMs, recorded, engine.log.length)
        if (heads.count === GROUP || applied === COMMANDS - 1) {
          handedBytes += outcomes.encode(heads, 0, engine.log, false).byteLength
          engine.log.clear()
          heads.clear()
          if (batch.count > 0) handedBytes += batch.seal().length
        }
      }
    }
    if (handedBytes === 0) throw new Error('nothing handed over')
    return performance.now() - started
  },
}

// --only a,b: those variants alone (a variant that runs first shapes what V8 optimises for the others).
const onlyIndex = process.argv.indexOf('--only')
const names = onlyIndex > 0 ? process.argv[onlyIndex + 1].split(',') : Object.keys(variants)
for (const name of names) if (!(name in variants)) throw new Error(`no variant ${name}: ${Object.keys(variants).join(', ')}`)
const perCommandUs = Object.fromEntries(names.map((name) => [name, []]))
for (let round = 0; round < ROUNDS; round++) {
  for (const name of names) {
    const ms = variants[name]()
    if (round >= 2) perCommandUs[name].push((ms * 1000) / COMMANDS)
  }
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
console.log(`the engine worker's loop on one thread, ${COMMANDS.toLocaleString('en')} commands, ` +
  `${ROUNDS - 2} rounds after 2 of warm-up; µs a command, median (min-max)`)
for (const name of names) {
  const values = perCommandUs[name]
  console.log(`${name.padEnd(12)} ${median(values).toFixed(3)} (${Math.min(...values).toFixed(2)}-` +
    `${Math.max(...values).toFixed(2)})`)
}
