/**
 * Calls the client resets are counted as CANCELLED in predex_grpc_calls_total (issue 27, finding
 * 10: they were counted as UNIMPLEMENTED). A reset that comes before the request message made
 * grpc-js's unary handler answer "no request message" (UNIMPLEMENTED) to a stream already gone:
 * nothing was sent, yet the meter counted what the handler tried to send.
 */
import t from 'tap'
import { connect as connectHttp2, constants as http2 } from 'node:http2'
import { startServer } from '../support/rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())
const METHOD = '/predex.v1.MarketDataService/ListMarkets'
const RESETS = 200

/** predex_grpc_calls_total of `method` by code, from /metrics. */
async function callsByCode(method: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${server.base}/metrics`)).text()
  const counts = new Map<string, number>()
  for (const line of text.split('\n')) {
    const match = /^predex_grpc_calls_total\{(.*)\} (\d+)/.exec(line)
    if (match === null || !match[1]!.includes(`method="${method}"`)) continue
    counts.set(/code="([A-Z_]+)"/.exec(match[1]!)![1]!, Number(match[2]))
  }
  return counts
}

/** `count` calls of METHOD on one connection, each reset by the client right after its headers (and `body`). */
async function resetCalls(count: number, body: Buffer | null): Promise<void> {
  const session = connectHttp2(`http://127.0.0.1:${server.predex.grpcPort}`)
  session.on('error', () => undefined)
  const closed: Promise<void>[] = []
  for (let i = 0; i < count; i++) {
    const stream = session.request({ ':method': 'POST', ':path': METHOD, 'content-type': 'application/grpc',
      te: 'trailers' })
    stream.on('error', () => undefined)
    closed.push(new Promise((resolve) => stream.on('close', resolve)))
    if (body !== null) stream.write(body)
    stream.close(http2.NGHTTP2_CANCEL)
  }
  await Promise.all(closed)
  session.destroy()
}

t.test('calls reset by the client are CANCELLED, never UNIMPLEMENTED', async (t) => {
  const before = await callsByCode(METHOD)
  await resetCalls(RESETS, null)
  // An empty ListMarkets request: five bytes of gRPC framing, no field.
  await resetCalls(RESETS, Buffer.from([0, 0, 0, 0, 0]))
  await new Promise((resolve) => setTimeout(resolve, 200))
  const after = await callsByCode(METHOD)
  const grew = (code: string): number => (after.get(code) ?? 0) - (before.get(code) ?? 0)
  t.comment(JSON.stringify(Object.fromEntries(after)))
  t.equal(grew('UNIMPLEMENTED'), 0, 'no reset call counted UNIMPLEMENTED')
  t.ok(grew('CANCELLED') > 0, `${grew('CANCELLED')} counted CANCELLED`)
  const counted = [...after.keys()].reduce((sum, code) => sum + grew(code), 0)
  t.ok(counted <= 2 * RESETS, `no call counted twice (${counted} for ${2 * RESETS} calls)`)
})
