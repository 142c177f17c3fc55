#!/usr/bin/env node
/**
 * Shows why a Predex data directory is locked to one process (src/journal/directory-lock.ts,
 * docs/host.md "One process per data directory"): a process that opens the journal's LMDB
 * environment while another process writes it, even read-only and only to read one key, can make
 * the writer lose a committed transaction. lmdb-js's open sets the shared "last transaction id"
 * of the lock file from the meta page it read, without the writer's mutex; if the writer
 * committed in between, the id goes back and the writer's next transaction builds on the older
 * root. Its records vanish though their writes resolved (and were flushed): a gap of one batch.
 *
 *   node scripts/lmdb-open-race.mjs [--rounds N] [--opens N]
 *
 * A writer child appends numbered records with the journal's settings (overlappingSync, one
 * batch in flight), skipping the directory lock as an outside tool would; this process opens and
 * closes the environment read-only `--opens` times (300) beside it with plain lmdb-js, then kills
 * the writer and reads the records back in a fresh process. Up to `--rounds` rounds (10), about
 * 5 s each. Exits 0 and prints the gap when it has seen one, 1 if it saw none. Every record below
 * the last one read back was acknowledged: the writer starts a batch once the previous one is flushed.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { open } from 'lmdb'

const [role, dir] = process.argv.slice(2)
if (role === '--writer') await writer(dir)
else if (role === '--read') read(dir)
else await main()

async function main() {
  const args = process.argv.slice(2)
  const flag = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback)
  const rounds = flag('--rounds', 10)
  const opens = flag('--opens', 300)
  for (let round = 1; round <= rounds; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'predex-race-'))
    try {
      const result = await raceOnce(dir, opens)
      console.log(`round ${round}: ${result.acknowledged} batches acknowledged up to record ${result.maxAcked}; ` +
        `records read back: ${result.gaps.length === 0 ? 'no gap' : result.gaps.join(', ')}`)
      if (result.gaps.length > 0) {
        console.log('reproduced: records whose writes had resolved are missing, with later records present')
        process.exit(0)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  console.log(`not reproduced in ${rounds} rounds`)
  process.exit(1)
}

async function raceOnce(dir, opens) {
  const child = spawn(process.execPath, [process.argv[1], '--writer', dir], { stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  let maxAcked = 0
  let acknowledged = 0
  const started = new Promise((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'started') resolve()
      else {
        maxAcked = Number(line)
        acknowledged++
      }
    })
  })
  await started
  for (let i = 0; i < opens; i++) {
    const root = open({ path: dir, readOnly: true, noSubdir: false, maxDbs: 4 })
    const commands = root.openDB({ name: 'commands', encoding: 'binary' })
    for (const key of commands.getKeys({ reverse: true, limit: 1 })) void key
    await root.close()
  }
  child.kill('SIGKILL')
  await exited
  const gaps = JSON.parse(execFileSync(process.execPath, [process.argv[1], '--read', dir]).toString())
  return { maxAcked, acknowledged, gaps }
}

/** Appends batches of 1-40 records, the next once the previous one is flushed, as the engine worker does. */
async function writer(dir) {
  const root = open({ path: dir, noSubdir: false, maxDbs: 4, overlappingSync: true, separateFlushed: true })
  const commands = root.openDB({ name: 'commands', encoding: 'binary' })
  let seq = 0
  process.stdout.write('started\n')
  for (;;) {
    const count = 1 + Math.floor(Math.random() * 40)
    const writes = []
    for (let i = 0; i < count; i++) writes.push(commands.put(++seq, Buffer.alloc(64 + (i % 7) * 32)))
    await Promise.all([Promise.all(writes), writes[writes.length - 1].flushed])
    process.stdout.write(`${seq}\n`)
  }
}

/** Prints the gaps in the record numbers as JSON. */
function read(dir) {
  const root = open({ path: dir, readOnly: true, noSubdir: false, maxDbs: 4 })
  const commands = root.openDB({ name: 'commands', encoding: 'binary' })
  const gaps = []
  let last = 0
  for (const key of commands.getKeys()) {
    if (key !== last + 1) gaps.push(`${last} is followed by ${key}`)
    last = key
  }
  console.log(JSON.stringify(gaps))
}
