/**
 * The bare shape's throughput: what the design card's shape itself (a ring, a single writer on
 * its thread, a journal thread committing one LMDB transaction per group) costs a command, with
 * no Predex code but the ring (issue 29: the floor beside the durable host's closed loop).
 *
 * The main thread submits records of the stream's mean size into the command ring (src/ring,
 * as EngineHost.submit writes them), each with a promise, at most WINDOW in flight, waking a
 * sleeping worker once per event-loop turn; the worker drains the ring, copying each record into
 * the group's batch (as the engine worker copies commands into its batch record), and hands the
 * group to its journal thread whenever that thread is free; the journal thread commits the batch
 * as one synchronous LMDB transaction (data, fdatasync, meta, sync: as the journal commits) and
 * posts the group's request ids, one transferred buffer, to the main thread, which resolves their
 * promises. No decoding, no engine, no outcomes beyond the ids.
 *
 * Its CPU per command, against the host's, is what Predex's own code costs a command on the path
 * of the shape; its rate says what the shape allows on this machine.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { MessageChannel, Worker } from 'node:worker_threads'
import { Ring } from '../src/ring/ring.js'
import { BATCH_COMMANDS_MAX, COMMAND_RING_BYTES } from '../src/limits.js'
import { median } from './stats.js'

/** As bench:host's closed loop. */
const WINDOW = 4_096
/** As the engine worker's group. */
const GROUP_MAX = BATCH_COMMANDS_MAX

export interface ShapeFloor {
  /** Durable acknowledgements per second, closed loop (median of the warm passes). */
  readonly perSecond: number
  /** The process's CPU time per command, every thread (µs; median of the warm passes). */
  readonly cpuUsPerCommand: number
  readonly recordBytes: number
}

/**
 * The worker (CommonJS, evaluated): drains the ring into a batch, hands it over when the journal
 * thread is free, sleeps on the ring (Atomics.waitAsync, as the engine worker) when it is empty.
 */
const WORKER = `
const { parentPort, workerData, Worker } = require('node:worker_threads')
const { setImmediate: nextTurn } = require('node:timers/promises')
;(async () => {
  const { Ring } = await import(workerData.ringUrl)
  const ring = new Ring(workerData.ring)
  const signal = new Int32Array(new SharedArrayBuffer(4))
  const journal = new Worker(workerData.journalCode, { eval: true,
    workerData: { dir: workerData.dir, lmdb: workerData.lmdb, signal: signal.buffer, toMain: workerData.toMain },
    transferList: [workerData.toMain] })
  await new Promise((resolve) => journal.once('message', resolve))
  let handed = false
  let stopping = false
  journal.on('message', () => { handed = false; ring.wakeConsumer() })
  parentPort.on('message', () => { stopping = true; ring.wakeConsumer() })
  let batch = new Uint8Array(1 << 20)
  let length = 0
  let ids = new Float64Array(${GROUP_MAX})
  let count = 0
  parentPort.postMessage('ready')
  for (;;) {
    let drained = 0
    while (count < ${GROUP_MAX}) {
      const record = ring.peek()
      if (record === null) break
      if (length + record.length > batch.length) break
      ids[count++] = record[0] | (record[1] << 8) | (record[2] << 16) | (record[3] * 16777216)
      batch.set(record, length)
      length += record.length
      ring.advance()
      drained++
    }
    if (!handed && count > 0) {
      const bytes = batch.slice(0, length).buffer
      const groupIds = ids.slice(0, count).buffer
      journal.postMessage({ bytes, ids: groupIds }, [bytes, groupIds])
      Atomics.add(signal, 0, 1)
      Atomics.notify(signal, 0)
      handed = true
      length = 0
      count = 0
    }
    if (drained > 0) { await nextTurn(); continue }
    if (stopping && !handed && count === 0) break
    await ring.waitAsync(50)
  }
  const closed = new Promise((resolve) => journal.once('message', resolve))
  journal.postMessage(null)
  Atomics.add(signal, 0, 1)
  Atomics.notify(signal, 0)
  await closed
  await journal.terminate()
  parentPort.postMessage('stopped')
})()
`

