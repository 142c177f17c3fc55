/**
 * Rate limits over loopback against a real server (limits.ts RATE_RULES): per API key for
 * authenticated routes, per client address before an L1 signature is recovered, a block after
 * repeated failed authentications, and the general budget of every client address. Each refusal
 * is 429 RATE_LIMITED with `Retry-After`, and nobody else's budget is touched.
 */
import { connect } from 'node:net'
import t from 'tap'
import { l1Headers, l2Headers } from '../../src/crypto/request-headers.js'
import { AUTH_FAILURE_BLOCK_MS, RATE_RULES, REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX } from '../../src/limits.js'
import { USDC, nowSec, send, startServer, type TestServer, type Trader } from '../support/rest-harness.js'
import { TestClock } from '../support/clock.js'

// Budgets and blocks read the monotonic clock, which moves only when the test advances it: what
// the tests count is exact however slow the machine is.
const clock = new TestClock()
const server = await startServer({ clock })
t.teardown(() => server.stop())
const alice = await server.trader(10 * USDC)
const bob = await server.trader(10 * USDC)
const carol = await server.trader(10 * USDC)

async function engineState(s: TestServer): Promise<string> {
  const answer = await s.predex.context.host.query({ kind: 'stateHash' })
  if (answer.kind !== 'stateHash') throw new Error('unexpected answer')
  return `${answer.seq} ${answer.stateHash}`
}

function l2Get(s: TestServer, trader: Trader, path: string, secret = trader.credentials.secret) {
  const headers = l2Headers({ ...trader.credentials, secret }, trader.address, 'GET', path.split('?')[0]!.replace(/^\/compat/, ''), '', nowSec())
  return send(s, 'GET', path, '', headers)
}

t.test('a key past its budget of one route gets 429 with Retry-After; other routes and other keys do not', async (t) => {
  const rule = RATE_RULES.balanceUpdate
  const statuses: number[] = []
  let refused: Awaited<ReturnType<typeof send>> | null = null
  for (let i = 0; i < rule.burst + 20 && refused === null; i++) {
    const answer = await l2Get(server, alice, '/compat/balance-allowance/update')
    statuses.push(answer.status)
    if (answer.status === 429) refused = answer
  }
  t.ok(statuses.slice(0, rule.burst).every((status) => status === 200), `the first ${rule.burst} are answered`)
  t.not(refused, null, 'then 429')
  t.equal(refused!.body.code, 'RATE_LIMITED')
  t.match(refused!.body, { limit: rule.burst, windowSeconds: rule.burstWindowMs / 1000 }, 'the body names the budget')
  t.equal(refused!.headers.get('retry-after'), '1', 'Retry-After: one token comes back within a second')
  t.equal((await l2Get(server, alice, '/balance-allowance?asset_type=COLLATERAL')).status, 200, 'the same key on another route: its own budget')
  t.equal((await l2Get(server, bob, '/compat/balance-allowance/update')).status, 200, 'another key: untouched')
  clock.advance(1_100)
  t.equal((await l2Get(server, alice, '/compat/balance-allowance/update')).status, 200, 'after Retry-After the key is answered again')
})

t.test('every answer of a route with a budget says what is left: X-RateLimit-Limit, -Remaining, -Reset', async (t) => {
  const rule = RATE_RULES.balanceUpdate
  const path = '/compat/balance-allowance/update'
  const carolAt = async () => {
    const answer = await l2Get(server, carol, path)
    const header = (name: string) => answer.headers.get(name)
    return { status: answer.status, limit: header('x-ratelimit-limit'), remaining: header('x-ratelimit-remaining'),
      reset: header('x-ratelimit-reset') }
  }
  const first = await carolAt()
  t.same(first, { status: 200, limit: String(rule.burst), remaining: String(rule.burst - 1), reset: '1' },
    'one of the budget spent; whole again within the window')
  const second = await carolAt()
  t.equal(second.remaining, String(rule.burst - 2), 'one fewer each request')
  let last = second
  while (last.status === 200) last = await carolAt()
  t.same(last, { status: 429, limit: String(rule.burst), remaining: '0', reset: '1' },
    'a refusal: none left, and the next one back within Retry-After')
  clock.advance(rule.burstWindowMs)
  t.equal((await carolAt()).remaining, String(rule.burst - 1), 'whole again after the window')
  const unlimited = await send(server, 'GET', '/time', '', {})
  t.equal(unlimited.headers.get('x-ratelimit-limit'), String(RATE_RULES.general.burst),
    'a route without its own budget reports the general one, which every request draws on')
  t.ok(Number(unlimited.headers.get('x-ratelimit-remaining')) < RATE_RULES.general.burst)
})

t.test('L1 routes are limited per client address before the signature is recovered', async (t) => {
  const rule = RATE_RULES.apiKey
  const path = '/auth/derive-api-key'
  clock.advance(rule.burstWindowMs) // a full budget: the traders' credentials above were L1 requests too
  let answered = 0
  let refused: Awaited<ReturnType<typeof send>> | null = null
  const started = performance.now()
  while (refused === null && answered < rule.burst * 2) {
    const answer = await send(server, 'GET', path, '', await l1Headers(carol.wallet, 80002, nowSec(), 0))
    if (answer.status === 429) refused = answer
    else {
      t.equal(answer.status, 200, 'a valid L1 request within the budget')
      answered++
    }
  }
  const elapsedSec = (performance.now() - started) / 1000
  // The server's monotonic clock stood still: nothing refilled, however long the recoveries took.
  t.equal(answered, rule.burst, `${answered} answered in ${elapsedSec.toFixed(1)} s: exactly the burst`)
  t.not(refused, null, 'then 429')
  t.equal(refused!.body.code, 'RATE_LIMITED')
  t.ok(Number(refused!.headers.get('retry-after')) >= 1, 'with Retry-After')
})

