#!/usr/bin/env node
/**
 * Compares the durable host of two built trees (each a `dist` folder made by scripts/build.mjs,
 * kept inside the repository so that its packages resolve): `node scripts/host-ab.mjs A B
 * [--pairs 5]`. Each tree runs in processes of its own, in pairs whose order alternates: a host
 * (durability sync, a fresh data directory) takes the bench stream (bench/engine-stream.ts, 200 k
 * commands, 40 % on No) in a closed loop of 4 096 in flight, as bench:host's sync run does, three
 * times; the first pass warms the threads' compilers up, and the rate is the median over the
 * last two of the process's CPU time per command (every thread: main, engine worker, journal
 * thread, V8's and libuv's), as commands per CPU-second. CPU time, not wall time: on two shared
 * cores a neighbour's burst moves the wall clock far more than the work done. Each child also
 * prints its CPU a command by thread (main, engine, journal, other), medians of the same passes.
 * A tree with src/collector.js runs with its setting, as its server would.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { comparePairs, median, treesAndPairs } from './ab-pairs.mjs'
import { closedLoop, unstamped } from './host-closed-loop.mjs'

const PASSES = 3
const load = (dir, path) => import(pathToFileURL(resolve(dir, path)).href)

async function child(dir) {
  // Each tree's process as its server would run (src/collector.ts), where the tree has the setting.
  if (existsSync(resolve(dir, 'src/collector.js'))) (await load(dir, 'src/collector.js')).keepShortLivedObjectsYoung()
  const { EngineHost } = await load(dir, 'src/host/engine-host.js')
  const { generateStream } = await load(dir, 'bench/engine-stream.js')
  const { setupCommands, engineCommands } = await load(dir, 'bench/engine-adapters.js')
  const stream = generateStream({ seed: 42, commands: 200_000, iocSizeMax: 400, tradersPerSide: 50 })
  const setup = setupCommands(100)
  const commands = engineCommands(stream, setup.length + 1, 0.4, 42).map(unstamped)
  const { ThreadCpu } = await load(dir, 'src/thread-cpu.js')
  const rates = []
  const byThread = {}
  for (let pass = 0; pass < PASSES; pass++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'predex-host-ab-'))
    try {
      const host = await EngineHost.start({ dataDir, snapshotEveryCommands: Number.MAX_SAFE_INTEGER })
      for (const command of setup) await host.submit(unstamped(command))
      const threads = new ThreadCpu()
      for (const { role, tid } of host.stats.threads()) threads.add(role, tid)
      const before = threads.read()
      const started = process.cpuUsage()
      await closedLoop(host, commands)
      const used = process.cpuUsage(started)
      const after = threads.read()
      await host.stop()
      if (pass === 0) continue
      rates.push(commands.length / ((used.user + used.system) / 1e6))
      for (const [role, seconds] of after) {
        byThread[role] = [...(byThread[role] ?? []), (seconds - (before.get(role) ?? 0)) * 1e6 / commands.length]
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
  // The CPU a command by thread goes to stderr (the parent reads the rate from stdout).
  process.stderr.write(`  µs a command by thread: ${Object.entries(byThread).map(([role, us]) =>
    `${role} ${median(us).toFixed(2)}`).join(', ')}\n`)
  process.stdout.write(`${median(rates)}\n`)
}

function rateOf(dir) {
  const out = execFileSync(process.execPath, [new URL(import.meta.url).pathname, '--child', dir],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  return Number(out.trim())
}

const args = process.argv.slice(2)
if (args[0] === '--child') {
  await child(args[1])
} else {
  const { a, b, pairs } = treesAndPairs(args, 'host-ab.mjs', 5)
  comparePairs(pairs, () => rateOf(a), () => rateOf(b))
}
