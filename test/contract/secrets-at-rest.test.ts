/**
 * API secrets at rest (issue 14, finding 4). A key's secret and passphrase are derived from the
 * server's master key and the key's public identity (its id, owner and nonce), so neither is
 * written to the data directory: the master key is the one secret stored there (master-key,
 * 0600, never logged). A restart derives the same credentials, a revoked key stays unusable, a
 * key an older server journaled in clear keeps working, and a master key that is not the one the
 * keys were derived from is refused at start rather than silently breaking every credential.
 */
import t from 'tap'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet } from '../../src/crypto/wallet.js'
import { l1Headers } from '../../src/crypto/request-headers.js'
import type { ApiCredentials } from '../../src/api/shapes/credential.js'
import { CHAIN_ID, l2, nowSec, startServer, type TestServer, type Trader } from '../support/rest-harness.js'

const MASTER_A = 'a1'.repeat(32)
const MASTER_B = 'b2'.repeat(32)

function newDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'predex.secrets-'))
}

/** Every byte of every file below `dir`, one buffer. */
function bytesBelow(dir: string): Buffer {
  const parts: Buffer[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    parts.push(statSync(path).isDirectory() ? bytesBelow(path) : readFileSync(path))
  }
  return Buffer.concat(parts)
}

/** The ways a credential's secrets could be written: as sent, and the secret's key bytes. */
function secretForms(credentials: ApiCredentials): [string, Buffer][] {
  const keyBytes = Buffer.from(credentials.secret.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
  return [['secret', Buffer.from(credentials.secret)], ['passphrase', Buffer.from(credentials.passphrase)],
    ['secret key bytes', keyBytes], ['passphrase bytes', Buffer.from(credentials.passphrase, 'hex')]]
}

async function derive(server: TestServer, wallet: Wallet): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.base}/auth/derive-api-key`, { headers: l1Headers(wallet, CHAIN_ID, nowSec()) })
  return { status: response.status, body: await response.json() }
}

/** Starting refused: the error's message. */
async function refusedStart(dataDir: string, argv: readonly string[]): Promise<string> {
  try {
    const server = await startServer({ dataDir, argv })
    await server.predex.stop()
    return 'started'
  } catch (error) {
    return (error as Error).message
  }
}

t.test('no secret or passphrase in the data directory; a restart derives the same ones', async (t) => {
  const dataDir = newDataDir()
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const logs: string[] = []
  const log = (line: string): void => void logs.push(line)
  let server = await startServer({ dataDir, log })
  const alice = await server.trader()
  const bob = await server.trader()
  t.equal((await l2(server, alice, 'GET', '/auth/api-keys')).status, 200, 'the new key authenticates')
  t.same((await l2(server, bob, 'DELETE', '/auth/api-key')).body, { deleted: true }, "bob's key revoked")
  await server.predex.stop()

  const stored = bytesBelow(dataDir)
  for (const [who, trader] of [['alice', alice], ['bob (revoked)', bob]] as const) {
    for (const [what, bytes] of secretForms(trader.credentials)) {
      t.equal(stored.indexOf(bytes), -1, `${who}'s ${what} is nowhere in the data directory`)
    }
  }
  const masterFile = join(dataDir, 'master-key')
  t.equal((statSync(masterFile).mode & 0o777).toString(8), '600', 'the master key is the owner\'s alone')
  const master = readFileSync(masterFile, 'utf8')
  t.match(master, /^[0-9a-f]{64}\n$/, 'the master key: 32 random bytes in hex')
  t.notOk(logs.join('\n').includes(master.trim()), 'the master key is never logged')

  server = await startServer({ dataDir, log })
  t.teardown(() => server.predex.stop())
  t.same((await derive(server, alice.wallet)).body, alice.credentials, 'the same credential after the restart')
  t.equal((await l2(server, alice, 'GET', '/auth/api-keys')).status, 200, 'and it still authenticates')
  t.equal((await l2(server, bob, 'GET', '/auth/api-keys')).status, 401, 'the revoked key stays unusable')
  t.notOk(logs.join('\n').includes(master.trim()), 'nor logged at the restart')
})

t.test('a key an older server journaled in clear still authenticates', async (t) => {
  const dataDir = newDataDir()
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  let server = await startServer({ dataDir })
  const wallet = Wallet.random()
  const address = wallet.address.toLowerCase()
  const credentials: ApiCredentials = { apiKey: randomUUID(), passphrase: randomBytes(32).toString('hex'),
    secret: randomBytes(32).toString('base64').replace(/\+/g, '-').replace(/\//g, '_') }
  // What the server wrote before secrets were derived: the registration carries them.
  await server.command({ kind: 'registerApiKey', ...credentials, address, nonce: 0 })
  await server.predex.stop()
  server = await startServer({ dataDir })
  t.teardown(() => server.predex.stop())
  const legacy: Trader = { wallet, address, credentials }
  t.equal((await l2(server, legacy, 'GET', '/auth/api-keys')).status, 200, 'the legacy key authenticates')
  t.same((await derive(server, wallet)).body, credentials, 'and derives as it was')
  const fresh = await server.trader()
  t.equal((await l2(server, fresh, 'GET', '/auth/api-keys')).status, 200, 'next to a derived one')
})

t.test('the configured master key: used, and another one refused once keys derive from it', async (t) => {
  const dataDir = newDataDir()
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  let server = await startServer({ dataDir, argv: ['--master-key', MASTER_A] })
  const alice = await server.trader()
  await server.predex.stop()
  t.notOk(readdirSync(dataDir).includes('master-key'), 'a configured master key is not written to the data directory')
  t.match(await refusedStart(dataDir, ['--master-key', MASTER_B]), /master key/i, 'another master key is refused')
  t.match(await refusedStart(dataDir, []), /master key/i, 'and so is none (a new one would be generated)')
  server = await startServer({ dataDir, argv: ['--master-key', MASTER_A] })
  t.teardown(() => server.predex.stop())
  t.same((await derive(server, alice.wallet)).body, alice.credentials, 'the same master key derives the same credential')
  t.equal((await l2(server, alice, 'GET', '/auth/api-keys')).status, 200)
})

t.test('the master-key file lost: the server refuses to start instead of making a new one', async (t) => {
  const dataDir = newDataDir()
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const server = await startServer({ dataDir })
  await server.trader()
  await server.predex.stop()
  rmSync(join(dataDir, 'master-key'))
  t.match(await refusedStart(dataDir, []), /master key/i, 'refused, naming the master key')
  t.notOk(readdirSync(dataDir).includes('master-key'), 'and no new master key was made')
})
