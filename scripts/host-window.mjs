#!/usr/bin/env node
/**
 * The durable host alone at a client's concurrency: `node scripts/host-window.mjs [--window 32]
 * [--commands 20000] [--runs 3] [--dist dist]`. A host (durability sync, a fresh data directory,
 * no snapshots) takes the bench stream (bench/engine-stream.ts, 40 % on No) in a closed loop of
 * `--window` in flight: 32 is what bench:rest's and bench:grpc's closed loops keep in flight, so
 * this is what those figures would read if HTTP, authentication, the read side and the load
 * generator cost nothing (bench:host's own closed loop keeps 4 096 in flight). Each run prints
 * commands/s, the ack p50/p99, and the journal's commits from the host's stats: how many, the
 * commands in each, the mean commit and the share of the run the journal thread spent committing.
 * A warm-up of the same size runs first on each host, untimed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { closedLoop, unstamped } from './host-closed-loop.mjs'

const { values } = parseArgs({ options: {
  window: { type: 'string', default: '32' },
  commands: { type: 'string', default: '20000' },
  runs: { type: 'string', default: '3' },
  dist: { type: 'string', default: 'dist' },
} })
const window = Number(values.window)
const count = Number(values.commands)
const runs = Number(values.runs)
if (!(window >= 1 && count >= 1_000 && runs >= 1)) {
  console.error('usage: node scripts/host-window.mjs [--window N >= 1] [--commands N >= 1000] [--runs N >= 1] [--dist DIR]')
  process.exit(2)
}
const load = (path) => import(pathToFileURL(resolve(values.dist, path)).href)
const { EngineHost } = await load('src/host/engine-host.js')
const { generateStream } = await load('bench/engine-stream.js')
const { setupCommands, engineCommands } = await load('bench/engine-adapters.js')

const stream = generateStream({ seed: 42, commands: 2 * count, iocSizeMax: 400, tradersPerSide: 50 })
const setup = setupCommands(100)
const all = engineCommands(stream, setup.length + 1, 0.4, 42).map(unstamped)
const warmUp = all.slice(0, count)
const timed = all.slice(count, 2 * count)

const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

/** Acknowledgement latencies (ms) of a closed loop of `window` in flight, and its rate. */
async function timedLoop(host, commands) {
  const latencies = []
  const wrapped = { submit: (command) => {
    const sent = performance.now()
    return host.submit(command).then((outcome) => {
      latencies.push(performance.now() - sent)
      return outcome
    })
  } }
  const started = performance.now()
  await closedLoop(wrapped, commands, window)
  const seconds = (performance.now() - started) / 1000
  return { rate: commands.length / seconds, seconds, latencies: latencies.sort((a, b) => a - b) }
}

console.log(`# the durable host alone, closed loop of ${window} in flight, ${count} commands a run (after as many untimed)`)
for (let run = 1; run <= runs; run++) {
  const dataDir = mkdtempSync(join(tmpdir(), 'predex-host-window-'))
  try {
    const host = await EngineHost.start({ dataDir, snapshotEveryCommands: Number.MAX_SAFE_INTEGER })
    for (const command of setup) await host.submit(unstamped(command))
    await closedLoop(host, warmUp, window)
    const before = host.stats.histogram('commitSeconds')
    const { rate, seconds, latencies } = await timedLoop(host, timed)
    const after = host.stats.histogram('commitSeconds')
    await host.stop()
    const commits = after.count - before.count
    const commitSeconds = after.sum - before.sum
    console.log(`run ${run}: ${Math.round(rate)} commands/s; ack p50 ${percentile(latencies, 0.5).toFixed(2)} ms, ` +
      `p99 ${percentile(latencies, 0.99).toFixed(2)} ms; ${commits} commits, ${(timed.length / commits).toFixed(1)} ` +
      `commands each, ${(commitSeconds / commits * 1000).toFixed(2)} ms each on average, the journal thread ` +
      `committing ${Math.round(100 * commitSeconds / seconds)} % of the run`)
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
