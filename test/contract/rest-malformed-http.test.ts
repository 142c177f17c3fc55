/**
 * Malformed HTTP and pipelining on the REST face, over raw TCP to a real server on 127.0.0.1
 * (issue 14, finding 8 "malformed HTTP" and the rest of finding 3).
 *
 * What a real exchange does with a request it cannot parse: answers 400 / 505 / 431 with
 * `Connection: close`, or at least closes at once, and goes on serving everyone else. uWS v20.30
 * (the newest build that loads here: docs/operations.md, "Known limits of the HTTP parser") does
 * neither for the cases below: its parser cannot tell a malformed head from an incomplete one, so
 * it keeps the bytes, calls no JavaScript, and closes the connection, without a status line, when
 * its fixed 10 s idle timeout fires (counted on a 4 s tick: 8 to 12 s; measured 8.2 to 12.0 s).
 * Nothing of the server sees such a connection, so nothing in it can answer; those assertions are
 * `todo` (they fail, and say how), and the ones that hold are firm: the server serves others
 * meanwhile, and the hold is bounded.
 *
 * Pipelining: uWS takes one request in flight per connection (a request arriving while one is
 * unanswered closes the connection); requests answered at once are answered back to back, and a
 * burst of them from one client address is bounded per event-loop turn
 * (REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX).
 */
import t from 'tap'
import { connect } from 'node:net'
import { REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX } from '../../src/limits.js'
import { startServer } from '../support/rest-harness.js'

/** "A prompt close": well under a second when it happens; bounded here for a loaded 2-core machine. */
const PROMPT_MS = 2_000
/** uWS's HTTP idle timeout (10 s, checked on a 4 s tick) with room: the longest a connection is held. */
const HELD_MS_MAX = 16_000
/** Another client's request: answered at once; bounded with room for a loaded 2-core machine. */
const PROBE_MS_MAX = 3_000
const KNOWN_LIMIT = 'uWS v20.30 holds it without a status line until its 10 s idle timeout '
  + '(docs/operations.md, "Known limits of the HTTP parser")'

const server = await startServer()
t.teardown(() => server.stop())
const port = server.predex.port

interface Response {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

interface Exchange {
  /** Everything the server sent, as latin1. */
  readonly text: string
  /** When the server closed the connection, from the write; null when it was still open at `waitMs`. */
  readonly closedAfterMs: number | null
  /** When the first byte came, from the write; null if none did. */
  readonly firstByteAfterMs: number | null
  readonly responses: readonly Response[]
}

/**
 * Writes `bytes` on a new connection (from `localAddress`: another client address on loopback),
 * reads until the server closes it, `stopWhen` says so, or `waitMs` pass (then closes it).
 */
function exchange(bytes: string, waitMs: number, stopWhen?: (text: string) => boolean,
  localAddress = '127.0.0.1'): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress })
    let text = ''
    let startedMs = 0
    let firstByteAfterMs: number | null = null
    let done = false
    const finish = (closedAfterMs: number | null): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ text, closedAfterMs, firstByteAfterMs, responses: responsesOf(text) })
    }
    const timer = setTimeout(() => finish(null), waitMs)
    socket.on('connect', () => {
      startedMs = performance.now()
      socket.write(bytes)
    })
    socket.on('data', (chunk: Buffer) => {
      firstByteAfterMs ??= performance.now() - startedMs
      text += chunk.toString('latin1')
      if (stopWhen?.(text) === true) finish(null)
    })
    socket.on('error', () => undefined) // a reset is a close too
    socket.on('close', () => finish(performance.now() - startedMs))
  })
}

/** The status and headers of each response in `text` (bodies here never hold a status line). */
function responsesOf(text: string): Response[] {
  const responses: Response[] = []
  for (const match of text.matchAll(/HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n((?:[^\r\n]+\r\n)*)\r\n/g)) {
    const headers: Record<string, string> = {}
    for (const line of match[2]!.split('\r\n').filter((line) => line.length > 0)) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    responses.push({ status: Number(match[1]), headers })
  }
  return responses
}

