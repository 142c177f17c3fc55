/**
 * The SPSC ring: empty and full, wrap-around at the end of the buffer, and a two-thread stress
 * test in which a worker writes records of varied length (a seeded stream) through a small ring
 * while this thread reads them: every record must arrive once, in order, byte for byte.
 */
import t from 'tap'
import { Worker } from 'node:worker_threads'
import { Ring } from '../../../src/ring/ring.js'
import { recordOf } from './ring-records.js'

t.test('empty, write, read', (t) => {
  const ring = new Ring(Ring.allocate(64))
  t.equal(ring.read(), null, 'an empty ring reads null')
  t.equal(ring.tryWrite(Uint8Array.of(1, 2, 3)), true)
  t.equal(ring.usedBytes, 8, '4 bytes of length + 3 bytes padded to 4')
  t.same([...ring.read()!], [1, 2, 3])
  t.equal(ring.read(), null)
  t.equal(ring.usedBytes, 0)
  t.equal(ring.tryWrite(new Uint8Array(0)), true, 'an empty record is a record')
  t.same(ring.read(), new Uint8Array(0))
  t.end()
})

t.test('full: a write that does not fit is refused at once, and fits after a read', (t) => {
  const ring = new Ring(Ring.allocate(64))
  // Records of 12 payload bytes take 16 bytes: four fill 64 exactly.
  for (let i = 0; i < 4; i++) t.equal(ring.tryWrite(new Uint8Array(12).fill(i)), true, `record ${i}`)
  t.equal(ring.usedBytes, 64)
  t.equal(ring.tryWrite(new Uint8Array(0)), false, 'even an empty record needs 4 bytes')
  t.same([...ring.read()!], new Array(12).fill(0))
  t.equal(ring.tryWrite(new Uint8Array(13)), false, '13 bytes need 20, only 16 are free')
  t.equal(ring.tryWrite(new Uint8Array(12).fill(9)), true)
  t.same([1, 2, 3, 9].map(() => ring.read()![0]), [1, 2, 3, 9])
  t.throws(() => ring.tryWrite(new Uint8Array(61)), 'a record larger than the ring is a programming error')
  t.end()
})

t.test('wrap-around: records split across the end arrive intact', (t) => {
  const ring = new Ring(Ring.allocate(64))
  let written = 0
  let read = 0
  // Odd lengths walk the write position through every offset of the buffer many times.
  for (let round = 0; round < 500; round++) {
    while (ring.tryWrite(recordOf(written, 1 + (written % 29)))) written++
    const record = ring.read()!
    if (!t.same(record, recordOf(read, 1 + (read % 29)), `record ${read}`)) break
    read++
  }
  while (read < written) {
    t.same(ring.read(), recordOf(read, 1 + (read % 29)))
    read++
  }
  t.equal(ring.read(), null)
  t.ok(written > 500, `${written} records through a 64-byte ring`)
  t.end()
})

t.test('read-ahead: runs of records looked at before they are dropped, across the end, one given back', (t) => {
  const ring = new Ring(Ring.allocate(64))
  let written = 0
  let read = 0
  let differing = 0
  for (let round = 0; round < 500; round++) {
    while (ring.tryWrite(recordOf(written, 1 + (written % 23)))) written++
    // A run of one to four records, as the engine worker decodes them before applying them.
    const run: Uint8Array[] = []
    for (let i = 0; i < 1 + (round % 4); i++) {
      const record = ring.peekAhead()
      if (record === null) break
      run.push(Uint8Array.from(record))
    }
    if (round % 5 === 0 && run.length > 1) {
      ring.unpeekAhead()
      const again = ring.peekAhead()!
      if (!t.same([...again], [...run.at(-1)!], 'the record given back comes again')) break
    }
    t.equal(ring.peek() === null, run.length === 0, 'peek sees the oldest of the run')
    for (const record of run) {
      const expected = recordOf(read, 1 + (read % 23))
      if (record.length !== expected.length || record.some((byte, i) => byte !== expected[i])) differing++
      ring.advance()
      read++
    }
  }
  t.equal(differing, 0, 'every record read ahead is intact, in order')
  while (read < written) {
    t.same(ring.read(), recordOf(read, 1 + (read % 23)))
    read++
  }
  t.equal(ring.peekAhead(), null, 'nothing left to read ahead')
  t.equal(ring.usedBytes, 0, 'every record dropped')
  t.ok(written > 500, `${written} records through a 64-byte ring`)
  t.end()
})

