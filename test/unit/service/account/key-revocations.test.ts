/**
 * KeyRevocations (src/service/account/key-revocations.ts): a revoked key's watchers are told once,
 * other keys' are not, a registration is not a revocation, and nothing is kept after the watches end.
 */
import t from 'tap'
import { KeyRevocations } from '../../../../src/service/account/key-revocations.js'
import type { Outcome } from '../../../../src/host/messages.js'

function apiKeyOutcome(action: 'registered' | 'revoked', apiKey: string): Outcome {
  return { requestId: 1, seq: 1, timeMs: 0, recorded: true, result: { ok: true },
    events: [{ type: 'apiKey', action, apiKey, address: '0x' + '1'.repeat(40), nonce: 0 }] }
}

t.test('a revoked key\'s watchers are told once; other keys\' are not', async (t) => {
  const revocations = new KeyRevocations()
  const told: string[] = []
  revocations.watch('a', () => told.push('a1'))
  revocations.watch('a', () => told.push('a2'))
  revocations.watch('b', () => told.push('b'))
  revocations.publish([apiKeyOutcome('registered', 'a')])
  t.same(told, [], 'a registration ends nothing')
  revocations.publish([apiKeyOutcome('revoked', 'a')])
  t.same(told, ['a1', 'a2'], 'both sessions of the revoked key')
  revocations.publish([apiKeyOutcome('revoked', 'a')])
  t.same(told, ['a1', 'a2'], 'and only once')
  t.equal(revocations.keysWatched, 1, 'the revoked key is forgotten')
})

t.test('an unwatched session is not told, and nothing is kept once every watch ended', async (t) => {
  const revocations = new KeyRevocations()
  const told: string[] = []
  const same = (): void => void told.push('x')
  const first = revocations.watch('a', same)
  revocations.watch('a', same)
  first()
  t.equal(revocations.keysWatched, 1, 'the other watch of the key stays')
  revocations.publish([apiKeyOutcome('revoked', 'a')])
  t.same(told, ['x'], 'the same callback of two sessions is two watches: one was ended, one told')
  const last = revocations.watch('c', same)
  last()
  last()
  t.equal(revocations.keysWatched, 0, 'no key is kept once its watches ended')
})
