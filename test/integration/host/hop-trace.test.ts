/**
 * The hop trace (src/host/hop-trace.ts, benchmarks only): with `hopTrace`, each request is marked
 * as it passes each hop, on the main thread and on the engine worker, within the time its caller
 * waited; without it the host keeps no trace.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EngineHost } from '../../../src/host/engine-host.js'
import { HOPS } from '../../../src/host/hop-trace.js'

/** The threads' clocks are read apart (performance.timeOrigin per thread): allow them this much. */
const CLOCK_SLACK_MS = 1

const now = (): number => performance.timeOrigin + performance.now()

t.test('each request is marked at each hop, in order, while its caller waits', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'predex.hops-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const host = await EngineHost.start({ dataDir: dir, hashSeed: 1, hopTrace: true })
  const trace = host.hopTrace!
  for (let i = 0; i < 20; i++) {
    const requestId = host.nextRequest
    const started = now()
    await host.submit({ kind: 'credit', address: '0x' + (i + 1).toString(16).padStart(40, '0'), usdcMicros: 1,
      gasMicros: 0 })
    const ended = now()
    const marks = HOPS.map((hop) => trace.at(requestId, hop))
    if (marks.some((mark) => mark < started - CLOCK_SLACK_MS || mark > ended + CLOCK_SLACK_MS)) {
      t.fail(`request ${requestId}: marks ${marks.map((m) => (m - started).toFixed(3)).join(' ')} ms outside its wait`)
    }
    for (let h = 1; h < marks.length; h++) {
      if (marks[h]! < marks[h - 1]! - CLOCK_SLACK_MS) t.fail(`request ${requestId}: ${HOPS[h]} before ${HOPS[h - 1]}`)
    }
  }
  await host.stop()
  t.pass('20 requests, each marked at every hop')
})

t.test('without the option there is no trace', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'predex.hops-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const host = await EngineHost.start({ dataDir: dir, hashSeed: 1 })
  t.equal(host.hopTrace, null)
  await host.stop()
})
