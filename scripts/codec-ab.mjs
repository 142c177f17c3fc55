#!/usr/bin/env node
/**
 * Compares the command codec of two built trees (each a `dist` folder made by scripts/build.mjs,
 * kept inside the repository so that its packages resolve): `node scripts/codec-ab.mjs A B
 * [--pairs 3]`. On the bench stream (bench/engine-stream.ts, 200 k commands, 40 % on No), each
 * tree, in processes of its own and in pairs whose order alternates, encodes every command as the
 * main thread does for the ring (`encodeRequest`) and decodes every record as the engine worker
 * does (`decodeRequest`), five times; the figures are the medians of the last three passes in ns
 * of CPU a command. Prints each pair's figures and the ratios A / B (above 1: B is faster).
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { median, treesAndPairs } from './ab-pairs.mjs'

const PASSES = 5
const load = (dir, path) => import(pathToFileURL(resolve(dir, path)).href)
const cpuNs = () => {
  const used = process.cpuUsage()
  return (used.user + used.system) * 1000
}

async function child(dir) {
  // src/codec/ since issue 32; a tree built before it keeps the codec in src/host/.
  const codecPath = existsSync(resolve(dir, 'src/codec/request-codec.js')) ? 'src/codec/request-codec.js'
    : 'src/host/request-codec.js'
  const { encodeRequest, decodeRequest } = await load(dir, codecPath)
  const { generateStream } = await load(dir, 'bench/engine-stream.js')
  const { setupCommands, engineCommands } = await load(dir, 'bench/engine-adapters.js')
  const stream = generateStream({ seed: 42, commands: 200_000, iocSizeMax: 400, tradersPerSide: 50 })
  const commands = engineCommands(stream, setupCommands(100).length + 1, 0.4, 42)
    .map(({ seq: _seq, timeMs: _timeMs, ...command }) => command)
  const records = commands.map((command, i) => encodeRequest(i + 1, command).slice())
  const encode = []
  const decode = []
  let sink = 0
  for (let pass = 0; pass < PASSES; pass++) {
    let started = cpuNs()
    for (let i = 0; i < commands.length; i++) sink += encodeRequest(i + 1, commands[i]).length
    const encoded = cpuNs() - started
    started = cpuNs()
    for (let i = 0; i < records.length; i++) sink += decodeRequest(records[i]).requestId
    const decoded = cpuNs() - started
    if (pass >= PASSES - 3) {
      encode.push(encoded / commands.length)
      decode.push(decoded / records.length)
    }
  }
  if (sink === 0) throw new Error('nothing encoded')
  process.stdout.write(JSON.stringify({ encode: median(encode), decode: median(decode) }) + '\n')
}

function figuresOf(dir) {
  return JSON.parse(execFileSync(process.execPath, [new URL(import.meta.url).pathname, '--child', dir],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }))
}

const args = process.argv.slice(2)
if (args[0] === '--child') {
  await child(args[1])
} else {
  const { a, b, pairs } = treesAndPairs(args, 'codec-ab.mjs', 3)
  const ratios = { encode: [], decode: [] }
  for (let pair = 1; pair <= pairs; pair++) {
    const [first, second] = pair % 2 === 1 ? [a, b] : [b, a]
    const figures = { [first]: figuresOf(first), [second]: figuresOf(second) }
    for (const side of ['encode', 'decode']) ratios[side].push(figures[a][side] / figures[b][side])
    process.stdout.write(`pair ${pair}: encode A ${Math.round(figures[a].encode)} B ${Math.round(figures[b].encode)} ns, ` +
      `decode A ${Math.round(figures[a].decode)} B ${Math.round(figures[b].decode)} ns\n`)
  }
  process.stdout.write(`median A / B over ${pairs} pairs: encode ${median(ratios.encode).toFixed(3)}, ` +
    `decode ${median(ratios.decode).toFixed(3)}\n`)
}