t.test('two threads: every record arrives once, in order, intact', async (t) => {
  const count = 200_000
  const seed = 1234
  t.comment(`seed ${seed}`)
  const { ring, producer } = startProducer(4096, { count, seed, waitMs: 50, pauseMaxMs: 0 })
  const failed = new Promise<never>((_, reject) => producer.once('error', reject))
  let next = 0
  const started = Date.now()
  while (next < count) {
    const record = ring.read()
    if (record === null) {
      await Promise.race([ring.waitAsync(100), failed])
      if (Date.now() - started > 60_000) break
      continue
    }
    const expected = recordOf(next ^ seed, next % 300)
    if (!equalBytes(record, expected)) {
      t.fail(`record ${next} differs`)
      break
    }
    next++
  }
  t.equal(next, count, `${count} records arrived in order and intact`)
  t.equal(ring.read(), null, 'and nothing more')
  await producer.terminate()
})

for (const wakeEvery of [0, 7]) {
  const how = wakeEvery === 0 ? 'each write wakes' : `one wake-up per run of ${wakeEvery} writes`
  t.test(`wake-ups (${how}): a sleeping side is always woken, never left to its timeout`, async (t) => {
    // Both sides wait with a 20 s timeout: a wake-up lost to a race between a sleeper's flag and
    // the other side's publish would show as a timed-out wait (and a slow test), never as lost data.
    const count = 3_000
    const seed = 99
    t.comment(`seed ${seed}`)
    const { ring, producer } = startProducer(1024, { count, seed, waitMs: 20_000, pauseMaxMs: 0.3, wakeEvery })
    const producerDone = new Promise<{ timedOut: number; woken: number }>((resolve, reject) => {
      producer.once('message', resolve)
      producer.once('error', reject)
    })
    const waits: Record<string, number> = { 'not-empty': 0, woken: 0, 'timed-out': 0 }
    let next = 0
    while (next < count) {
      const record = ring.read()
      if (record === null) {
        waits[await ring.waitAsync(20_000)]!++
        continue
      }
      if (!equalBytes(record, recordOf(next ^ seed, next % 300))) break
      next++
      // Now and then the consumer dawdles, so the producer fills the ring and sleeps for space.
      if (next % 500 === 0) await new Promise((resolve) => setTimeout(resolve, 30))
    }
    const { timedOut, woken } = await producerDone
    t.equal(next, count, `${count} records arrived in order and intact`)
    t.equal(waits['timed-out'], 0, `the consumer was never left asleep (${JSON.stringify(waits)})`)
    t.ok(waits.woken! > 0, 'the consumer did sleep and was woken')
    t.equal(timedOut, 0, 'the producer was never left asleep waiting for space')
    t.ok(woken > 0, `the producer did sleep for space and was woken (${woken} times)`)
    await producer.terminate()
  })
}

/** A ring of `capacity` bytes and a thread writing into it (ring-producer.ts, told `options`). */
function startProducer(capacity: number, options: { count: number; seed: number; waitMs: number;
  pauseMaxMs: number; wakeEvery?: number }): { ring: Ring; producer: Worker } {
  const buffer = Ring.allocate(capacity)
  const here = new URL(import.meta.url)
  const producer = new Worker(new URL(`./ring-producer.${here.pathname.endsWith('.ts') ? 'ts' : 'js'}`, here),
    { workerData: { buffer, ...options } })
  return { ring: new Ring(buffer), producer }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
