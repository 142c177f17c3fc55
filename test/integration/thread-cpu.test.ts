/**
 * CPU by thread (src/thread-cpu.ts): each thread's kernel id, its CPU time from /proc, and the
 * roles' counters, which add up to the process and never go down, also once a thread has ended.
 */
import t from 'tap'
import { Worker } from 'node:worker_threads'
import { ownThreadId, processCpuSeconds, ThreadCpu, threadCpuSeconds } from '../../src/thread-cpu.js'
import { THREADS_NAMED_MAX } from '../../src/limits.js'

const linux = process.platform === 'linux'

/** A thread that spins for `ms` of CPU, tells its id, then waits for a message to end. */
function spinningThread(ms: number): Promise<{ worker: Worker; tid: number }> {
  const source = `
    const { parentPort } = require('node:worker_threads')
    const { readlinkSync } = require('node:fs')
    const start = process.hrtime.bigint()
    let sink = 0
    while (Number(process.hrtime.bigint() - start) / 1e6 < ${ms}) sink += Math.sqrt(sink + 1)
    parentPort.postMessage(Number(readlinkSync('/proc/thread-self').split('/').pop()))
    parentPort.once('message', () => process.exit(0))`
  const worker = new Worker(source, { eval: true })
  return new Promise((resolve) => worker.once('message', (tid: number) => resolve({ worker, tid })))
}

t.test('each thread has its own id, and its CPU time is read from /proc', { skip: !linux && 'Linux only' },
  async (t) => {
    const main = ownThreadId()
    t.equal(main, process.pid, 'the main thread\'s id is the process id')
    const { worker, tid } = await spinningThread(200)
    t.not(tid, main, 'a worker thread has an id of its own')
    const seconds = threadCpuSeconds(tid)
    // Wall time spun, so on a busy machine it got less CPU: at least some, at most the process's.
    t.ok(seconds !== null && seconds > 0, `it spent CPU: ${seconds} s`)
    const ended = new Promise((resolve) => worker.once('exit', resolve))
    worker.postMessage('end')
    await ended
    t.equal(threadCpuSeconds(tid), null, 'an ended thread has no /proc entry')
  })

t.test('roles add up to the process, and a counter never goes down', { skip: !linux && 'Linux only' },
  async (t) => {
    const threads = new ThreadCpu() // names this thread main
    const { worker, tid } = await spinningThread(200)
    threads.add('verify', tid)
    const first = threads.read()
    t.same([...first.keys()].sort(), ['main', 'other', 'verify'])
    const sum = [...first.values()].reduce((a, b) => a + b, 0)
    t.ok(Math.abs(sum - processCpuSeconds()) < 0.05, `they add up: ${sum.toFixed(3)} s`)
    const verify = first.get('verify')!
    const ended = new Promise((resolve) => worker.once('exit', resolve))
    worker.postMessage('end')
    await ended
    const second = threads.read()
    t.ok(second.get('verify')! >= verify, 'an ended thread keeps what it spent')
    // A reading that would go down (the process total read before the threads', ticks against µs).
    const third = threads.read(0)
    t.ok(third.get('other')! >= second.get('other')!, '"other" never goes down')
  })

t.test('an unknown id is ignored, and at most THREADS_NAMED_MAX threads are named', async (t) => {
  const threads = new ThreadCpu()
  const before = [...threads.read(1_000).keys()]
  threads.add('engine', 0)
  t.same([...threads.read(1_000).keys()], before, 'id 0 (no /proc) names nothing')
  for (let tid = 1; tid <= THREADS_NAMED_MAX; tid++) threads.add('verify', 1_000_000_000 + tid)
  // Those ids do not exist: each reads as 0 s.
  t.equal(threads.read(1_000).get('verify'), 0)
  if (linux) {
    threads.add('journal', ownThreadId() + 1)
    t.notOk(threads.read(1_000).has('journal'), 'past the bound a thread is not named: it counts under "other"')
  }
})
