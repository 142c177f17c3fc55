/**
 * The gate on a fake clock, with no transport: each kind of credentials passes, each failed check
 * answers its own 401 code, a (client address, claimed key) pair is blocked after the failure
 * budget and let through again after the block, and budgets answer 429 with Retry-After. The
 * fixtures are the reference's vectors (as request-auth.test.ts).
 */
import t, { type Test } from 'tap'
import { Gate, type Credentials, type Passage } from '../../../src/auth/gate.js'
import { restL2Message, type ApiCredential } from '../../../src/auth/l2.js'
import { RateLimiter } from '../../../src/auth/rate-limit.js'
import { l2Signature } from '../../../src/crypto/hmac.js'
import { ApiCode, PredexError } from '../../../src/errors.js'
import { AUTH_FAILURE_BLOCK_MS, RATE_RULES, type RateClass } from '../../../src/limits.js'
import { lineLog } from '../../../src/log.js'

const ADDRESS = '0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A'
const NOW_SEC = 1_700_000_000
const L1_SIGNATURE = '0x0f08c184141f23f61012ba15fef7303dff47a1da48c10ae8a6737eff59618f6e568b2868fedf2' +
  '52be3eb6e80f3a5f09bfdf609cd8f1c9725f9862742b33dc5fc1b'
const ADMIN_KEY = 'k'.repeat(40)
const CLIENT = '10.0.0.1'
const credential: ApiCredential = {
  apiKey: '00000000-0000-4000-8000-000000000001', address: ADDRESS.toLowerCase(),
  secret: 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=', passphrase: 'p'.repeat(64), nonce: 0,
}

/** A gate on a clock that moves only when told (`clock.advanceMs`). */
function gateOf(options: { limits?: boolean } = {}): { gate: Gate; clock: { advanceMs: (ms: number) => void }; logged: string[] } {
  let nowMs = 1_000
  const logged: string[] = []
  const gate = new Gate({
    chainId: 137, window: { pastSec: 60, futureSec: 10 }, adminKey: ADMIN_KEY, log: lineLog((line) => logged.push(line)),
    lookup: (apiKey) => (apiKey === credential.apiKey ? credential : undefined),
    clock: { nowSec: () => NOW_SEC, nowMs: () => nowMs },
    limiter: options.limits === false ? null : new RateLimiter(),
  })
  return { gate, clock: { advanceMs: (ms) => void (nowMs += ms) }, logged }
}

function getter(headers: Record<string, string>): (name: string) => string | undefined {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  return (name) => lower[name]
}

const l1Headers = { POLY_ADDRESS: ADDRESS, POLY_SIGNATURE: L1_SIGNATURE, POLY_TIMESTAMP: String(NOW_SEC), POLY_NONCE: '0' }

function l2(overrides: Record<string, string> = {}, method = 'DELETE', path = '/order', body = '{"orderID":"0xabc"}'): Credentials {
  const signature = l2Signature(credential.secret, String(NOW_SEC), method, path, body)
  const headers = { POLY_ADDRESS: ADDRESS, POLY_SIGNATURE: signature, POLY_TIMESTAMP: String(NOW_SEC),
    POLY_API_KEY: credential.apiKey, POLY_PASSPHRASE: credential.passphrase, ...overrides }
  return { kind: 'l2', headers: getter(headers), message: restL2Message(method, path, body) }
}

function passage(credentials: Credentials, rate: RateClass | null = null, remoteAddress = CLIENT): Passage {
  return { credentials, remoteAddress, rate: rate === null ? null : { bucket: 'GET /auth/api-keys', rule: rate } }
}

/** The error `run` throws (a failed test if it throws none, or something else). */
function refusal(t: Test, run: () => unknown): PredexError {
  try {
    run()
  } catch (error) {
    if (error instanceof PredexError) return error
    throw error
  }
  t.fail('expected a refusal')
  return new PredexError(ApiCode.INTERNAL, 'no refusal')
}

t.test('each kind of credentials passes and gives its identity', (t) => {
  const { gate } = gateOf()
  t.equal(gate.pass(passage({ kind: 'none' })), null, 'none: no identity')
  t.equal(gate.pass(passage({ kind: 'admin', headers: getter({ 'EXCHANGE-ADMIN-KEY': ADMIN_KEY }) })), null, 'admin: no identity')
  t.same(gate.pass(passage({ kind: 'l1', headers: getter(l1Headers) })), { apiKey: null, address: credential.address, nonce: 0 })
  t.same(gate.pass(passage(l2())), { apiKey: credential.apiKey, address: credential.address, nonce: 0 })
  const secret = { apiKey: credential.apiKey, secret: credential.secret, passphrase: credential.passphrase }
  t.same(gate.pass(passage({ kind: 'secret', credential: secret })), { apiKey: credential.apiKey, address: credential.address, nonce: 0 })
  t.end()
})

