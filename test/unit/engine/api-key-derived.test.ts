/**
 * Derived API secrets in the engine (src/engine/api-key.ts, issue 14 finding 4): a registration
 * whose secret and passphrase are both empty is a key whose two the front end derives from the
 * master key, so the engine keeps neither, and a snapshot carries it back as derived; one empty
 * without the other is API_KEY_INVALID; a registration in clear (older servers) is still taken.
 */
import t from 'tap'
import { Harness, addressOf } from '../../support/harness.js'
import { isDerived } from '../../../src/engine/api-key.js'
import { decodeSnapshot, encodeSnapshot, stateHashOf } from '../../../src/engine/snapshot.js'

const alice = addressOf(1)
const base = { kind: 'registerApiKey', apiKey: 'key-1', address: alice, nonce: 0 } as const

t.test('the empty pair is a derived key: accepted, nothing of a secret kept, through a snapshot', (t) => {
  const h = new Harness()
  const applied = h.apply({ ...base, secret: '', passphrase: '' })
  t.strictSame(applied.result, { ok: true })
  t.strictSame(applied.events, [{ type: 'apiKey', action: 'registered', apiKey: 'key-1', address: alice, nonce: 0 }])
  const record = h.engine.apiKeys.get('key-1')!
  t.ok(isDerived(record), 'kept as derived')
  t.equal(record.secret + record.passphrase, '', 'no secret, no passphrase')
  t.strictSame(h.apply({ ...base, apiKey: 'key-2', nonce: 1, secret: 'c2VjcmV0', passphrase: 'pass' }).result,
    { ok: true }, 'a key in clear, as older servers registered them')
  t.notOk(isDerived(h.engine.apiKeys.get('key-2')!))
  const restored = decodeSnapshot(encodeSnapshot(h.engine))
  t.equal(stateHashOf(restored), stateHashOf(h.engine))
  t.ok(isDerived(restored.apiKeys.get('key-1')!), 'derived after a snapshot')
  t.strictSame(restored.apiKeys.get('key-2'), h.engine.apiKeys.get('key-2'), 'the key in clear as it was')
  t.end()
})

t.test('one of the pair empty is neither: API_KEY_INVALID naming it', (t) => {
  const h = new Harness()
  t.match(h.apply({ ...base, secret: '', passphrase: 'pass' }).result,
    { ok: false, code: 'API_KEY_INVALID', context: { field: 'secret' } })
  t.match(h.apply({ ...base, secret: 'c2VjcmV0', passphrase: '' }).result,
    { ok: false, code: 'API_KEY_INVALID', context: { field: 'passphrase' } })
  t.equal(h.engine.apiKeys.size, 0)
  t.end()
})
