// How long one thread takes to wake another on this machine: the floor under every hand-off of a
// durable ack (the ring to the worker, the worker to the journal thread, the answer to the main
// thread). The main thread works for GAP_MS (a busy loop, so its own core stays awake), then
// stores a counter and notifies; the worker, asleep in Atomics.wait (after spinning SPIN_US
// first, if given), stamps when it woke. Prints the wake latency's percentiles.
//
//   node scripts/thread-wake.mjs [GAP_MS=2] [SPIN_US=0]
import { Worker, isMainThread, workerData, parentPort } from 'node:worker_threads'
const GAP_MS = Number(process.argv[2] ?? 2), N = 3000, SPIN_US = Number(process.argv[3] ?? 0)
if (isMainThread) {
  const sab = new SharedArrayBuffer(64); const a = new Int32Array(sab); const t = new Float64Array(sab, 16, 2)
  const w = new Worker(new URL(import.meta.url), { workerData: { sab, SPIN_US } })
  await new Promise((r) => w.once('message', r))
  const lat = []
  for (let i = 1; i <= N; i++) {
    const until = performance.now() + GAP_MS; while (performance.now() < until) {} // busy gap: main stays on-CPU
    t[0] = performance.timeOrigin + performance.now()
    Atomics.store(a, 0, i); Atomics.notify(a, 0)
    while (Atomics.load(a, 1) !== i) {} // spin for the ack
    lat.push(t[1] - t[0])
  }
  lat.sort((x, y) => x - y)
  const q = (p) => lat[Math.floor(p * (lat.length - 1))].toFixed(3)
  console.log(`gap ${GAP_MS} ms spin ${SPIN_US} us: wake p50 ${q(0.5)} p90 ${q(0.9)} p99 ${q(0.99)} p99.9 ${q(0.999)} ms`)
  w.terminate()
} else {
  const a = new Int32Array(workerData.sab); const t = new Float64Array(workerData.sab, 16, 2)
  parentPort.postMessage('ready')
  let seen = 0
  for (;;) {
    if (workerData.SPIN_US > 0) { const until = performance.now() + workerData.SPIN_US / 1000; while (Atomics.load(a, 0) === seen && performance.now() < until) {} }
    Atomics.wait(a, 0, seen)
    seen = Atomics.load(a, 0)
    t[1] = performance.timeOrigin + performance.now()
    Atomics.store(a, 1, seen)
  }
}
