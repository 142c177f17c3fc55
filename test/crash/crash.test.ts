/**
 * Crash recovery under kill -9 (reliability-anchors.md 4.1): an engine host in a child process
 * runs a seeded load; it is killed with SIGKILL at seeded random moments (CRASH_KILLS, 20 by
 * default) and restarted at once each time. After every restart: every command the child acknowledged is
 * in the journal at its sequence number; the sequence numbers have no gaps; a replay of the
 * whole journal in this process (no snapshots) reaches the state hash the restarted engine
 * reports; every invariant holds. The last part shows the test can fail: with acknowledgements
 * released before the journal write (a test-only switch), it finds lost acknowledgements.
 * Each restart starts right after the kill, without waiting for the killed child to exit; the
 * journal is checked once the last child is gone, never beside a running one.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Child, JournalReplay, checkJournal, random, type Recovered } from './harness.js'

const kills = Number(process.env.CRASH_KILLS ?? 20)
const seed = Number(process.env.CRASH_SEED ?? 20_261_123)
const RANGE = 1_000_000

function dataDir(t: { teardown: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'predex-crash-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

t.test(`${kills} kills under load, each restart at once: nothing acknowledged is lost`, async (t) => {
  t.comment(`seed ${seed} (CRASH_SEED), kills ${kills} (CRASH_KILLS)`)
  const dir = dataDir(t)
  const next = random(seed)
  const acks = new Map<number, number>()
  const recoveries: Recovered[] = []
  let killed: Child | null = null
  for (let run = 0; run <= kills; run++) {
    // Run 0 starts on an empty directory; runs 1.. start on what the previous kill left, at once:
    // the killed child may not have exited yet, and its lock goes with it (directory-lock.ts).
    const child = new Child(dir, seed, run === 0 ? 0 : run * RANGE, RANGE)
    if (killed !== null) {
      await killed.exited
      for (const [index, seq] of killed.acks) acks.set(index, seq)
    }
    const recovered = await child.recovered
    let maxAcked = 0
    for (const seq of acks.values()) maxAcked = Math.max(maxAcked, seq)
    t.ok(recovered.seq >= maxAcked, `run ${run}: recovered seq ${recovered.seq} >= last acknowledged ${maxAcked}`)
    t.ok(recovered.invariantsHold, `run ${run}: invariants hold after recovery`)
    t.ok(recovered.seq >= (recoveries.at(-1)?.seq ?? 0), 'the journal never goes back')
    recoveries.push(recovered)
    if (run < kills) await new Promise((resolve) => setTimeout(resolve, 150 + Math.floor(next() * 600)))
    void child.kill()
    killed = child
  }
  await killed!.exited
  for (const [index, seq] of killed!.acks) acks.set(index, seq)
  // The journal is read only once the last child is gone: an LMDB open beside a live writer can
  // lose the writer's latest transaction (src/journal/directory-lock.ts), so the journal refuses
  // it. Committed records never change, so one replay checks every run's recovered state in turn.
  const replay = new JournalReplay(dir, seed)
  for (const [run, recovered] of recoveries.entries()) {
    const check = await replay.check(recovered.seq, acks)
    t.same(check.problems, [], `run ${run}: journal sound, every acknowledged command in place`)
    t.equal(check.stateHash, recovered.stateHash, `run ${run}: the replay from seq 1 reaches the recovered state hash`)
  }
  const last = recoveries.at(-1)!
  const full = await checkJournal(dir, last.seq, seed, acks)
  t.same(full.problems, [], 'a fresh replay of the whole journal finds nothing wrong')
  t.equal(full.stateHash, last.stateHash, 'and reaches the same state')
  t.ok(acks.size > kills * 20, `${acks.size} commands were acknowledged across the runs`)
  t.ok(last.seq > 0, `the journal holds ${last.seq} commands`)
})

t.test('control: acknowledging before the journal write loses acknowledged commands, and the test sees it', async (t) => {
  const dir = dataDir(t)
  const next = random(seed + 1)
  const acks = new Map<number, number>()
  let lost = 0
  for (let run = 0; run < 4 && lost === 0; run++) {
    const child = new Child(dir, seed, run === 0 ? 0 : run * RANGE, RANGE, 40)
    await child.recovered
    await new Promise((resolve) => setTimeout(resolve, 300 + Math.floor(next() * 300)))
    await child.kill()
    for (const [index, seq] of child.acks) acks.set(index, seq)
    const check = await checkJournal(dir, 0, seed, acks)
    lost += check.problems.length
  }
  t.ok(lost > 0, `the checks found ${lost} problems (lost or misplaced acknowledged commands)`)
})
