/**
 * One process at a time on a data directory (src/journal/directory-lock.ts): while an engine host
 * runs in another process, opening its journal here, read-only or not, is refused before LMDB is
 * touched, and so is a second host; once that process is killed (-9), its lock is stale and the
 * next open takes it over. Threads of one process share the environment, so a read-only open
 * beside this process's own host goes ahead and leaves the host's lock in place.
 */
import t from 'tap'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EngineHost } from '../../src/host/engine-host.js'
import { DataDirectoryInUseError, LOCK_FILE } from '../../src/journal/directory-lock.js'
import { Journal } from '../../src/journal/journal.js'
import { Child } from './harness.js'

function dataDir(t: { teardown: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'predex.lock-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function refusalOf(open: () => Journal): unknown {
  try {
    void open().close()
    return null
  } catch (error) {
    return error
  }
}

t.test('a live host in another process keeps every other process off its journal', async (t) => {
  const dir = dataDir(t)
  const child = new Child(dir, 5, 0, 1_000_000)
  t.teardown(() => void child.kill())
  await child.recovered
  t.equal(readFileSync(join(dir, LOCK_FILE), 'utf8').trim(), String(child.pid), 'the lock names the host\'s process')
  for (const readOnly of [true, false]) {
    const refusal = refusalOf(() => Journal.open({ path: dir, durability: 'sync', readOnly }))
    t.ok(refusal instanceof DataDirectoryInUseError && refusal.pid === child.pid,
      `a ${readOnly ? 'read-only' : 'writing'} open here is refused, naming process ${child.pid}`)
  }
  const second = new Child(dir, 5, 2_000_000, 10)
  t.teardown(() => void second.kill())
  await t.rejects(second.recovered, /DataDirectoryInUseError.*in use by process/, 'a second host does not start')
  await child.kill()
  t.ok(child.acks.size > 0, `the host kept working meanwhile (${child.acks.size} commands acknowledged)`)

  // kill -9 left the lock behind; its process is gone, so it is stale.
  t.ok(existsSync(join(dir, LOCK_FILE)), 'kill -9 leaves the lock file')
  const journal = Journal.open({ path: dir, durability: 'sync', readOnly: true })
  t.ok(journal.lastSeq() > 0, 'the stale lock is taken over and the journal reads')
  t.equal(readFileSync(join(dir, LOCK_FILE), 'utf8').trim(), String(process.pid))
  await journal.close()
  t.notOk(existsSync(join(dir, LOCK_FILE)), 'closing the journal removes the lock it owned')
})

t.test('threads of one process share the journal; only the owner removes the lock', async (t) => {
  const dir = dataDir(t)
  const host = await EngineHost.start({ dataDir: dir, hashSeed: 1 })
  const reader = Journal.open({ path: dir, durability: 'sync', readOnly: true })
  reader.lastSeq()
  await reader.close()
  t.equal(readFileSync(join(dir, LOCK_FILE), 'utf8').trim(), String(process.pid), 'the host\'s lock stays')
  await host.stop()
  t.notOk(existsSync(join(dir, LOCK_FILE)), 'the host removes it when it stops')
})

t.test('a lock whose process is gone is stale; one being written is not', async (t) => {
  const dir = dataDir(t)
  await Journal.open({ path: dir, durability: 'sync' }).close()
  writeFileSync(join(dir, LOCK_FILE), '2147483646\n') // no such process
  const journal = Journal.open({ path: dir, durability: 'sync' })
  t.equal(readFileSync(join(dir, LOCK_FILE), 'utf8').trim(), String(process.pid), 'a lock of a process that is gone is taken over')
  await journal.close()
  writeFileSync(join(dir, LOCK_FILE), '')
  t.throws(() => Journal.open({ path: dir, durability: 'sync' }), DataDirectoryInUseError,
    'an empty lock file is a lock being taken: refused, not taken over')
})
