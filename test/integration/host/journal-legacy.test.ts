/**
 * A journal written before batch records (one record per command in the `commands` database)
 * still opens: the host recovers it to the state a replay of its commands reaches, goes on
 * writing batches after it, and a restart reads both kinds in order to the same state. Retention
 * prunes the old records as it does batches.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { open } from 'lmdb'
import { EngineHost } from '../../../src/host/engine-host.js'
import { Engine } from '../../../src/engine/engine.js'
import { stateHashOf } from '../../../src/engine/snapshot.js'
import type { Command } from '../../../src/engine/command.js'
import { encodeStampedCommand } from '../../../src/codec/command-codec.js'
import { Journal, LEGACY_COMMANDS_DB, sealed } from '../../../src/journal/journal.js'
import { commandOf } from '../../crash/load.js'

const SEED = 5
const OLD_COMMANDS = 300
const HASH_SEED = 9

/** Writes `count` commands of the crash test's stream as the journal of before batches kept them. */
async function legacyJournal(dir: string, count: number): Promise<Engine> {
  const reference = new Engine({ hashSeed: HASH_SEED })
  const root = open({ path: dir, maxDbs: 4, noSubdir: false })
  const commands = root.openDB<Buffer, number>({ name: LEGACY_COMMANDS_DB, encoding: 'binary' })
  for (let index = 0; index < count; index++) {
    const command = { ...commandOf(SEED, index), seq: index + 1, timeMs: 1_700_000_000_000 + index } as Command
    reference.apply(command)
    await commands.put(command.seq, sealed(encodeStampedCommand(command)))
  }
  await root.close()
  return reference
}

async function stateHash(host: EngineHost): Promise<string> {
  const answer = await host.query({ kind: 'stateHash' })
  if (answer.kind !== 'stateHash') throw new Error('unexpected answer')
  return answer.stateHash
}

t.test('a journal of single-command records recovers, and batches follow it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'predex.legacy-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const reference = await legacyJournal(dir, OLD_COMMANDS)

  const host = await EngineHost.start({ dataDir: dir, hashSeed: HASH_SEED, snapshotEveryCommands: 1_000_000 })
  t.equal(host.recovered.seq, OLD_COMMANDS, 'every old record replayed')
  t.equal(await stateHash(host), stateHashOf(reference), 'to the state a replay of its commands reaches')
  const credits = Array.from({ length: 40 }, (_, i) => host.submit({ kind: 'credit',
    address: '0x' + (i + 1).toString(16).padStart(40, '0'), usdcMicros: 1, gasMicros: 0 }))
  const lastSeq = Math.max(...(await Promise.all(credits)).map((o) => o.seq))
  t.equal(lastSeq, OLD_COMMANDS + 40, 'new commands continue the sequence')
  const before = await stateHash(host)
  await host.stop()

  const restarted = await EngineHost.start({ dataDir: dir, hashSeed: HASH_SEED })
  t.equal(restarted.recovered.seq, lastSeq, 'a restart reads the old records, then the batches')
  t.equal(await stateHash(restarted), before, 'to the same state')
  await restarted.stop()

  const journal = Journal.open({ path: dir, durability: 'sync' })
  t.same([...journal.commandRecords(1)].map((r) => r.seq), Array.from({ length: lastSeq }, (_, i) => i + 1),
    'the records read as one sequence, without gaps')
  t.equal(await journal.pruneCommandsThrough(OLD_COMMANDS), OLD_COMMANDS, 'retention prunes the old records')
  t.equal(journal.firstSeq(), OLD_COMMANDS + 1, 'the journal then starts with the batches')
  await journal.pruneCommandsThrough(lastSeq - 1)
  t.same([...journal.commandRecords(lastSeq)].map((r) => r.seq), [lastSeq],
    'a batch goes only once all its commands are past: the one holding the last seq stays')
  t.equal(journal.lastSeq(), lastSeq)
  await journal.close()
})
