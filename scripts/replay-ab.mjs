#!/usr/bin/env node
/**
 * Compares the replay of two built trees (each a `dist` folder made by scripts/build.mjs, kept
 * inside the repository so that its packages resolve): `node scripts/replay-ab.mjs A B [--pairs 3]`.
 * A journal of the bench stream (bench/engine-stream.ts: 200 k commands, 40 % on No) is written
 * once by tree A into a temporary directory; then each tree recovers it in processes of its own,
 * in pairs whose order alternates, four times per process, and reports the median CPU time rate
 * of the last three (the first pays for compiling). Prints each pair's rates and ratio B / A, then
 * the median ratio. It is recovery alone (the journal read, decoded and applied without events),
 * what a restart without a snapshot does.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { performance } from 'node:perf_hooks'
import { comparePairs, median, treesAndPairs } from './ab-pairs.mjs'
import { unstamped } from './host-closed-loop.mjs'

const PASSES = 4
const load = (dir, path) => import(pathToFileURL(resolve(dir, path)).href)

async function writeJournal(dir, journalDir) {
  const { EngineHost } = await load(dir, 'src/host/engine-host.js')
  const { generateStream } = await load(dir, 'bench/engine-stream.js')
  const { setupCommands, engineCommands } = await load(dir, 'bench/engine-adapters.js')
  const stream = generateStream({ seed: 42, commands: 200_000, iocSizeMax: 400, tradersPerSide: 50 })
  const setup = setupCommands(100)
  const host = await EngineHost.start({ dataDir: journalDir, snapshotEveryCommands: Number.MAX_SAFE_INTEGER })
  for (const command of setup) await host.submit(unstamped(command))
  const pending = []
  for (const command of engineCommands(stream, setup.length + 1, 0.4, 42)) {
    pending.push(host.submit(unstamped(command)))
    if (pending.length >= 2_000) await Promise.all(pending.splice(0))
  }
  await Promise.all(pending)
  await host.stop()
}

async function child(dir, journalDir) {
  const { Journal } = await load(dir, 'src/journal/journal.js')
  const { recover } = await load(dir, 'src/journal/recovery.js')
  const rates = []
  for (let pass = 0; pass < PASSES; pass++) {
    const journal = Journal.open({ path: journalDir, durability: 'sync', readOnly: true })
    const started = process.cpuUsage()
    const recovery = recover(journal, 1, () => performance.now())
    const used = process.cpuUsage(started)
    await journal.close()
    if (pass > 0) rates.push(recovery.replayed / ((used.user + used.system) / 1e6))
  }
  process.stdout.write(`${median(rates)}\n`)
}

function rateOf(dir, journalDir) {
  const out = execFileSync(process.execPath, [new URL(import.meta.url).pathname, '--child', dir, journalDir],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  return Number(out.trim())
}

const args = process.argv.slice(2)
if (args[0] === '--child') {
  await child(args[1], args[2])
} else {
  const { a, b, pairs } = treesAndPairs(args, 'replay-ab.mjs', 3)
  const journalDir = mkdtempSync(join(tmpdir(), 'predex-replay-ab-'))
  try {
    await writeJournal(a, journalDir)
    comparePairs(pairs, () => rateOf(a, journalDir), () => rateOf(b, journalDir))
  } finally {
    rmSync(journalDir, { recursive: true, force: true })
  }
}
