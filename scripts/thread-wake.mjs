// How long one thread takes to wake another on this machine: the floor under every hand-off of a
// durable ack (the ring to the worker, the worker to the journal thread, the answer to the main
// thread). The main thread works for GAP_MS (a busy loop, so its own core stays awake), then
// stores a counter and notifies; the worker, asleep in Atomics.wait (after spinning SPIN_US
// first, if given), stamps when it woke. Prints the wake latency's percentiles.
//
//   node scripts/thread-wake.mjs [GAP_MS=2] [SPIN_US=0]
import { performance } from 'node:perf_hooks'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'

const WAKES = 3_000
/** Int32 slots of the shared buffer: the counter the main thread bumps, the one the worker echoes. */
const ASKED = 0
const WOKEN = 1

const now = () => performance.timeOrigin + performance.now()

/** Busy until `untilMs` (performance.now) or `done()`: the thread keeps its core. */
function spinUntil(untilMs, done = () => false) {
  let spins = 0
  while (performance.now() < untilMs && !done()) spins++
  return spins
}

async function main() {
  const gapMs = Number(process.argv[2] ?? 2)
  const spinUs = Number(process.argv[3] ?? 0)
  const shared = new SharedArrayBuffer(32)
  const counters = new Int32Array(shared, 0, 2)
  const stamps = new Float64Array(shared, 16, 2)
  const worker = new Worker(new URL(import.meta.url), { workerData: { shared, spinUs } })
  await new Promise((resolve) => worker.once('message', resolve))
  const latencies = new Float64Array(WAKES)
  for (let i = 1; i <= WAKES; i++) {
    spinUntil(performance.now() + gapMs)
    stamps[0] = now()
    Atomics.store(counters, ASKED, i)
    Atomics.notify(counters, ASKED)
    spinUntil(Infinity, () => Atomics.load(counters, WOKEN) === i)
    latencies[i - 1] = stamps[1] - stamps[0]
  }
  latencies.sort()
  const at = (p) => latencies[Math.floor(p * (WAKES - 1))].toFixed(3)
  console.log(`gap ${gapMs} ms, spin ${spinUs} us: wake p50 ${at(0.5)} p90 ${at(0.9)} p99 ${at(0.99)} ` +
    `p99.9 ${at(0.999)} ms`)
  await worker.terminate()
}

function sleeper() {
  const counters = new Int32Array(workerData.shared, 0, 2)
  const stamps = new Float64Array(workerData.shared, 16, 2)
  parentPort.postMessage('ready')
  let seen = 0
  for (;;) {
    if (workerData.spinUs > 0) {
      spinUntil(performance.now() + workerData.spinUs / 1000, () => Atomics.load(counters, ASKED) !== seen)
    }
    Atomics.wait(counters, ASKED, seen)
    seen = Atomics.load(counters, ASKED)
    stamps[1] = now()
    Atomics.store(counters, WOKEN, seen)
  }
}

if (isMainThread) await main()
else sleeper()