t.test('the L2 message is the face\'s: a gRPC-style method name and request bytes sign as well', (t) => {
  const { gate } = gateOf()
  const bytes = Uint8Array.from([8, 1, 18, 3, 97, 98, 99])
  const method = '/predex.v1.Trading/PlaceOrder'
  const signature = l2Signature(credential.secret, String(NOW_SEC), '', method, bytes)
  const headers = getter({ POLY_ADDRESS: ADDRESS, POLY_SIGNATURE: signature, POLY_TIMESTAMP: String(NOW_SEC),
    POLY_API_KEY: credential.apiKey, POLY_PASSPHRASE: credential.passphrase })
  t.same(gate.pass(passage({ kind: 'l2', headers, message: { head: method, body: bytes } })),
    { apiKey: credential.apiKey, address: credential.address, nonce: 0 })
  const other = { head: method, body: Uint8Array.from([8, 2, 18, 3, 97, 98, 99]) }
  t.equal(refusal(t, () => gate.pass(passage({ kind: 'l2', headers, message: other }))).code, 'AUTH_SIGNATURE', 'other bytes')
  t.end()
})

t.test('each failed check answers 401 with its own code', (t) => {
  const { gate } = gateOf()
  const cases: [string, Credentials, string][] = [
    ['admin key wrong', { kind: 'admin', headers: getter({ 'EXCHANGE-ADMIN-KEY': 'k'.repeat(39) + 'j' }) }, 'AUTH_ADMIN_KEY'],
    ['admin key missing', { kind: 'admin', headers: getter({}) }, 'AUTH_ADMIN_KEY'],
    ['L1 headers missing', { kind: 'l1', headers: getter({ POLY_ADDRESS: ADDRESS }) }, 'AUTH_HEADERS_MISSING'],
    ['L1 stale', { kind: 'l1', headers: getter({ ...l1Headers, POLY_TIMESTAMP: String(NOW_SEC - 61) }) }, 'AUTH_TIMESTAMP'],
    ['L1 other nonce', { kind: 'l1', headers: getter({ ...l1Headers, POLY_NONCE: '1' }) }, 'AUTH_L1_SIGNATURE'],
    ['L2 headers missing', l2({ POLY_PASSPHRASE: '' }), 'AUTH_HEADERS_MISSING'],
    ['L2 ahead', l2({ POLY_TIMESTAMP: String(NOW_SEC + 11) }), 'AUTH_TIMESTAMP'],
    ['L2 unknown key', l2({ POLY_API_KEY: 'unknown' }), 'AUTH_UNKNOWN_KEY'],
    ['L2 passphrase', l2({ POLY_PASSPHRASE: 'wrong' }), 'AUTH_PASSPHRASE'],
    ['L2 address', l2({ POLY_ADDRESS: '0x' + '2'.repeat(40) }), 'AUTH_ADDRESS'],
    ['L2 signature', l2({ POLY_SIGNATURE: l2Signature(credential.secret, String(NOW_SEC), 'POST', '/order', '') }),
      'AUTH_SIGNATURE'],
    ['secret missing', { kind: 'secret', credential: { apiKey: credential.apiKey, secret: undefined, passphrase: 'x' } },
      'AUTH_HEADERS_MISSING'],
    ['secret unknown key', { kind: 'secret', credential: { apiKey: 'unknown', secret: 'x', passphrase: 'y' } },
      'AUTH_UNKNOWN_KEY'],
    ['secret wrong', { kind: 'secret', credential: { apiKey: credential.apiKey, secret: 'x', passphrase: credential.passphrase } },
      'AUTH_PASSPHRASE'],
  ]
  for (const [label, credentials, code] of cases) {
    const error = refusal(t, () => gate.pass(passage(credentials)))
    t.same([error.code, error.status], [code, 401], label)
  }
  t.end()
})