async function healthMs(): Promise<{ status: number; ms: number }> {
  const startedMs = performance.now()
  const answer = await fetch(`${server.base}/health`)
  await answer.text()
  return { status: answer.status, ms: performance.now() - startedMs }
}

const headerLines = (count: number): string =>
  'Host: predex\r\n' + Array.from({ length: count - 1 }, (_, i) => `X-Filler-${i}: v\r\n`).join('')

/** Each malformed head, and the status lines a real server may answer it with. */
const MALFORMED: readonly { name: string; bytes: string; statuses: readonly number[] }[] = [
  { name: 'a well-formed HTTP/1.0 request (Host, Connection: close)', statuses: [200, 505],
    bytes: 'GET /health HTTP/1.0\r\nHost: predex\r\nConnection: close\r\n\r\n' },
  { name: 'HTTP/1.0 with no header', statuses: [400, 505], bytes: 'GET /health HTTP/1.0\r\n\r\n' },
  { name: '49 header lines (uWS takes 48)', statuses: [400, 431],
    bytes: `GET /health HTTP/1.1\r\n${headerLines(49)}\r\n` },
  { name: '100 header lines in 1.5 KB', statuses: [400, 431],
    bytes: `GET /health HTTP/1.1\r\n${headerLines(100)}\r\n` },
  { name: 'bare LF line endings', statuses: [400], bytes: 'GET /health HTTP/1.1\nHost: predex\n\n' },
  { name: 'HTTP/1.1 with no header (no Host)', statuses: [400], bytes: 'GET /health HTTP/1.1\r\n\r\n' },
  { name: 'the HTTP/2 preface (prior knowledge)', statuses: [400, 505], bytes: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' },
]

t.test('malformed heads: a status line with Connection: close, or a prompt close; others served', async (t) => {
  const pending = MALFORMED.map((item) => exchange(item.bytes, HELD_MS_MAX))
  await new Promise((resolve) => setTimeout(resolve, 500))
  const probe = await healthMs() // while those connections are open
  t.equal(probe.status, 200, 'another client is served while they are held')
  t.ok(probe.ms < PROBE_MS_MAX, `... at once (${probe.ms.toFixed(0)} ms)`)
  const results = await Promise.all(pending)
  MALFORMED.forEach((item, i) => {
    const result = results[i]!
    const first = result.responses[0]
    const held = result.closedAfterMs === null ? `still open at ${HELD_MS_MAX} ms`
      : `closed after ${result.closedAfterMs.toFixed(0)} ms`
    const seen = `${first === undefined ? 'no status line' : `status ${first.status}`}, ${held}`
    const answered = first !== undefined && item.statuses.includes(first.status)
      && first.headers['connection']?.toLowerCase() === 'close'
    const prompt = result.closedAfterMs !== null && result.closedAfterMs < PROMPT_MS
    t.ok(answered || prompt, `${item.name}: answered ${item.statuses.join('/')} with Connection: close, `
      + `or closed within ${PROMPT_MS} ms (${seen})`, { todo: answered || prompt ? false : KNOWN_LIMIT })
    t.not(result.closedAfterMs, null, `${item.name}: closed by the server within ${HELD_MS_MAX} ms (${seen})`)
  })
  const after = await healthMs()
  t.equal(after.status, 200, 'the server is alive and answering afterwards')
})

t.test('a request pipelined behind one waiting on the engine closes the connection at once', async (t) => {
  const adminKey = server.predex.adminKey
  const waiting = `GET /admin/stats HTTP/1.1\r\nHost: predex\r\nEXCHANGE-ADMIN-KEY: ${adminKey}\r\n\r\n`
  const quick = 'GET /time HTTP/1.1\r\nHost: predex\r\n\r\n'
  const alone = await exchange(waiting, PROMPT_MS, (text) => responsesOf(text).length > 0)
  t.equal(alone.responses[0]?.status, 200, 'the waiting request alone is answered')
  const result = await exchange(waiting + quick.repeat(50), PROMPT_MS)
  t.ok(result.closedAfterMs !== null && result.closedAfterMs < PROMPT_MS,
    `closed, not held (after ${result.closedAfterMs?.toFixed(0) ?? 'more than ' + PROMPT_MS} ms; `
    + `${result.responses.length} responses)`)
  t.ok(result.responses.length <= 1, 'nothing behind the waiting request was run')
  t.equal((await healthMs()).status, 200, 'the server is alive and answering')
})

t.test('a few pipelined requests are all answered, in order, on an open connection', async (t) => {
  const count = Math.min(100, REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX)
  const result = await exchange('GET /time HTTP/1.1\r\nHost: predex\r\n\r\n'.repeat(count), PROMPT_MS,
    (text) => responsesOf(text).length >= count)
  t.equal(result.responses.length, count, `${count} responses`)
  t.ok(result.responses.every((response) => response.status === 200), 'all 200')
  t.equal(result.closedAfterMs, null, 'the connection stays open')
})

t.test('one request past the bound in one read: refused with 429 RATE_LIMITED, Retry-After, Connection: close',
  async (t) => {
    const count = REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX + 1 // about 40 KB in one write: one read on loopback
    const result = await exchange('GET /time HTTP/1.1\r\nHost: predex\r\n\r\n'.repeat(count), PROMPT_MS)
    const statuses = result.responses.map((response) => response.status)
    t.equal(statuses.filter((status) => status === 200).length, count - 1, 'the bound\'s worth answered')
    const last = result.responses.at(-1)
    t.equal(last?.status, 429, 'the one past it refused')
    t.equal(last?.headers['retry-after'], '1', 'with Retry-After')
    t.equal(last?.headers['connection']?.toLowerCase(), 'close', 'and Connection: close')
    t.match(result.text, /"code":"RATE_LIMITED"/, 'a catalogue code')
    t.ok(result.closedAfterMs !== null, 'the connection was closed')
    t.equal((await healthMs()).status, 200, 'the server is alive and answering')
  })

t.test('a burst of pipelined requests is cut at the per-turn bound and its connection closed', async (t) => {
  const total = 6_000 // under RATE_RULES.general (9 000 per 10 s per client address): no 429 from the budget
  const bytes = ['GET /time', 'GET /nope'].map((line) => `${line} HTTP/1.1\r\nHost: predex\r\n\r\n`).join('')
    .repeat(total / 2)
  // The probe comes from another client address (127.0.0.2): the bound is per address, and every
  // connection of this test is 127.0.0.1.
  const probeBytes = 'GET /health HTTP/1.1\r\nHost: predex\r\nConnection: close\r\n\r\n'
  const [result, probe] = await Promise.all([exchange(bytes, 5_000),
    new Promise((resolve) => setTimeout(resolve, 1)).then(() => exchange(probeBytes, 5_000, undefined, '127.0.0.2'))])
  const refused = result.responses.filter((response) => response.status === 429)
  const answered = result.responses.length - refused.length
  t.ok(result.closedAfterMs !== null, `the connection was closed (${answered} answered of ${total})`)
  t.ok(answered <= 2 * REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX,
    `at most the bound per turn was answered (${answered}; bound ${REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX})`)
  for (const response of refused) {
    t.equal(response.headers['retry-after'], '1', 'the refusal says when to retry')
    t.equal(response.headers['connection']?.toLowerCase(), 'close', 'and closes the connection')
  }
  t.equal(probe.responses[0]?.status, 200, 'another client was served')
  t.ok(probe.firstByteAfterMs !== null && probe.firstByteAfterMs < PROBE_MS_MAX,
    `in time (${probe.firstByteAfterMs?.toFixed(0)} ms, this process's own client work included)`)
  t.equal((await healthMs()).status, 200, 'the server is alive and answering')
})