/** The journal thread (CommonJS, evaluated): blocks on the worker's signal, commits, posts the ids. */
const JOURNAL = `
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads')
const { open } = require(workerData.lmdb)
const root = open({ path: workerData.dir, noSubdir: false, encoding: 'binary', overlappingSync: false })
const signal = new Int32Array(workerData.signal)
let key = 0
parentPort.postMessage('ready')
for (let stop = false; !stop;) {
  const seen = Atomics.load(signal, 0)
  for (let received = receiveMessageOnPort(parentPort); received !== undefined; received = receiveMessageOnPort(parentPort)) {
    const group = received.message
    if (group === null) { stop = true; break }
    root.transactionSync(() => root.putSync(++key, Buffer.from(group.bytes)))
    workerData.toMain.postMessage(group.ids, [group.ids])
    parentPort.postMessage(0)
  }
  if (!stop) Atomics.wait(signal, 0, seen, 20)
}
root.close().then(() => parentPort.postMessage('closed'))
`

/**
 * The ring's module for the writer thread, compiled beside this file: an evaluated thread has no
 * TypeScript loader, so this runs compiled only (its test imports it from dist/).
 */
const RING_MODULE = new URL('../src/ring/ring.js', import.meta.url)

/** `passes` closed loops of `commands` records of `recordBytes`; the first warms the threads up. */
export async function measureShapeFloor(parent: string, commands: number, recordBytes: number, passes = 3):
  Promise<ShapeFloor> {
  const dir = mkdtempSync(join(parent, 'predex-bench-shape-'))
  const ringBuffer = Ring.allocate(COMMAND_RING_BYTES)
  const ring = new Ring(ringBuffer)
  const channel = new MessageChannel()
  const worker = new Worker(WORKER, { eval: true, workerData: { ring: ringBuffer, dir, journalCode: JOURNAL,
    ringUrl: RING_MODULE.href, toMain: channel.port2,
    lmdb: createRequire(import.meta.url).resolve('lmdb') }, transferList: [channel.port2] })
  const resolvers: ((() => void) | undefined)[] = new Array<undefined>(commands)
  channel.port1.on('message', (ids: ArrayBuffer) => {
    for (const id of new Float64Array(ids)) {
      const resolve = resolvers[id]!
      resolvers[id] = undefined
      resolve()
    }
  })
  const failed = new Promise<never>((_, reject) => worker.once('error', reject))
  try {
    await Promise.race([new Promise((resolve) => worker.once('message', resolve)), failed])
    const rates: number[] = []
    const cpus: number[] = []
    for (let pass = 0; pass < passes; pass++) {
      const cpuBefore = process.cpuUsage()
      const started = performance.now()
      await Promise.race([closedLoop(ring, resolvers, commands, recordBytes), failed])
      const seconds = (performance.now() - started) / 1000
      const cpu = process.cpuUsage(cpuBefore)
      if (pass === 0 && passes > 1) continue
      rates.push(commands / seconds)
      cpus.push((cpu.user + cpu.system) / commands)
    }
    return { perSecond: median(rates), cpuUsPerCommand: median(cpus), recordBytes }
  } finally {
    // The worker says so once its journal thread has closed LMDB; both are then ended.
    const stopped = new Promise((resolve) => worker.once('message', resolve))
    worker.postMessage('stop')
    await Promise.race([stopped, failed])
    await worker.terminate()
    channel.port1.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Submits `commands` records (each starting with its id, 32 bits LE), at most WINDOW in flight. */
function closedLoop(ring: Ring, resolvers: ((() => void) | undefined)[], commands: number, recordBytes: number):
  Promise<void> {
  const record = new Uint8Array(recordBytes).fill(0x5a)
  let next = 0
  let done = 0
  let wakeQueued = false
  const submit = (id: number): Promise<void> => {
    record[0] = id & 0xff
    record[1] = (id >>> 8) & 0xff
    record[2] = (id >>> 16) & 0xff
    record[3] = (id >>> 24) & 0xff
    if (!ring.tryWrite(record, false)) throw new Error('the ring is full: a window of commands fits it')
    // Once per turn, as EngineHost wakes the engine worker (wakeEngineThisTurn).
    if (!wakeQueued) {
      wakeQueued = true
      ring.wakeConsumer()
      setImmediate(() => {
        wakeQueued = false
        ring.wakeConsumer()
      })
    }
    return new Promise<void>((resolve) => {
      resolvers[id] = resolve
    })
  }
  return new Promise<void>((resolveAll, reject) => {
    const pump = (): void => {
      try {
        while (next < commands && next - done < WINDOW) {
          void submit(next++).then(() => {
            if (++done === commands) resolveAll()
            else pump()
          })
        }
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)))
      }
    }
    pump()
  })
}
