/**
 * Per-connection backpressure on the REST face (issue 14, finding 3): a client that pipelines
 * requests and never reads its replies made the server buffer every reply in memory (+5.5 to
 * 7.7 MB/s per connection) and was never closed. Now a reply the socket cannot take whole is
 * finished as the socket drains; while it waits uWS reads nothing more from that connection, and
 * past its small stash of unread input, or REST_WRITE_STALL_MS, the connection is closed. A probe
 * on another connection keeps being answered meanwhile.
 */
import t from 'tap'
import { connect } from 'node:net'
import { startServer } from '../rest-harness.js'

/** Bounds with room for a loaded 2-core machine; the fix closes the flood in well under a second. */
const CLOSED_WITHIN_MS = 15_000
const PROBE_MS_MAX = 3_000

t.test('a client that pipelines requests and never reads is closed; others are answered', async (t) => {
  const server = await startServer()
  t.teardown(() => server.stop())
  const socket = connect(Number(new URL(server.base).port), '127.0.0.1')
  socket.pause() // never reads a reply
  socket.on('error', () => undefined) // the server's close resets our writes
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())))
  await new Promise((resolve) => socket.once('connect', resolve))
  const startedMs = performance.now()
  const chunk = 'GET /markets HTTP/1.1\r\nHost: predex\r\n\r\n'.repeat(200)
  let probeMsMax = 0
  let requests = 0
  while (!socket.destroyed && performance.now() - startedMs < CLOSED_WITHIN_MS) {
    if (!socket.write(chunk)) {
      await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed,
        new Promise((resolve) => setTimeout(resolve, 200))])
    }
    requests += 200
    if (requests % 10_000 === 0) {
      const probeStarted = performance.now()
      const probe = await fetch(`${server.base}/time`)
      await probe.text()
      probeMsMax = Math.max(probeMsMax, performance.now() - probeStarted)
    }
  }
  t.ok(socket.destroyed, `the server closed the connection (after ${requests} requests written)`)
  if (socket.destroyed) t.ok((await closed) - startedMs < CLOSED_WITHIN_MS, 'within the bound')
  t.ok(probeMsMax < PROBE_MS_MAX, `a probe on another connection was answered in at most ${probeMsMax.toFixed(0)} ms`)
  socket.destroy()
  const after = await fetch(`${server.base}/health`)
  t.equal(after.status, 200, 'the server is alive and answering')
})
