/**
 * The binary outcome batches (src/codec/outcome-codec.ts) give back exactly what went in: every
 * result and event kind the simulation's workload provokes (all rules of docs/engine.md), in
 * batches of many sizes, compared field by field with what a twin engine's `apply` reads back
 * for each command alone. Also the values a refusal's context may carry (any number, NaN and -0
 * included, booleans, non-ASCII text), and that a damaged batch is refused, not misread.
 */
import t from 'tap'
import { isDeepStrictEqual } from 'node:util'
import { changedState, Engine } from '../../../src/engine/engine.js'
import type { Command } from '../../../src/engine/command.js'
import { crossingEvents, type AppliedOutcome, type Outcome } from '../../../src/host/messages.js'
import { decodeOutcomes, OutcomeHeads, OutcomeWriter } from '../../../src/codec/outcome-codec.js'
import { EventLog } from '../../../src/engine/event-log.js'
import { OrderTable } from '../../../src/engine/order-table.js'
import { Workload } from '../../simulation/workload.js'
import { seedOf } from '../../support/seed.js'

const SEED = seedOf('OUTCOME_CODEC_SEED')
const COMMANDS = 6_000

/**
 * Runs a simulated stream through two engines: one as the worker does (`execute`, the events left
 * in its log, cut into batches of many sizes and encoded with them), and its twin through `apply`,
 * which reads each command's events back on its own: what every decoded outcome must equal. Odd
 * batches go without events, as they do while nobody on the main thread reads them.
 */
t.test(`every outcome of a simulated stream survives the round trip (seed ${SEED})`, (t) => {
  const engine = new Engine()
  const twin = new Engine()
  const workload = new Workload({ seed: SEED })
  const writer = new OutcomeWriter()
  const kinds = new Set<string>()
  const results = new Set<string>()
  let done = 0
  let size = 1
  for (let batchIndex = 0; done < COMMANDS; batchIndex++) {
    const withEvents = batchIndex % 2 === 0
    const applied: AppliedOutcome[] = []
    const expected: Outcome[] = []
    for (let i = 0; i < size && done < COMMANDS; i++, done++) {
      const command = { ...workload.next(), seq: engine.seq + 1, timeMs: 1_700_000_000_000 + done * 10 } as Command
      const { result: twinResult, events } = twin.apply(command)
      workload.observe(command, twinResult, events)
      engine.execute(command)
      applied.push({ requestId: done + 1, seq: engine.seq, timeMs: command.timeMs, recorded: engine.changed,
        end: engine.log.length })
      expected.push({ requestId: done + 1, seq: twin.seq, timeMs: command.timeMs, recorded: changedState(events),
        result: twinResult, events: withEvents ? crossingEvents(events) : [] })
      for (const event of events) kinds.add(event.type)
      results.add(resultKindOf(twinResult))
    }
    const decoded = decodeOutcomes(writer.encode(OutcomeHeads.of(applied), 0, engine.log, withEvents))
    engine.log.clear()
    if (!isDeepStrictEqual(decoded, expected)) {
      const at = decoded.findIndex((outcome, i) => !isDeepStrictEqual(outcome, expected[i]))
      t.same(decoded[at], expected[at], `outcome ${done - applied.length + at} differs after the round trip`)
      break
    }
    size = (size * 3) % 997 + 1
  }
  t.equal(done, COMMANDS, 'every batch decoded to what the twin engine read back')
  t.same([...results].sort(), ['batch', 'canceled', 'done', 'placed', 'rejection', 'rejection with order'],
    'the stream carried every kind of result')
  for (const kind of ['orderAccepted', 'orderUpdate', 'trade', 'bookLevel', 'balance', 'ledger', 'marketCreated',
    'marketUpdated', 'allowance', 'apiKey', 'orderRejected']) {
    t.ok(kinds.has(kind), `the stream carried ${kind} events`)
  }
  t.end()
})

function resultKindOf(result: unknown): string {
  const record = result as Record<string, unknown>
  if (record.ok === false) return 'orderId' in record ? 'rejection with order' : 'rejection'
  if ('results' in record) return 'batch'
  if ('canceled' in record) return 'canceled'
  return 'orderId' in record ? 'placed' : 'done'
}

