/**
 * Bringing the read model up to the journal at start: if it is behind (a crash after the journal
 * flush but before its own write), the missing events are produced again by replaying the
 * journal in a scratch engine from a snapshot at or before the read model's seq (or from seq 1),
 * and projected. The engine is deterministic, so these are the events it produced the first time.
 * Any projection with a seq catches up the same way (settlement on a real chain does:
 * src/service/testnet/settlement.ts).
 */
import { Engine } from '../engine/engine.js'
import type { EngineEvent } from '../engine/event.js'
import { decodeSnapshot } from '../engine/snapshot.js'
import { Journal } from '../journal/journal.js'

/** What catches up: the last seq it has, and how it takes a command's events. */
export interface CatchUpProjection {
  readonly seq: number
  apply(seq: number, events: readonly EngineEvent[], timeMs: number): void
}

export function catchUp(dataDir: string, model: CatchUpProjection, upToSeq: number): number {
  if (model.seq >= upToSeq) return 0
  const journal = Journal.open({ path: dataDir, durability: 'sync', readOnly: true })
  try {
    let engine: Engine | null = null
    const options = { endedOrdersRetained: journal.endedOrdersRetained(null) }
    for (const snapshot of journal.snapshotsNewestFirst()) {
      if (snapshot.seq > model.seq || snapshot.bytes === null) continue
      try {
        engine = decodeSnapshot(snapshot.bytes, options)
        break
      } catch {
        engine = null
      }
    }
    engine ??= new Engine(options)
    let projected = 0
    for (const record of journal.recordsAfter(engine.seq)) {
      if (record.seq > upToSeq) break
      if (record.seq <= model.seq) {
        // Already in the model: only the engine's state is needed, so no events are written.
        engine.applyForReplay(record.command)
        continue
      }
      const { events } = engine.apply(record.command)
      model.apply(record.seq, events, record.command.timeMs)
      projected++
    }
    return projected
  } finally {
    void journal.close()
  }
}
