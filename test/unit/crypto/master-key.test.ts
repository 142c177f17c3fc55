/**
 * The master key and what derives from it (src/crypto/master-key.ts, derived-credential.ts,
 * master-key-file.ts, the --master-key setting): the derivation pinned by a known answer (a
 * change would break every credential in use), its formats, inputs that differ giving different
 * secrets; the key never shown by printing, logging or JSON; where it comes from, stored once,
 * 0600, and a start with the key lost, replaced or corrupt refused without writing anything.
 */
import t, { type Test } from 'tap'
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { MasterKey } from '../../../src/crypto/master-key.js'
import { derivedCredential } from '../../../src/auth/derived-credential.js'
import { masterKeyOf } from '../../../src/auth/master-key-file.js'
import { ConfigError, configOf, describe, helpText, type Config } from '../../../src/config.js'
import { lineLog, SILENT_LOG } from '../../../src/log.js'

const ONE_HEX = '00'.repeat(31) + '01'
const KEY = { apiKey: '11111111-2222-4333-8444-555555555555', address: '0x' + 'ab'.repeat(20), nonce: 7 }

function dataDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'predex.master-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function refusal(run: () => unknown): string {
  try {
    run()
    return 'accepted'
  } catch (error) {
    return (error as Error).message
  }
}

t.test('the derivation: pinned, in the formats clients expect, apart for every input', (t) => {
  const master = MasterKey.fromHex(ONE_HEX)!
  // Computed once with node:crypto alone: HMAC-SHA256(master, JSON [label, apiKey, address, nonce]).
  t.same(derivedCredential(master, KEY), { ...KEY,
    secret: '2oIuozWkVh1p7jyPl7Rsf9Mvgx1ximcGdOECVSJ5UMA=',
    passphrase: '9aac17d7bd1f9c693e22ca0fd76dfd2110c6346887780f38911ecae5133c8363' })
  const secrets = new Set<string>()
  for (const key of [KEY, { ...KEY, apiKey: 'other' }, { ...KEY, address: '0x' + 'cd'.repeat(20) }, { ...KEY, nonce: 8 }]) {
    for (const from of [master, MasterKey.fromHex('ff'.repeat(32))!]) {
      const credential = derivedCredential(from, key)
      t.match(credential.secret, /^[A-Za-z0-9_-]{43}=$/, 'url-safe base64 of 32 bytes with its padding')
      t.match(credential.passphrase, /^[0-9a-f]{64}$/)
      secrets.add(credential.secret).add(credential.passphrase)
    }
  }
  t.equal(secrets.size, 16, 'another key id, owner, nonce or master key: other secret and passphrase')
  t.end()
})

t.test('the key is never shown', (t) => {
  const master = MasterKey.fromHex(ONE_HEX)!
  const shown = [String(master), `${master}`, JSON.stringify({ master }), inspect(master), inspect({ config: { master } })]
  for (const text of shown) t.notOk(text.includes(ONE_HEX) || text.includes('01'), `"${text}" hides it`)
  t.equal(MasterKey.fromHex(` ${ONE_HEX.toUpperCase()}\n`)?.id(), master.id(), 'hex in any case, space around ignored')
  for (const bad of ['', '00', ONE_HEX + '00', 'zz'.repeat(32), ONE_HEX.slice(1)]) {
    t.equal(MasterKey.fromHex(bad), null, `"${bad.slice(0, 8)}..." is not a key`)
  }
  t.not(MasterKey.random().id(), MasterKey.random().id())
  t.end()
})

t.test('--master-key and PREDEX_MASTER_KEY: 64 hex characters, never repeated in an error or the start line', (t) => {
  const config = (argv: string[], env: Record<string, string> = {}): Config => configOf(argv, env) as Config
  t.equal(config([]).masterKey, null, 'none configured: the data directory\'s')
  t.equal(config(['--master-key', ONE_HEX]).masterKey?.id(), MasterKey.fromHex(ONE_HEX)!.id())
  t.equal(config([], { PREDEX_MASTER_KEY: ONE_HEX }).masterKey?.id(), MasterKey.fromHex(ONE_HEX)!.id())
  const nearly = 'c0ffee'.repeat(10) + 'c0f'
  for (const [argv, env, named] of [[['--master-key', nearly], {}, '--master-key'],
    [[], { PREDEX_MASTER_KEY: nearly }, 'PREDEX_MASTER_KEY']] as const) {
    try {
      config([...argv], env)
      t.fail('accepted')
    } catch (error) {
      t.ok(error instanceof ConfigError)
      t.match((error as Error).message, named, 'the error names the setting')
      t.notOk((error as Error).message.includes('c0ffee'), 'and does not repeat the value')
    }
  }
  const line = describe(config(['--master-key', ONE_HEX]))
  t.match(line, /masterKey=\(from the configuration\)/)
  t.notOk(line.includes(ONE_HEX))
  t.match(describe(config([])), /masterKey=\(from the data directory\)/)
  t.match(helpText(), /--master-key <value>\s+PREDEX_MASTER_KEY/)
  t.end()
})

