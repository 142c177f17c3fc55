/**
 * Batch records (src/journal/batch-record.ts): what the writer seals reads back command for
 * command, bytes equal; the writer starts over after each seal; any truncation or flipped bit
 * is seen as damage, never read as other commands.
 */
import t from 'tap'
import { BatchRecordWriter, batchCommandsOf, batchCountOf } from '../../../src/journal/batch-record.js'
import { ByteWriter } from '../../../src/stdx/bytes.js'
import { mulberry32 } from '../../../bench/engine-stream.js'

const SEED = Number(process.env.BATCH_SEED ?? Math.floor(Math.random() * 2 ** 31))
t.comment(`seed ${SEED} (BATCH_SEED replays it)`)

const next = mulberry32(SEED)
/** Command bytes of lengths either side of the one-byte length prefix's limit (127). */
const commandBytes = (): Uint8Array => Uint8Array.from({ length: 1 + Math.floor(next() * 300) }, () => next() * 256)

/** A stamped command as the journal has always kept one (command-codec): seq, time, the command's bytes. */
function stampedHex(seq: number, timeMs: number, bytes: Uint8Array): string {
  const w = new ByteWriter(512)
  w.uint(seq)
  w.uint(timeMs)
  w.raw(bytes)
  return Buffer.from(w.bytes()).toString('hex')
}

t.test('a sealed batch reads back as the stamped commands it was given', async (t) => {
  const writer = new BatchRecordWriter()
  let seq = 1 + Math.floor(next() * 2 ** 40)
  for (const count of [1, 2, 7, 128, 1000]) {
    const stamped: string[] = []
    for (let i = 0; i < count; i++, seq++) {
      const bytes = commandBytes()
      const timeMs = 1_700_000_000_000 + Math.floor(next() * 1e9)
      writer.add(seq, timeMs, bytes)
      stamped.push(stampedHex(seq, timeMs, bytes))
    }
    t.equal(writer.count, count)
    const record = writer.seal()
    t.equal(writer.count, 0, 'the writer starts over')
    t.equal(batchCountOf(record), count)
    const read = batchCommandsOf(record)
    t.same(read?.map((c) => Buffer.from(c).toString('hex')), stamped, `${count} commands`)
  }
})

t.test('a damaged record is seen as damaged', async (t) => {
  const writer = new BatchRecordWriter()
  for (let i = 0; i < 20; i++) writer.add(100 + i, 1_700_000_000_000, commandBytes())
  const record = writer.seal()
  for (let cut = 0; cut < record.length; cut++) {
    if (batchCommandsOf(record.subarray(0, cut)) !== null) t.fail(`cut to ${cut} bytes read as sound`)
  }
  for (let i = 0; i < 200; i++) {
    const flipped = Buffer.from(record)
    flipped[Math.floor(next() * flipped.length)]! ^= 1 << Math.floor(next() * 8)
    if (batchCommandsOf(flipped) !== null) t.fail('a flipped bit read as sound')
  }
  t.same(batchCommandsOf(Buffer.concat([record, Buffer.of(0)])), null, 'trailing bytes are damage')
  t.pass('every cut and flip refused')
})

t.test('fits counts the commands decoded and not yet added, and a record within the bound never passes it', (t) => {
  const max = 1_000
  const writer = new BatchRecordWriter()
  t.ok(writer.fits(5_000, max), 'an empty record takes any one command')
  t.notOk(writer.fits(5_000, max, 1, 10), 'not after another decoded before it')
  t.ok(writer.fits(100, max, 3, 300), 'four small ones fit')
  t.notOk(writer.fits(100, max, 8, 800), 'the pending bytes count')
  // Commands taken as the worker takes them: decoded in runs, each checked against the pending
  // ones, then added; the sealed record stays within the bound.
  for (let round = 0; round < 50; round++) {
    let pending = 0
    let pendingBytes = 0
    const sizes: number[] = []
    for (;;) {
      const size = 1 + Math.floor(next() * 120)
      if (!writer.fits(size, max, pending, pendingBytes)) break
      sizes.push(size)
      pending++
      pendingBytes += size
    }
    for (const size of sizes) writer.add(round * 1_000 + writer.count + 1, 1_700_000_000_000, new Uint8Array(size))
    const record = writer.seal()
    if (record.length > max) t.fail(`round ${round}: a record of ${record.length} bytes, over ${max}`)
  }
  t.pass('every record within the bound')
  t.end()
})
