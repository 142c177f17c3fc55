#!/usr/bin/env node
/**
 * The slowest adds to the engine's id table (src/engine/id-table.ts) as it grows to N ids (4.2 M
 * by default, past the doubling at 4 Mi): `node scripts/build.mjs && node scripts/id-table-stall.mjs
 * [N]`. Prints each add slower than 5 ms, then the worst. The ids are order-id-like strings made
 * beforehand, so that the adds are timed alone; a collector pause can still land in an add.
 */
import { performance } from 'node:perf_hooks'
import { IdTable } from '../dist/src/engine/id-table.js'

const count = Number(process.argv[2] ?? 4_200_000)
const ids = Array.from({ length: count }, (_, i) => '0x' + i.toString(16).padStart(64, '0'))
const table = new IdTable(1)
let worstMs = 0
let worstAt = 0
for (let i = 0; i < count; i++) {
  const started = performance.now()
  table.add(ids[i], i)
  const ms = performance.now() - started
  if (ms > 5) console.log(`add ${i}: ${ms.toFixed(1)} ms`)
  if (ms > worstMs) {
    worstMs = ms
    worstAt = i
  }
}
console.log(`worst add: ${worstMs.toFixed(1)} ms, at ${worstAt} ids (of ${count})`)