t.test('a pair is blocked after the failure budget, and let through after the block', (t) => {
  const { gate, clock, logged } = gateOf()
  const wrong = l2({ POLY_PASSPHRASE: 'wrong' })
  const budget = RATE_RULES.authFailure.burst
  // The budget's worth of failures, plus the one that finds it empty: each answered with its 401.
  for (let i = 0; i <= budget; i++) {
    const error = refusal(t, () => gate.pass(passage(wrong)))
    if (error.code !== 'AUTH_PASSPHRASE') t.fail(`failure ${i + 1} answered ${error.code}`)
  }
  t.equal(logged.length, 1, 'the block is logged once')
  t.match(logged[0], /^WARN rate limit: blocked after repeated authentication failures /)
  t.match(logged[0], /"claim":"auth-failures 10\.0\.0\.1 00000000-0000-4000-8000-000000000001","blockedSeconds":60/)
  const blocked = refusal(t, () => gate.pass(passage(l2())))
  t.same([blocked.code, blocked.status, blocked.context], ['RATE_LIMITED', 429,
    { retryAfterSeconds: AUTH_FAILURE_BLOCK_MS / 1000, limit: budget, windowSeconds: 10 }], 'even the right credentials, during the block')
  const secret = { apiKey: credential.apiKey, secret: credential.secret, passphrase: credential.passphrase }
  t.equal(refusal(t, () => gate.pass(passage({ kind: 'secret', credential: secret }))).code, 'RATE_LIMITED',
    'the same pair through another face (the WebSocket credential) is blocked too')
  t.ok(gate.pass(passage(l2(), null, '10.0.0.2')), 'another client address with the same key is not blocked')
  t.equal(gate.pass(passage({ kind: 'none' })), null, 'nor an unauthenticated request from the blocked address')
  clock.advanceMs(AUTH_FAILURE_BLOCK_MS - 1_500)
  t.equal(refusal(t, () => gate.pass(passage(l2()))).context?.retryAfterSeconds, 2, 'Retry-After counts down (1.5 s: 2)')
  clock.advanceMs(1_500)
  t.same(gate.pass(passage(l2())), { apiKey: credential.apiKey, address: credential.address, nonce: 0 }, 'through after the block')
  t.end()
})

t.test('budgets answer 429 with Retry-After: per API key for L2, per client address for L1 and none', (t) => {
  const { gate, clock } = gateOf()
  const burst = RATE_RULES.apiKey.burst
  for (let i = 0; i < burst; i++) gate.pass(passage(l2(), 'apiKey'))
  const limited = refusal(t, () => gate.pass(passage(l2(), 'apiKey')))
  t.same([limited.code, limited.status, limited.message, limited.context], ['RATE_LIMITED', 429,
    'rate limit of GET /auth/api-keys exceeded', { retryAfterSeconds: 1, limit: burst, windowSeconds: 10 }])
  t.equal(refusal(t, () => gate.pass(passage(l2(), 'apiKey', '10.0.0.2'))).code, 'RATE_LIMITED',
    'L2: the key\'s budget, from any client address')
  clock.advanceMs(100)
  t.ok(gate.pass(passage(l2(), 'apiKey')), 'one token back after a hundredth of the window')

  const unsigned: Credentials = { kind: 'l1', headers: getter({ ...l1Headers, POLY_SIGNATURE: '0x' + '1'.repeat(130) }) }
  for (let i = 0; i < burst; i++) {
    if (refusal(t, () => gate.pass(passage(unsigned, 'apiKey', '10.0.0.3'))).code !== 'AUTH_L1_SIGNATURE') t.fail('401 first')
  }
  t.equal(refusal(t, () => gate.pass(passage(unsigned, 'apiKey', '10.0.0.3'))).message, 'rate limit of GET /auth/api-keys exceeded',
    'L1: the client address\'s budget is taken before the signature is recovered')

  for (let i = 0; i < burst; i++) gate.pass(passage({ kind: 'none' }, 'apiKey', '10.0.0.4'))
  t.equal(refusal(t, () => gate.pass(passage({ kind: 'none' }, 'apiKey', '10.0.0.4'))).code, 'RATE_LIMITED', 'none: per address')
  t.end()
})

t.test('admit: the general budget of a client address', (t) => {
  const { gate, clock } = gateOf()
  for (let i = 0; i < RATE_RULES.general.burst; i++) gate.admit(CLIENT)
  const limited = refusal(t, () => gate.admit(CLIENT))
  t.same([limited.code, limited.message, limited.context?.retryAfterSeconds], ['RATE_LIMITED', 'rate limit of all requests exceeded', 1])
  t.doesNotThrow(() => gate.admit('10.0.0.2'), 'another address has its own')
  clock.advanceMs(RATE_RULES.general.burstWindowMs)
  t.doesNotThrow(() => gate.admit(CLIENT), 'refilled after the window')
  t.end()
})

t.test('without a limiter: no budgets and no blocks (benchmarks)', (t) => {
  const { gate } = gateOf({ limits: false })
  for (let i = 0; i < 2 * RATE_RULES.authFailure.burst; i++) refusal(t, () => gate.pass(passage(l2({ POLY_PASSPHRASE: 'x' }))))
  t.ok(gate.pass(passage(l2(), 'apiKey')), 'not blocked')
  for (let i = 0; i < 2 * RATE_RULES.apiKey.burst; i++) gate.pass(passage(l2(), 'apiKey'))
  t.end()
})
