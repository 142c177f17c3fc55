/**
 * The data directory holds API secrets, the admin key and the journal: no other user of the
 * machine may read it. A server makes it 0700 (an existing one is narrowed too) and every file in
 * it, the read store's included, 0600, whatever the umask.
 */
import t from 'tap'
import { chmodSync, mkdtempSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from '../support/rest-harness.js'

function modeOf(path: string): number {
  return statSync(path).mode & 0o777
}

/** Every file and folder below `dir` whose group or others may read, write or enter it. */
function openToOthers(dir: string): string[] {
  const found: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if ((modeOf(path) & 0o077) !== 0) found.push(`${path} ${modeOf(path).toString(8)}`)
    if (statSync(path).isDirectory()) found.push(...openToOthers(path))
  }
  return found
}

t.test('a new data directory: 0700, every file in it 0600', async (t) => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'predex.perm-')), 'data')
  const server = await startServer({ dataDir })
  t.teardown(() => server.stop())
  await server.trader(0) // an API secret is journaled
  t.equal(modeOf(dataDir).toString(8), '700')
  t.same(openToOthers(dataDir), [], 'nothing below it is open to others')
})

t.test('an existing data directory made by someone with a wide umask is narrowed at start', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'predex.perm-'))
  chmodSync(dataDir, 0o755)
  const server = await startServer({ dataDir })
  t.teardown(() => server.stop())
  t.equal(modeOf(dataDir).toString(8), '700')
  t.same(openToOthers(dataDir), [])
})