t.test('stored: made once, 0600, the same at every start, never logged', (t) => {
  const dir = dataDir(t)
  const logs: string[] = []
  const first = masterKeyOf(dir, null, lineLog((line) => logs.push(line)))
  const text = readFileSync(join(dir, 'master-key'), 'utf8')
  t.equal(text, first.fileText())
  t.equal((statSync(join(dir, 'master-key')).mode & 0o777).toString(8), '600')
  t.equal((statSync(join(dir, 'master-key.id')).mode & 0o777).toString(8), '600')
  t.equal(readFileSync(join(dir, 'master-key.id'), 'utf8'), first.id() + '\n', 'the fingerprint beside it')
  t.same(readdirSync(dir).sort(), ['master-key', 'master-key.id'], 'no temporary file left')
  t.equal(logs.length, 1, 'its making is logged')
  t.notOk(logs[0]!.includes(text.trim()), 'without the key')
  t.equal(masterKeyOf(dir, null, lineLog((line) => logs.push(line))).id(), first.id(), 'the same key at the next start')
  t.equal(masterKeyOf(dir, MasterKey.fromHex(text)!, SILENT_LOG).id(), first.id(), 'and the same key configured')
  t.equal(logs.length, 1, 'made once')
  t.end()
})

t.test('configured: nothing stored but its fingerprint', (t) => {
  const dir = dataDir(t)
  const configured = MasterKey.fromHex(ONE_HEX)!
  t.equal(masterKeyOf(dir, configured, SILENT_LOG), configured)
  t.same(readdirSync(dir), ['master-key.id'])
  t.notOk(readFileSync(join(dir, 'master-key.id'), 'utf8').includes(ONE_HEX))
  t.end()
})

t.test('another key, a lost key, a corrupt key: refused, nothing written', (t) => {
  const dir = dataDir(t)
  const stored = masterKeyOf(dir, null, SILENT_LOG)
  const other = MasterKey.fromHex('ff'.repeat(32))!
  t.match(refusal(() => masterKeyOf(dir, other, SILENT_LOG)), /not the one the API keys .* derive/,
    'a configured key that is not the stored one')
  rmSync(join(dir, 'master-key'))
  t.match(refusal(() => masterKeyOf(dir, null, SILENT_LOG)), /master key is missing/, 'the key file lost')
  t.same(readdirSync(dir), ['master-key.id'], 'no new key made')
  writeFileSync(join(dir, 'master-key'), stored.fileText().slice(0, 40), { mode: 0o600 })
  t.match(refusal(() => masterKeyOf(dir, null, SILENT_LOG)), /is not a master key/, 'a truncated key file')
  writeFileSync(join(dir, 'master-key'), stored.fileText())
  t.equal(masterKeyOf(dir, null, SILENT_LOG).id(), stored.id(), 'restored from a backup: accepted')
  rmSync(join(dir, 'master-key.id'))
  t.equal(masterKeyOf(dir, other, SILENT_LOG), other, 'its fingerprint deleted: the operator gave the old keys up')
  t.end()
})

t.test('an unreadable key file is an error, not a new key', { skip: process.getuid?.() === 0 && 'root reads any file' }, (t) => {
  const dir = dataDir(t)
  masterKeyOf(dir, null, SILENT_LOG)
  chmodSync(join(dir, 'master-key'), 0o000)
  t.match(refusal(() => masterKeyOf(dir, null, SILENT_LOG)), /EACCES/)
  chmodSync(join(dir, 'master-key'), 0o600)
  t.end()
})
