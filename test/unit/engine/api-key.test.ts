/**
 * API credentials kept in the engine (commands `registerApiKey` / `revokeApiKey`, event `apiKey`,
 * codes API_KEY_EXISTS / API_KEY_NOT_FOUND / API_KEY_INVALID): one key per id and one per
 * (address, nonce); the event never carries the secret or the passphrase ("No event carries a
 * secret", src/engine/event.ts).
 */
import t, { type Test } from 'tap'
import { Harness, addressOf } from '../../support/harness.js'
import { stateOf } from '../../support/engine-checks.js'
import type { ApplyResult } from '../../../src/engine/engine.js'
import { CODE_MESSAGES, type Code } from '../../../src/engine/codes.js'
import type { RegisterApiKey } from '../../../src/engine/command.js'
import { summaryOf } from '../../../src/engine/view.js'

type Registration = Omit<RegisterApiKey, 'seq' | 'timeMs'>

const alice = addressOf(1)
const bob = addressOf(2)
const SECRET_A = 'c2VjcmV0LWFsaWNlLWJhc2U2NC1zZWNyZXQ='
const PASS_A = 'passphrase-alice-0123456789abcdef'
const SECRET_B = 'c2VjcmV0LWJvYi1iYXNlNjQtc2VjcmV0'
const PASS_B = 'passphrase-bob-fedcba9876543210'

function registration(overrides: Partial<Record<keyof Registration, unknown>> = {}): Registration {
  return {
    kind: 'registerApiKey',
    apiKey: '11111111-2222-4333-8444-555555555555',
    address: alice,
    secret: SECRET_A,
    passphrase: PASS_A,
    nonce: 0,
    ...overrides,
  } as Registration
}

function refused(t: Test, h: Harness, run: () => ApplyResult, code: Code, what: string): ApplyResult {
  const before = stateOf(h)
  const keys = h.engine.apiKeys.size
  const applied = run()
  t.match(applied.result, { ok: false, code, message: CODE_MESSAGES[code] }, `${what}: ${code}`)
  t.strictSame(applied.events, [], `${what}: no events`)
  t.strictSame(stateOf(h), before, `${what}: state unchanged`)
  t.equal(h.engine.apiKeys.size, keys, `${what}: no key added or removed`)
  return applied
}

/** Nothing the engine emitted or answered carries a secret or a passphrase. */
function noSecrets(t: Test, h: Harness, results: ApplyResult[]): void {
  const text = JSON.stringify({ log: h.log, results: results.map((r) => r.result) })
  for (const secret of [SECRET_A, PASS_A, SECRET_B, PASS_B, 'other-secret', 'other-pass']) {
    t.notOk(text.includes(secret), `no "${secret.slice(0, 12)}..." in events or results`)
  }
}

t.test('register: accepted, one apiKey event without the secret', (t) => {
  const h = new Harness()
  const applied = h.apply(registration({ nonce: 7 }))
  t.strictSame(applied.result, { ok: true })
  t.strictSame(applied.events, [
    { type: 'apiKey', action: 'registered', apiKey: '11111111-2222-4333-8444-555555555555', address: alice, nonce: 7 },
  ])
  // Same address, another nonce: a second credential.
  const second = h.apply(registration({ apiKey: 'key-2', secret: SECRET_B, passphrase: PASS_B, nonce: 8 }))
  t.strictSame(second.events, [{ type: 'apiKey', action: 'registered', apiKey: 'key-2', address: alice, nonce: 8 }])
  // Another address, the same nonce: fine.
  const third = h.apply(registration({ apiKey: 'key-3', address: bob, nonce: 7 }))
  t.strictSame(third.events, [{ type: 'apiKey', action: 'registered', apiKey: 'key-3', address: bob, nonce: 7 }])
  t.equal(h.engine.apiKeys.size, 3)
  // Registering keys touches no balance, market or order.
  t.strictSame(summaryOf(h.engine).accounts, [])
  noSecrets(t, h, [applied, second, third])
  t.end()
})

