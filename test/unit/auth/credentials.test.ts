/**
 * API credentials through the engine: created by (address, nonce), the same pair derives the
 * same credential, creating again returns it (create-or-derive in one call), the shapes are the
 * reference's (UUID key, 44-character url-safe base64 secret, hex passphrase), and they survive a
 * restart because they are journaled. Revoking forgets the key.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EngineHost } from '../../../src/host/engine-host.js'
import { CredentialStore } from '../../../src/auth/credentials.js'

const ALICE = '0x' + 'a'.repeat(40)

t.test('create, derive, restart, revoke', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'predex-creds-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let host = await EngineHost.start({ dataDir: dir, hashSeed: 1 })
  let store = await CredentialStore.load(host)
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
  store = await CredentialStore.load(host)
  t.same(store.derive(ALICE, 0), created, 'the credential survived the restart')
  t.equal(await store.revoke(created.apiKey), true)
  t.equal(store.lookup(created.apiKey), undefined, 'revoked')
  t.equal(await store.revoke(created.apiKey), false, 'revoking twice does nothing')
  await host.stop()
  host = await EngineHost.start({ dataDir: dir, hashSeed: 3 })
  store = await CredentialStore.load(host)
  t.equal(store.lookup(created.apiKey), undefined, 'and stays revoked after a restart')
  t.same(store.derive(ALICE, 1), other)
  await host.stop()
})
