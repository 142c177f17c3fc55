import { mkdtempSync, existsSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
const dir = '/work/main/dist'
const journalDir = '/tmp/w/replay-journal'
const load = (p) => import(`${dir}/${p}`)
if (process.argv[2] === 'write') {
  const { EngineHost } = await load('src/host/engine-host.js')
  const { generateStream } = await load('bench/engine-stream.js')
  const { setupCommands, engineCommands } = await load('bench/engine-adapters.js')
  const stream = generateStream({ seed: 42, commands: 400_000, iocSizeMax: 400, tradersPerSide: 50 })
  const setup = setupCommands(100)
  const unstamped = ({ seq: _seq, timeMs: _timeMs, ...command }) => command
  const host = await EngineHost.start({ dataDir: journalDir, snapshotEveryCommands: Number.MAX_SAFE_INTEGER })
  for (const command of setup) await host.submit(unstamped(command))
  const pending = []
  for (const command of engineCommands(stream, setup.length + 1, 0.4, 42)) {
    pending.push(host.submit(unstamped(command)))
    if (pending.length >= 2_000) await Promise.all(pending.splice(0))
  }
  await Promise.all(pending)
  await host.stop()
} else {
  const { Journal } = await load('src/journal/journal.js')
  const { recover } = await load('src/journal/recovery.js')
  const journal = Journal.open({ path: journalDir, durability: 'sync', readOnly: true })
  const started = performance.now()
  const recovery = recover(journal, 1, () => performance.now())
  const ms = performance.now() - started
  console.log(`replayed ${recovery.replayed} in ${ms.toFixed(0)} ms: ${(recovery.replayed / ms).toFixed(0)} k/s`)
  await journal.close()
}