t.test('a refusal\'s context round-trips exactly, whatever number or text it holds', (t) => {
  const context = { negative: -42, fraction: 0.1, minusZero: -0, huge: Number.MAX_SAFE_INTEGER, beyond: 2 ** 60,
    nan: NaN, infinite: -Infinity, yes: true, no: false, text: 'prix réservé 💸', empty: '' }
  const log = new EventLog(new OrderTable())
  log.resultRejection('X', 'prix réservé 💸', context, 'ordre réservé')
  const first = log.length
  log.resultRejection('Y', 'm', null, null)
  const [outcome, plain] = decodeOutcomes(new OutcomeWriter().encode(OutcomeHeads.of([
    { requestId: 2 ** 40, seq: 0, timeMs: 0, recorded: false, end: first },
    { requestId: 2 ** 40 + 1, seq: 0, timeMs: 0, recorded: false, end: log.length }]), 0, log, true))
  const result = outcome!.result as unknown as { context: typeof context; orderId: string; message: string }
  t.same(result, { ok: false, code: 'X', message: 'prix réservé 💸', context, orderId: 'ordre réservé' })
  t.equal(Object.keys(result.context).join(), Object.keys(context).join(), 'keys in their order')
  t.ok(Object.is(result.context.minusZero, -0), '-0 stays -0')
  t.ok(Number.isNaN(result.context.nan), 'NaN stays NaN')
  t.equal(result.context.beyond, 2 ** 60, 'a number beyond 2^53 stays itself')
  t.same(plain!.result, { ok: false, code: 'Y', message: 'm', context: null }, 'a refusal without context or order')
  t.end()
})

/** An engine that executed `count` commands of a simulated stream, and their outcomes (its log holds their events). */
function executed(seed: number, count: number): { engine: Engine; outcomes: AppliedOutcome[] } {
  const engine = new Engine()
  const workload = new Workload({ seed })
  const outcomes: AppliedOutcome[] = []
  for (let i = 1; i <= count; i++) {
    const command = { ...workload.next(), seq: engine.seq + 1, timeMs: 1_700_000_000_000 + i * 10 } as Command
    engine.execute(command)
    workload.observe(command, { ok: true }, [])
    outcomes.push({ requestId: i, seq: engine.seq, timeMs: command.timeMs, recorded: engine.changed,
      end: engine.log.length })
  }
  return { engine, outcomes }
}

/** A batch of `outcomes` with their events, as the worker encodes a group's. */
function encoded(outcomes: readonly AppliedOutcome[], log: EventLog): ArrayBuffer {
  return new OutcomeWriter().encode(OutcomeHeads.of(outcomes), 0, log, true)
}

t.test('a damaged batch is refused', (t) => {
  const { engine, outcomes } = executed(SEED + 1, 50)
  const bytes = new Uint8Array(encoded(outcomes, engine.log))
  t.ok(decodeOutcomes(bytes.slice().buffer).some((outcome) => outcome.events.length > 0), 'the batch carries events')
  const last = outcomes.length - 1
  const beyond = outcomes.map((outcome, i) => i === last ? { ...outcome, end: outcome.end + 1 } : outcome)
  t.throws(() => decodeOutcomes(encoded(beyond, engine.log)), 'a command\'s records past the batch\'s')
  const short = outcomes.map((outcome, i) => i === last ? { ...outcome, end: outcome.end - 1 } : outcome)
  t.throws(() => decodeOutcomes(encoded(short, engine.log)), 'records that belong to no outcome')
  const merged = outcomes.map((outcome, i) => i === last - 1 ? { ...outcome, end: outcomes[last]!.end } : outcome)
    .slice(0, last)
  t.throws(() => decodeOutcomes(encoded(merged, engine.log)), 'two results in one outcome')
  t.throws(() => decodeOutcomes(bytes.slice(0, bytes.length - 3).buffer), 'a truncated batch')
  t.throws(() => decodeOutcomes(Uint8Array.from([...bytes, 0]).buffer), 'trailing bytes')
  engine.log.stringCount = 1
  t.throws(() => decodeOutcomes(encoded(outcomes, engine.log)), 'a record naming a string not listed')
  // One outcome (request 1, seq 1, time 1, recorded), ending at word 1, events kept, no strings, one word:
  // the preamble (count, events kept, strings, words), the head, the word.
  const oneWord = (word: number, flag = 1): ArrayBuffer =>
    Float64Array.from([1, flag, 0, 1, 1, 1, 1, 1, 1, word]).buffer
  t.same(decodeOutcomes(oneWord(8))[0]!.result, { ok: true }, 'the hand-made batch reads (a done result)')
  t.throws(() => decodeOutcomes(oneWord(8, 2)), 'a flag that is neither 0 nor 1')
  t.throws(() => decodeOutcomes(oneWord(0xee)), 'an unknown record kind')
  t.throws(() => decodeOutcomes(oneWord(10)), 'a result that ends inside its batch')
  t.throws(() => decodeOutcomes(oneWord(4)), 'an event that ends inside its batch')
  const fraction = new Float64Array(oneWord(8))
  fraction[5] = 1.5
  t.throws(() => decodeOutcomes(fraction.buffer), 'a head that is not a whole number')
  t.end()
})
