/**
 * The external memory watch (issue 27, finding 5): HTTP/2 header values of 64 bytes or more reach
 * JavaScript as external strings in V8's old space, whose bytes do not count toward a collection;
 * measured, 20 000 gRPC calls with 60 000-byte metadata held 1.17 GB of such garbage and no
 * collection came. The watch forces a full collection once external strings have grown by its
 * bound since the last one, at most once a check.
 */
import t from 'tap'
import { connect, createServer } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { ExternalMemoryWatch, externalStringBytes } from '../../src/external-memory-watch.js'

const MB = 2 ** 20

function watchOf(growthBytesMax: number): { watch: ExternalMemoryWatch; set: (bytes: number) => void; collections: () => number } {
  let external = 10 * MB
  let collections = 0
  const watch = new ExternalMemoryWatch({ growthBytesMax, intervalMs: 1_000, externalBytes: () => external,
    collect: () => {
      collections++
      external = 12 * MB // what the collection left
    } })
  return { watch, set: (bytes) => void (external = bytes), collections: () => collections }
}

t.test('collects once external memory grew by the bound, and measures from what is left', (t) => {
  const { watch, set, collections } = watchOf(32 * MB)
  watch.check()
  t.equal(collections(), 0, 'no growth: nothing')
  set(10 * MB + 32 * MB - 1)
  watch.check()
  t.equal(collections(), 0, 'under the bound: nothing')
  set(10 * MB + 32 * MB)
  watch.check()
  t.equal(collections(), 1, 'at the bound: one collection')
  set(12 * MB + 31 * MB)
  watch.check()
  t.equal(collections(), 1, 'measured from the 12 MB it left')
  set(12 * MB + 32 * MB)
  watch.check()
  t.equal(collections(), 2)
  t.end()
})

t.test('a level that falls by itself (V8 collected) lowers the mark', (t) => {
  const { watch, set, collections } = watchOf(32 * MB)
  set(5 * MB)
  watch.check()
  set(5 * MB + 32 * MB)
  watch.check()
  t.equal(collections(), 1)
  t.end()
})

t.test('the real collector runs (V8 flags set at run time when the process has no --expose-gc)', (t) => {
  const watch = new ExternalMemoryWatch({ growthBytesMax: 0, intervalMs: 1_000 })
  t.doesNotThrow(() => watch.check())
  t.end()
})

// The watch counts external strings only: an ArrayBuffer's bytes move V8 toward its own
// collections, and with them counted every burst of ordinary buffers would force a full one.
t.test('what the watch measures: external strings, not ArrayBuffers', async (t) => {
  const before = externalStringBytes()
  const buffer = new ArrayBuffer(32 * MB)
  new Uint8Array(buffer).fill(1)
  t.ok(Math.abs(externalStringBytes() - before) < MB, 'a 32 MB ArrayBuffer: under 1 MB of change')
  const held = await headerValuesReceived(200, 15_000)
  const grownBytes = externalStringBytes() - before
  t.ok(grownBytes >= 200 * 15_000 * 0.8, `200 HTTP/2 header values of 15 000 bytes held: +${(grownBytes / MB).toFixed(1)} MB`)
  t.equal(held.length, 200)
  t.equal(buffer.byteLength, 32 * MB, 'the buffer lived through the measure')
})

/** The values of header `x-key` (`valueBytes` long) of `count` HTTP/2 requests, as the server received them. */
async function headerValuesReceived(count: number, valueBytes: number): Promise<string[]> {
  const values: string[] = []
  const server = createServer()
  server.on('stream', (stream, headers) => {
    values.push(headers['x-key'] as string)
    stream.respond({ ':status': 200 })
    stream.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const client = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  for (let i = 0; i < count; i++) {
    await new Promise<void>((resolve) => {
      const request = client.request({ ':path': '/', 'x-key': String(i).padEnd(valueBytes, 'k') })
      request.resume()
      request.on('end', resolve)
    })
  }
  client.close()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return values
}
