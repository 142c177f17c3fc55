/**
 * Start = the newest sound snapshot + the journal after it. The state is then checked against
 * every invariant before the engine opens its doors; a journal that cannot be trusted stops the
 * start (JournalCorruptError).
 */
import { Engine, type EngineOptions } from '../engine/engine.js'
import { checkInvariants } from '../engine/invariants.js'
import { decodeSnapshot } from '../engine/snapshot.js'
import type { Journal } from './journal.js'

export interface Recovery {
  readonly engine: Engine
  /** Seq of the snapshot started from (0: none). */
  readonly snapshotSeq: number
  /** Snapshots skipped because they were damaged. */
  readonly snapshotsSkipped: number
  readonly replayed: number
  readonly ms: number
}

/**
 * `endedOrdersRetained`: the journal's own (Journal.endedOrdersRetained), which its commands were
 * applied with. `upToSeq`: stop there rather than at the journal's end (the snapshot thread's
 * replica starts where the engine worker's recovery ended, while the journal grows).
 */
export function recover(journal: Journal, hashSeed: number, now: () => number, endedOrdersRetained?: number,
  upToSeq = Number.MAX_SAFE_INTEGER): Recovery {
  const started = now()
  const options = { hashSeed, endedOrdersRetained }
  let engine: Engine | null = null
  let snapshotsSkipped = 0
  for (const snapshot of journal.snapshotsNewestFirst()) {
    if (snapshot.seq > upToSeq) continue
    engine = snapshot.bytes === null ? null : decodeOrNull(snapshot.bytes, options)
    if (engine !== null && engine.seq === snapshot.seq) break
    engine = null
    snapshotsSkipped++
  }
  engine ??= new Engine(options)
  const snapshotSeq = engine.seq
  let replayed = 0
  // Nobody reads a replayed command's events: applyForReplay builds none (same state).
  replay: for (const commands of journal.batchesAfter(engine.seq)) {
    for (let i = 0; i < commands.length; i++) {
      const command = commands[i]!
      if (command.seq > upToSeq) break replay
      engine.applyForReplay(command)
      replayed++
    }
  }
  checkInvariants(engine)
  return { engine, snapshotSeq, snapshotsSkipped, replayed, ms: now() - started }
}

function decodeOrNull(bytes: Uint8Array, options: EngineOptions): Engine | null {
  try {
    return decodeSnapshot(bytes, options)
  } catch {
    return null
  }
}
