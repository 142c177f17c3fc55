/**
 * The event log's own rules (src/engine/event-log.ts): a batch names only its own strings, so a
 * batch of many commands read alone gives the same events as the commands read one by one; `changed` says whether
 * a command wrote anything but a refusal; the time-in-force codes agree with the reader's list.
 * The events' values themselves are checked against the reference model by the simulation.
 */
import t from 'tap'
import { Engine } from '../../../src/engine/engine.js'
import type { Command } from '../../../src/engine/command.js'
import type { EngineEvent } from '../../../src/engine/event.js'
import { TIME_IN_FORCE_CODES, timeInForceCode } from '../../../src/engine/event-log.js'
import { EventReader } from '../../../src/engine/event-reader.js'
import { Workload } from '../../simulation/workload.js'
import { seedOf } from '../../support/seed.js'

const SEED = seedOf('EVENT_LOG_SEED')
const COMMANDS = 3_000

t.test(`batches of many commands read back as each command's own events (seed ${SEED})`, (t) => {
  const batched = new Engine()
  const single = new Engine()
  const workload = new Workload({ seed: SEED })
  let done = 0
  let mismatch: string | null = null
  let changedWrong = 0
  let batches = 0
  for (let size = 1; done < COMMANDS && mismatch === null; size = (size * 5) % 211 + 1) {
    const expected: EngineEvent[][] = []
    const ends: number[] = []
    for (let i = 0; i < size && done < COMMANDS; i++, done++) {
      const command = { ...workload.next(), seq: single.seq + 1, timeMs: 1_700_000_000_000 + done } as Command
      const { result, events } = single.apply(command)
      workload.observe(command, result, events)
      batched.execute(command)
      if (batched.changed !== events.some((event) => event.type !== 'orderRejected')) changedWrong++
      expected.push(events)
      ends.push(batched.log.length)
    }
    // Read alone, with the strings of its own batch only: any name left from the batch before fails here.
    const reader = new EventReader(batched.log.take())
    batches++
    for (let i = 0; i < ends.length && mismatch === null; i++) {
      const read: EngineEvent[] = []
      reader.readUntil(ends[i]!, read)
      if (JSON.stringify(read) !== JSON.stringify(expected[i])) mismatch = `command ${done - ends.length + i}`
    }
    if (!reader.atEnd) mismatch = `batch ${batches} holds more than its commands' events`
  }
  t.equal(mismatch, null, `every command of ${batches} batches reads back exactly, keys in order`)
  t.equal(changedWrong, 0, '`changed` is true exactly when a command wrote more than a refusal')
  t.end()
})

t.test('the time-in-force codes are the reader\'s list', (t) => {
  for (const [code, timeInForce] of TIME_IN_FORCE_CODES.entries()) t.equal(timeInForceCode(timeInForce), code, timeInForce)
  t.end()
})
