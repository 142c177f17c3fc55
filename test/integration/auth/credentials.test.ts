/**
 * API credentials through the engine: created by (address, nonce), the same pair derives the
 * same credential, creating again returns it (create-or-derive in one call), the shapes are the
 * reference's (UUID key, 44-character url-safe base64 secret, hex passphrase), and they survive a
 * restart: the key is journaled and its secret and passphrase derive again from the same master
 * key. Revoking forgets the key. Keys journaled in clear by older servers load as they were.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EngineHost } from '../../../src/host/engine-host.js'
import { CredentialStore } from '../../../src/auth/credentials.js'
import { MasterKey } from '../../../src/crypto/master-key.js'

const ALICE = '0x' + 'a'.repeat(40)
const MASTER = MasterKey.random()

t.test('create, derive, restart, revoke', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'predex-creds-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let host = await EngineHost.start({ dataDir: dir, hashSeed: 1 })
  let store = await CredentialStore.load(host, MASTER)
  const created = await store.create(ALICE, 0)
  t.match(created.apiKey, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'the key is a UUID')
  t.match(created.secret, /^[A-Za-z0-9_-]{43}=$/, 'the secret is url-safe base64 of 32 bytes, with padding')
  t.equal(Buffer.from(created.secret.replace(/-/g, '+').replace(/_/g, '/'), 'base64').length, 32)
  t.match(created.passphrase, /^[0-9a-f]{64}$/)
  t.same(store.derive(ALICE, 0), created, 'derive returns it')
  t.same(await store.create(ALICE, 0), created, 'create again returns the same credential')
  const other = await store.create(ALICE, 1)
  t.not(other.apiKey, created.apiKey, 'another nonce, another credential')
  t.same(store.keysOf(ALICE).map((c) => c.nonce).sort(), [0, 1])
  t.same(store.lookup(created.apiKey), created, 'usable at once')
  await host.stop()

  host = await EngineHost.start({ dataDir: dir, hashSeed: 2 })
  store = await CredentialStore.load(host, MASTER)
  t.same(store.derive(ALICE, 0), created, 'the credential survived the restart')
  t.equal(await store.revoke(created.apiKey), true)
  t.equal(store.lookup(created.apiKey), undefined, 'revoked')
  t.equal(await store.revoke(created.apiKey), false, 'revoking twice does nothing')
  await host.stop()
  host = await EngineHost.start({ dataDir: dir, hashSeed: 3 })
  store = await CredentialStore.load(host, MASTER)
  t.equal(store.lookup(created.apiKey), undefined, 'and stays revoked after a restart')
  t.same(store.derive(ALICE, 1), other)
  await host.stop()
})

t.test('the journal keeps no secret; another master key derives other secrets; legacy keys load as stored', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'predex-creds-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let host = await EngineHost.start({ dataDir: dir, hashSeed: 1 })
  const legacy = { apiKey: 'legacy-key', address: ALICE, secret: 'bGVnYWN5LXNlY3JldC1sZWdhY3ktc2VjcmV0LTEyMzQ=',
    passphrase: 'legacy-passphrase', nonce: 9 }
  t.match((await host.submit({ kind: 'registerApiKey', ...legacy })).result, { ok: true }, 'as an older server did')
  let store = await CredentialStore.load(host, MASTER)
  const created = await store.create(ALICE, 0)
  const answer = await host.query({ kind: 'apiKeys' })
  t.same(answer, { kind: 'apiKeys', keys: [
    { apiKey: 'legacy-key', address: ALICE, nonce: 9, stored: { secret: legacy.secret, passphrase: legacy.passphrase } },
    { apiKey: created.apiKey, address: ALICE, nonce: 0, stored: null },
  ] }, 'the engine holds no secret of the new key')
  t.same(store.lookup('legacy-key'), legacy, 'the legacy key as it was stored')
  await host.stop()

  host = await EngineHost.start({ dataDir: dir, hashSeed: 2 })
  store = await CredentialStore.load(host, MasterKey.random())
  const other = store.lookup(created.apiKey)!
  t.equal(other.apiKey, created.apiKey)
  t.not(other.secret, created.secret, 'another master key: another secret')
  t.not(other.passphrase, created.passphrase, 'and another passphrase')
  t.same(store.lookup('legacy-key'), legacy, 'a legacy key does not depend on the master key')
  t.equal(await store.revoke(created.apiKey), true)
  store = await CredentialStore.load(host, MASTER)
  const again = await store.create(ALICE, 0)
  t.not(again.apiKey, created.apiKey, 'created again after the revoke: a new key id')
  t.not(again.secret, created.secret, 'whose secret is new: the revoked one stays unusable')
  await host.stop()
})
