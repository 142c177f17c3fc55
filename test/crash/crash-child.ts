/**
 * The process the crash test kills: an engine host on a data directory, under load. It prints
 * one line per fact the parent checks:
 *   recovered <seq> <stateHash> <invariantsHold>   after recovery, before any new command
 *   ack <index> <seq>                               after the result of command <index> came back
 *                                                   (journaled commands only: see below)
 * and nothing else on stdout. Each run submits a fresh range of command indexes.
 * Arguments: <dataDir> <seed> <firstIndex> <count> [unsafeAckBeforeJournalMs]
 */
import { EngineHost } from '../../src/host/engine-host.js'
import { PredexError } from '../../src/errors.js'
import { commandOf } from './load.js'

const [dataDir, seedText, firstText, countText, unsafeText] = process.argv.slice(2)
const seed = Number(seedText)
const first = Number(firstText)
const count = Number(countText)
const IN_FLIGHT = 8

const host = await EngineHost.start({
  dataDir: dataDir!, hashSeed: seed, snapshotEveryCommands: 2_000, unsafeAckBeforeJournalMs: Number(unsafeText ?? 0),
})
const state = await host.query({ kind: 'stateHash' })
if (state.kind !== 'stateHash') throw new Error('unexpected answer')
process.stdout.write(`recovered ${state.seq} ${state.stateHash} ${state.invariantsHold}\n`)

let next = first
const end = first + count
async function lane(): Promise<void> {
  while (next < end) {
    const index = next++
    for (;;) {
      try {
        const outcome = await host.submit(commandOf(seed, index))
        // A command that changed nothing is answered but not journaled: it promises nothing durable.
        if (outcome.recorded) process.stdout.write(`ack ${index} ${outcome.seq}\n`)
        break
      } catch (error) {
        if (!(error instanceof PredexError && error.code === 'ENGINE_BUSY')) throw error
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
  }
}
await Promise.all(Array.from({ length: IN_FLIGHT }, lane))
await host.stop()
