// How long one thread takes to wake another on this machine: the floor under every hand-off of a
// durable ack (the ring to the worker, the worker to the journal thread, the answer to the main
// thread). The main thread works for GAP_MS (a busy loop, so its own core stays awake), then
// stores a counter and notifies; the worker, asleep in Atomics.wait (after spinning SPIN_US
// first, if given), stamps when it woke. Prints the wake latency's percentiles.
//
// Then what a wake costs in CPU: the two threads hand a counter back and forth PING_PONGS times,
// each asleep in Atomics.wait while the other runs, and the process's CPU time (user and system,
// from process.cpuUsage) is divided by the wakes: what each hand-off of an order to a sleeping
// thread costs the machine besides its latency (docs/performance.md, "What a wake costs here").
//
//   node scripts/thread-wake.mjs [GAP_MS=2] [SPIN_US=0]
import { performance } from 'node:perf_hooks'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'

const WAKES = 3_000
const PING_PONGS = 20_000
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
  await pingPong()
}

/** CPU per wake: the main thread and a worker wake each other PING_PONGS times. */
async function pingPong() {
  const shared = new SharedArrayBuffer(8)
  const turn = new Int32Array(shared)
  const worker = new Worker(new URL(import.meta.url), { workerData: { pingPong: shared } })
  await new Promise((resolve) => worker.once('message', resolve))
  const cpu = process.cpuUsage()
  const started = performance.now()
  for (let i = 1; i <= PING_PONGS; i++) {
    Atomics.store(turn, 0, 2 * i - 1) // the worker's turn
    Atomics.notify(turn, 0)
    while (Atomics.load(turn, 0) !== 2 * i) Atomics.wait(turn, 0, 2 * i - 1)
  }
  const used = process.cpuUsage(cpu)
  const wallMs = performance.now() - started
  const wakes = 2 * PING_PONGS
  console.log(`ping-pong: ${wakes} wakes, ${(wallMs * 1000 / wakes).toFixed(1)} us each; CPU per wake ` +
    `${((used.user + used.system) / wakes).toFixed(1)} us (system ${(used.system / wakes).toFixed(1)} us)`)
  Atomics.store(turn, 0, -1)
  Atomics.notify(turn, 0)
  await new Promise((resolve) => worker.once('exit', resolve))
}

function ponger() {
  const turn = new Int32Array(workerData.pingPong)
  parentPort.postMessage('ready')
  let seen = 0
  for (;;) {
    Atomics.wait(turn, 0, seen)
    const now = Atomics.load(turn, 0)
    if (now < 0) return
    seen = now + 1
    Atomics.store(turn, 0, seen) // the main thread's turn
    Atomics.notify(turn, 0)
  }
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
else if (workerData.pingPong !== undefined) ponger()
else sleeper()
