// What one synchronous LMDB commit costs in CPU, as the journal commits a group (src/journal/
// journal.ts appendSync: data pages, fdatasync, meta page, sync): COMMITS commits of one record of
// BYTES bytes, one after another, and the process's CPU time (user and system) divided by them.
// At light load a group holds one or two orders, so each order pays most of a commit.
//
//   node scripts/commit-cpu.mjs [BYTES=300]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { open } from 'lmdb'

const COMMITS = 2_000
const bytes = Number(process.argv[2] ?? 300)
const dir = mkdtempSync(join(tmpdir(), 'predex-commit-cpu-'))
const root = open({ path: dir, encoding: 'binary', overlappingSync: false })
const record = Buffer.alloc(bytes, 0x5a)
try {
  const cpu = process.cpuUsage()
  const started = performance.now()
  for (let i = 1; i <= COMMITS; i++) root.transactionSync(() => root.putSync(i, record))
  const used = process.cpuUsage(cpu)
  const wallMs = performance.now() - started
  console.log(`${COMMITS} commits of ${bytes} bytes: ${(wallMs * 1000 / COMMITS).toFixed(0)} us each; CPU per commit ` +
    `${((used.user + used.system) / COMMITS).toFixed(0)} us (system ${(used.system / COMMITS).toFixed(0)} us)`)
} finally {
  await root.close()
  rmSync(dir, { recursive: true, force: true })
}