t.test('register: duplicate apiKey, duplicate (address, nonce)', (t) => {
  const h = new Harness()
  const first = h.apply(registration({ nonce: 1 }))
  t.strictSame(first.result, { ok: true })
  const results: ApplyResult[] = [first]
  // The same key id again, even for another address and nonce.
  results.push(refused(t, h, () => h.apply(registration({ address: bob, nonce: 2, secret: 'other-secret', passphrase: 'other-pass' })), 'API_KEY_EXISTS', 'same apiKey'))
  // The same (address, nonce) under a new key id.
  results.push(refused(t, h, () => h.apply(registration({ apiKey: 'key-2', nonce: 1, secret: 'other-secret', passphrase: 'other-pass' })), 'API_KEY_EXISTS', 'same address and nonce'))
  // The rejection context names no secret.
  for (const r of results.slice(1)) {
    const ctx = JSON.stringify((r.result as { context: unknown }).context)
    t.notOk(ctx.includes('other-secret') || ctx.includes('other-pass'), 'context carries no secret')
  }
  noSecrets(t, h, results)
  t.end()
})

t.test('register: invalid fields are API_KEY_INVALID', (t) => {
  const h = new Harness()
  const long = 'k'.repeat(129)
  const cases: [string, unknown][] = [
    ['apiKey', ''], ['apiKey', long], ['apiKey', 5],
    ['address', ''], ['address', long], ['address', null],
    ['secret', ''], ['secret', long], ['secret', undefined],
    ['passphrase', ''], ['passphrase', long],
    ['nonce', -1], ['nonce', 1.5], ['nonce', Number.NaN], ['nonce', Number.MAX_SAFE_INTEGER + 1], ['nonce', '0'],
  ]
  const results: ApplyResult[] = []
  for (const [field, value] of cases) {
    const applied = refused(t, h, () => h.apply(registration({ [field]: value })), 'API_KEY_INVALID', `${field} = ${String(value).slice(0, 16)}`)
    // Like every other invalid-record rejection of the engine, the context names the field.
    t.strictSame((applied.result as { context: unknown }).context, { field }, `${field}: context names the field`)
    results.push(applied)
  }
  noSecrets(t, h, results)
  // Boundary values accepted: 128-character strings, nonce 0 and the largest safe integer.
  const max = 'm'.repeat(128)
  t.strictSame(h.apply(registration({ apiKey: max, address: max, secret: max, passphrase: max, nonce: 0 })).result, { ok: true })
  t.strictSame(h.apply(registration({ apiKey: 'big-nonce', nonce: Number.MAX_SAFE_INTEGER })).result, { ok: true })
  t.end()
})

t.test('revoke: known key revoked with an event, unknown key API_KEY_NOT_FOUND', (t) => {
  const h = new Harness()
  const registered = h.apply(registration({ apiKey: 'key-1', nonce: 3 }))
  h.apply(registration({ apiKey: 'key-2', secret: SECRET_B, passphrase: PASS_B, nonce: 4 }))
  const revoked = h.apply({ kind: 'revokeApiKey', apiKey: 'key-1' })
  t.strictSame(revoked.result, { ok: true })
  t.strictSame(revoked.events, [{ type: 'apiKey', action: 'revoked', apiKey: 'key-1', address: alice, nonce: 3 }])
  t.equal(h.engine.apiKeys.size, 1, 'key-2 remains')
  t.ok(h.engine.apiKeys.has('key-2'))

  const again = refused(t, h, () => h.apply({ kind: 'revokeApiKey', apiKey: 'key-1' }), 'API_KEY_NOT_FOUND', 'revoked twice')
  const unknown = refused(t, h, () => h.apply({ kind: 'revokeApiKey', apiKey: 'never-registered' }), 'API_KEY_NOT_FOUND', 'unknown key')
  refused(t, h, () => h.apply({ kind: 'revokeApiKey', apiKey: '' }), 'API_KEY_NOT_FOUND', 'empty key')
  noSecrets(t, h, [registered, revoked, again, unknown])
  t.end()
})
