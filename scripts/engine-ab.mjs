#!/usr/bin/env node
/**
 * Compares the engine alone of two built trees (each a `dist` folder made by scripts/build.mjs,
 * for example one copied aside before a change): `node scripts/engine-ab.mjs A B [--pairs 5]
 * [--no-share 0.4] [--flags-a "..."] [--flags-b "..."]` (node flags for one side's processes). Each tree runs in processes of its own (sharing one would share V8's
 * inline caches and type feedback between them, which misleads), in pairs whose order alternates;
 * each process applies the bench stream (bench/engine-stream.ts: 200 k commands, seed 42) to a
 * fresh engine eight times and reports the median CPU time rate of the last six. Prints each
 * pair's rates and ratio B / A, then the median ratio. CPU time, not wall time: this machine is
 * shared.
 */
import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { comparePairs, median } from './ab-pairs.mjs'

const PASSES = 8
const WARM_PASSES = 2

async function child(dir, noShare) {
  const load = (path) => import(pathToFileURL(resolve(dir, path)).href)
  const { Engine } = await load('src/engine/engine.js')
  const { generateStream } = await load('bench/engine-stream.js')
  const { setupCommands, engineCommands } = await load('bench/engine-adapters.js')
  const stream = generateStream({ seed: 42, commands: 200_000, iocSizeMax: 400, tradersPerSide: 50 })
  const setup = setupCommands(100)
  const commands = engineCommands(stream, setup.length + 1, noShare, 42)
  const rates = []
  for (let pass = 0; pass < PASSES; pass++) {
    const engine = new Engine()
    // As bench:engine and the server's worker run it: no `balance` events (a tree before that
    // switch ignores the field and writes them).
    engine.balanceEvents = false
    for (const command of setup) engine.apply(command)
    const started = process.cpuUsage()
    for (let i = 0; i < commands.length; i++) {
      engine.execute(commands[i])
      // The events of 1 024 commands are a batch, as the host's are of a group commit.
      if ((i & 1023) === 1023) engine.log.clear()
    }
    const used = process.cpuUsage(started)
    if (pass >= WARM_PASSES) rates.push(commands.length / ((used.user + used.system) / 1e6))
  }
  process.stdout.write(`${median(rates)}\n`)
}

function rateOf(dir, noShare, nodeFlags) {
  const out = execFileSync(process.execPath, [...nodeFlags, new URL(import.meta.url).pathname, '--child', dir, String(noShare)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  return Number(out.trim())
}

function option(args, name, fallback) {
  const at = args.indexOf(name)
  return at < 0 ? fallback : Number(args[at + 1])
}

/** Node flags for one side's processes: `--flags-b "--max-inlined-bytecode-size=1000"`. */
function nodeFlags(args, name) {
  const at = args.indexOf(name)
  return at < 0 ? [] : args[at + 1].split(' ').filter((flag) => flag !== '')
}

const args = process.argv.slice(2)
if (args[0] === '--child') {
  await child(args[1], Number(args[2]))
} else {
  const [a, b] = args.filter((arg, i) => !arg.startsWith('--') && !args[i - 1]?.startsWith('--'))
  if (a === undefined || b === undefined) {
    process.stderr.write('usage: node scripts/engine-ab.mjs <built tree A> <built tree B> '
      + '[--pairs N] [--no-share P] [--flags-a "NODE FLAGS"] [--flags-b "NODE FLAGS"]\n')
    process.exit(2)
  }
  const pairs = option(args, '--pairs', 5)
  const noShare = option(args, '--no-share', 0.4)
  const flagsA = nodeFlags(args, '--flags-a')
  const flagsB = nodeFlags(args, '--flags-b')
  comparePairs(pairs, () => rateOf(a, noShare, flagsA), () => rateOf(b, noShare, flagsB))
}
