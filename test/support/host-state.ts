/**
 * What the replication tests ask of engine hosts: a temporary data directory removed when the
 * test ends, and a host's seq and state hash (the engine's own query), to compare two nodes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { EngineHost } from '../../src/host/engine-host.js'

export function tempDataDir(t: { teardown: (fn: () => void) => void }, prefix = 'predex-host-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export async function stateOf(host: EngineHost): Promise<{ seq: number; stateHash: string }> {
  const answer = await host.query({ kind: 'stateHash' })
  if (answer.kind !== 'stateHash') throw new Error('unexpected answer')
  return { seq: answer.seq, stateHash: answer.stateHash }
}
