#!/usr/bin/env node
/**
 * What the engine's memory of ended orders costs in the JavaScript heap: N orders (1 M by
 * default) each placed and cancelled on the bench market, so their ids stay in the order index
 * as ended orders (ENDED_ORDERS_RETAINED), then a full collection, timed. Run after a build:
 * `node scripts/build.mjs && node --expose-gc scripts/engine-ids-heap.mjs [N]`. Prints heap and
 * ArrayBuffer bytes per retained id, and the collection's pause.
 */
import { performance } from 'node:perf_hooks'
import { Engine } from '../dist/src/engine/engine.js'
import { setupCommands, traderAddress, orderIdOf, YES } from '../dist/bench/engine-adapters.js'

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')
const count = Number(process.argv[2] ?? 1_000_000)
const setup = setupCommands(100)
const engine = new Engine()
for (const command of setup) engine.apply(command)
const timeMs = 1_700_000_000_000
let seq = setup.length + 1
globalThis.gc()
const before = process.memoryUsage()
for (let i = 0; i < count; i++) {
  const trader = i % 100
  const tick = 1 + (i % 40)
  const maker = traderAddress(trader)
  engine.execute({ kind: 'placeOrder', seq: seq++, timeMs, order: { orderId: orderIdOf(i + 1), owner: `key-${trader}`,
    maker, signer: maker, tokenId: YES, side: 'BUY', makerAmountMicros: tick * 50_000, takerAmountMicros: 5_000_000,
    expirationSec: 0, feeRateBps: 0, timeInForce: 'GTC', postOnly: false, clientOrderId: '' } })
  engine.execute({ kind: 'cancelOrder', seq: seq++, timeMs, address: maker, orderId: orderIdOf(i + 1) })
  if ((i & 511) === 511) engine.log.clear()
}
if (engine.orders.ended !== Math.min(count, engine.orders.endedRetained)) throw new Error('every order must end retained')
const started = performance.now()
globalThis.gc()
const pauseMs = performance.now() - started
const after = process.memoryUsage()
const per = (bytes) => Math.round(bytes / count)
console.log(`${count} ended ids retained: ${per(after.heapUsed - before.heapUsed)} B of heap and ` +
  `${per(after.arrayBuffers - before.arrayBuffers)} B of ArrayBuffers each; a full collection took ` +
  `${pauseMs.toFixed(0)} ms (heap ${Math.round(after.heapUsed / 1e6)} MB)`)
