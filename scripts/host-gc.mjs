#!/usr/bin/env node
/**
 * The engine host's main thread and its collector: `node --expose-gc scripts/host-gc.mjs [TREE]
 * [--pretenuring]`, TREE a built `dist` folder inside the repository (default `dist`). A durable
 * host takes the bench stream (bench/engine-stream.ts, 40 % on No) in a closed loop of 4 096 in
 * flight: 100 000 commands untimed, a full collection, then 200 000 measured. It prints the
 * rate, how much the main thread's heap grew a command (what the young collector promoted and
 * nothing has freed yet: objects that died old), the young and full collections' pauses on the
 * main thread a command (perf_hooks' gc entries), and the whole process's CPU a command.
 *
 * It runs as the server does (src/collector.ts: no allocation-site pretenuring) where the tree
 * has that setting, unless `--pretenuring`. docs/performance.md, "A Map's old tables, and objects
 * tenured too soon", has what it measured: 650-820 bytes and 1.0-1.3 µs a command before, 50
 * bytes and 0.25 µs after.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PerformanceObserver, constants, performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { closedLoop, unstamped } from './host-closed-loop.mjs'

const WARM_UP_COMMANDS = 100_000
const MEASURED_COMMANDS = 200_000

const args = process.argv.slice(2)
const tree = args.find((arg) => !arg.startsWith('--')) ?? 'dist'
const load = (path) => import(pathToFileURL(resolve(tree, path)).href)
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')
if (!args.includes('--pretenuring') && existsSync(resolve(tree, 'src/collector.js'))) {
  (await load('src/collector.js')).keepShortLivedObjectsYoung()
}
const { EngineHost } = await load('src/host/engine-host.js')
const { generateStream } = await load('bench/engine-stream.js')
const { engineCommands, setupCommands } = await load('bench/engine-adapters.js')

const setup = setupCommands(100)
const commands = engineCommands(generateStream({ seed: 1, commands: WARM_UP_COMMANDS + MEASURED_COMMANDS,
  iocSizeMax: 400, tradersPerSide: 50 }), setup.length + 1, 0.4, 1).map(unstamped)

const dataDir = mkdtempSync(join(tmpdir(), 'predex-host-gc-'))
try {
  const host = await EngineHost.start({ dataDir, snapshotEveryCommands: Number.MAX_SAFE_INTEGER })
  for (const command of setup) await host.submit(unstamped(command))
  await closedLoop(host, commands.slice(0, WARM_UP_COMMANDS))
  globalThis.gc()
  const pauses = { young: 0, full: 0 }
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR) pauses.young += entry.duration
      else if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) pauses.full += entry.duration
    }
  })
  observer.observe({ entryTypes: ['gc'] })
  const measured = commands.slice(WARM_UP_COMMANDS)
  const heapBefore = process.memoryUsage().heapUsed
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  await closedLoop(host, measured)
  const seconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  const heapGrowth = process.memoryUsage().heapUsed - heapBefore
  await sleep(50) // the last gc entries
  observer.disconnect()
  await host.stop()
  const perCommand = (value) => (value / measured.length).toFixed(3)
  console.log(`${tree}: ${Math.round(measured.length / seconds / 1000)} k commands/s; main thread: heap grew ` +
    `${Math.round(heapGrowth / measured.length)} bytes a command, young collections ${perCommand(pauses.young * 1000)} ` +
    `µs a command, full ${perCommand(pauses.full * 1000)} µs; process CPU ` +
    `${perCommand(cpu.user + cpu.system)} µs a command`)
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
