/**
 * What a failed authentication may leave behind (issue 27, finding 5): L2 requests each claiming
 * a distinct unknown API key of 60 000 bytes grew the server by about 100 MB per 1 000 failures,
 * kept for good (a heap snapshot: the keys of the rate limiter's failure table, one entry per
 * claimed key, each holding the whole key). Here, on the gate alone: an oversized key is refused
 * at once (AUTH_UNKNOWN_KEY) without being looked up, and a flood of distinct oversized claims (API
 * keys, wallet addresses, the WebSocket credential) costs the failure table one entry per client
 * address, not one per claim.
 */
import t from 'tap'
import { Gate, type Credentials, type Passage } from '../../../src/auth/gate.js'
import { restL2Message, verifyL2Message, type ApiCredential } from '../../../src/auth/l2.js'
import { RateLimiter } from '../../../src/auth/rate-limit.js'
import { verifySecret } from '../../../src/auth/secret.js'
import { PredexError } from '../../../src/errors.js'
import { API_KEY_CHARS_MAX } from '../../../src/limits.js'
import { lineLog } from '../../../src/log.js'

const NOW_SEC = 1_700_000_000
const CLIENT = '10.0.0.1'
const FLOOD = 1_000
const OVERSIZED_CHARS = 15_000

/** A distinct claim of `chars` characters. */
const claim = (i: number, chars: number): string => `${i}-`.padEnd(chars, 'k')

function headersOf(values: Record<string, string>): (name: string) => string | undefined {
  return (name) => values[name]
}

function l2(apiKey: string, address = '0x' + '1'.repeat(40)): Credentials {
  return { kind: 'l2', message: restL2Message('GET', '/auth/api-keys', ''), headers: headersOf({
    'exchange-address': address, 'exchange-signature': 'c2ln', 'exchange-timestamp': String(NOW_SEC),
    'exchange-api-key': apiKey, 'exchange-passphrase': 'p' }) }
}

function l1(address: string): Credentials {
  return { kind: 'l1', headers: headersOf({ 'exchange-address': address, 'exchange-signature': '0x00',
    'exchange-timestamp': String(NOW_SEC) }) }
}

function gateOf(limiter: RateLimiter, lookup: (apiKey: string) => ApiCredential | undefined = () => undefined): Gate {
  return new Gate({ chainId: 137, window: { pastSec: 60, futureSec: 10 }, adminKey: 'k'.repeat(40),
    log: lineLog(() => undefined), lookup, clock: { nowSec: () => NOW_SEC, nowMs: () => 1_000 }, limiter })
}

/** The code the gate refuses `passage` with. */
function refusedWith(gate: Gate, passage: Passage): string {
  try {
    gate.pass(passage)
  } catch (error) {
    if (error instanceof PredexError) return error.code
    throw error
  }
  return 'passed'
}

t.test('an API key longer than API_KEY_CHARS_MAX is unknown at once: never looked up', (t) => {
  const looked: string[] = []
  const lookup = (apiKey: string): undefined => void looked.push(apiKey)
  const key = claim(1, API_KEY_CHARS_MAX + 1)
  const l2Answer = verifyL2Message((l2(key) as { headers: (name: string) => string | undefined }).headers,
    restL2Message('GET', '/auth/api-keys', ''), lookup, NOW_SEC, { pastSec: 60, futureSec: 10 })
  t.equal('code' in l2Answer && l2Answer.code, 'AUTH_UNKNOWN_KEY', 'L2: the catalogue\'s unknown key')
  const secretAnswer = verifySecret({ apiKey: key, secret: 's', passphrase: 'p' }, lookup)
  t.equal('code' in secretAnswer && secretAnswer.code, 'AUTH_UNKNOWN_KEY', 'the WebSocket credential: the same')
  t.same(looked, [], 'the lookup never saw the oversized key')
  looked.length = 0
  verifySecret({ apiKey: claim(2, API_KEY_CHARS_MAX), secret: 's', passphrase: 'p' }, lookup)
  t.equal(looked.length, 1, 'a key of API_KEY_CHARS_MAX characters is looked up')
  t.end()
})

t.test(`${FLOOD} failures with distinct oversized claims: one entry in the failure table per client address`, (t) => {
  const cases: [string, (i: number) => Credentials][] = [
    ['L2 API keys', (i) => l2(claim(i, OVERSIZED_CHARS))],
    ['L1 wallet addresses', (i) => l1(claim(i, OVERSIZED_CHARS))],
    ['WebSocket credentials', (i) => ({ kind: 'secret',
      credential: { apiKey: claim(i, OVERSIZED_CHARS), secret: 's', passphrase: 'p' } })],
  ]
  for (const [what, credentialsOf] of cases) {
    const limiter = new RateLimiter()
    const gate = gateOf(limiter)
    const codes = new Set<string>()
    for (let i = 0; i < FLOOD; i++) codes.add(refusedWith(gate, { credentials: credentialsOf(i), remoteAddress: CLIENT, rate: null }))
    t.notOk(codes.has('passed'), `${what}: every one refused (${[...codes].join(', ')})`)
    t.ok(limiter.size <= 1, `${what}: ${limiter.size} entries in the table (at most 1)`)
  }
  t.end()
})

t.test('distinct keys of a valid length are still counted one by one (guessing real keys is blocked per key)', (t) => {
  const limiter = new RateLimiter()
  const gate = gateOf(limiter)
  for (let i = 0; i < 10; i++) refusedWith(gate, { credentials: l2(claim(i, 36)), remoteAddress: CLIENT, rate: null })
  t.equal(limiter.size, 10)
  t.end()
})