t.test('repeated bad HMACs for one key: 401s, then a block (429) for that key from that address; other keys unaffected', async (t) => {
  const before = await engineState(server)
  const rule = RATE_RULES.authFailure
  const wrongSecret = Buffer.alloc(32, 7).toString('base64url')
  const statuses: number[] = []
  for (let i = 0; i < rule.burst + 60; i++) statuses.push((await l2Get(server, bob, '/balance-allowance?asset_type=COLLATERAL', wrongSecret)).status)
  const firstRefusal = statuses.indexOf(429)
  t.ok(firstRefusal >= rule.burst, `the first ${rule.burst} failures are 401 (the ${firstRefusal + 1}th is 429)`)
  t.ok(statuses.slice(0, firstRefusal).every((status) => status === 401), 'each failure before the block is 401')
  t.ok(statuses.slice(firstRefusal).every((status) => status === 429), 'once blocked, every request is 429')
  const blocked = await l2Get(server, bob, '/balance-allowance?asset_type=COLLATERAL')
  t.equal(blocked.status, 429, 'the block holds even with the right secret, for its duration')
  t.equal(blocked.body.code, 'RATE_LIMITED')
  const retryAfterSec = Number(blocked.headers.get('retry-after'))
  t.ok(retryAfterSec > AUTH_FAILURE_BLOCK_MS / 1000 - 10 && retryAfterSec <= AUTH_FAILURE_BLOCK_MS / 1000,
    `Retry-After is what is left of the ${AUTH_FAILURE_BLOCK_MS / 1000} s block (${retryAfterSec})`)
  t.equal((await l2Get(server, alice, '/balance-allowance?asset_type=COLLATERAL')).status, 200, 'a valid key from the same address is answered')
  t.equal(await engineState(server), before, 'nothing reached the engine')
})

t.test('every request counts against the general budget of its client address', async (t) => {
  const rule = RATE_RULES.general
  clock.advance(rule.burstWindowMs) // a full budget again after the tests above
  // Pipelined over a few sockets, the whole burst and more arrives far faster than it refills; in
  // batches, so that the four sockets together stay within the requests of one address answered
  // in one event-loop turn (past it the connection is closed: rest-malformed-http.test.ts).
  const sockets = 4
  const perSocket = Math.ceil((rule.burst * 1.5) / sockets)
  const batch = Math.floor(REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX / sockets / 2)
  const answers = await Promise.all(Array.from({ length: sockets },
    () => pipelined('GET /time HTTP/1.1\r\nHost: t\r\n\r\n', perSocket, batch)))
  const count = (status: string): number => answers.reduce((sum, text) => sum + text.split(`HTTP/1.1 ${status}`).length - 1, 0)
  const ok = count('200 ')
  const refused = count('429 ')
  t.equal(ok + refused, perSocket * 4, `every request answered: ${ok} with 200, ${refused} with 429`)
  t.equal(ok, rule.burst, `exactly the burst (${rule.burst}) was answered: the clock stood still`)
  t.ok(refused > 0, 'the rest was refused')
  const refusal = answers.join('').split('HTTP/1.1 429 ')[1]!
  t.match(refusal, /retry-after: 1\r\n/i, 'with Retry-After')
  t.match(refusal, /"code":"RATE_LIMITED"/)
  t.match(refusal, /all requests/)
})

/**
 * Writes `count` copies of `request` on one socket, `batch` at once (the next batch once the last
 * one is answered), and resolves with everything read back.
 */
function pipelined(request: string, count: number, batch: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.predex.port })
    const chunks: Buffer[] = []
    let statusLines = 0
    // The last 8 characters of what was read: a status line split between two chunks still counts once.
    let carry = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`only ${statusLines} of ${count} answers within 30 s`))
    }, 30_000)
    let written = 0
    const writeBatch = (): void => {
      const size = Math.min(batch, count - written)
      written += size
      socket.write(request.repeat(size))
    }
    socket.on('connect', writeBatch)
    socket.on('data', (chunk) => {
      chunks.push(chunk)
      const text = carry + chunk.toString('latin1')
      statusLines += text.split('HTTP/1.1 ').length - 1
      carry = text.slice(-8)
      if (statusLines >= count) {
        clearTimeout(timer)
        socket.destroy()
        resolve(Buffer.concat(chunks).toString('latin1'))
      } else if (statusLines === written) {
        writeBatch()
      }
    })
    socket.on('error', reject)
  })
}

t.test('--rate-limits false turns the budgets off (benchmarks)', async (t) => {
  const unlimited = await startServer({ argv: ['--rate-limits', 'false'] })
  t.teardown(() => unlimited.stop())
  const trader = await unlimited.trader()
  const statuses = new Set<number>()
  for (let i = 0; i < RATE_RULES.balanceUpdate.burst + 10; i++) statuses.add((await l2Get(unlimited, trader, '/compat/balance-allowance/update')).status)
  t.same([...statuses], [200], 'past the budget, every request answered')
})
