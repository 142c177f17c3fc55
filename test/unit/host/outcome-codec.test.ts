/**
 * The binary outcome batches (src/host/outcome-codec.ts) give back exactly what went in: every
 * result and event kind the simulation's workload provokes (all rules of docs/engine.md), in
 * batches of many sizes, compared field by field with the engine's own objects. Also the values
 * an engine does not make today but the encoding promises to carry (negative and fractional
 * numbers, -0, undefined, non-ASCII text), and that a damaged batch is refused, not misread.
 * Results of the common shapes (src/host/result-shape.ts) go by position: every result of the
 * stream has one, and anything that differs from a shape in the least goes the generic way.
 */
import t from 'tap'
import { isDeepStrictEqual } from 'node:util'
import { changedState, Engine } from '../../../src/engine/engine.js'
import type { Command } from '../../../src/engine/command.js'
import { crossingEvents, type AppliedOutcome, type Outcome } from '../../../src/host/messages.js'
import { decodeOutcomes, OutcomeWriter } from '../../../src/host/outcome-codec.js'
import { resultShapeOf } from '../../../src/host/result-shape.js'
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
  let shapeless = 0
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
      const result = engine.execute(command)
      applied.push({ requestId: done + 1, seq: engine.seq, timeMs: command.timeMs, recorded: engine.changed, result,
        eventsEnd: engine.log.length })
      expected.push({ requestId: done + 1, seq: twin.seq, timeMs: command.timeMs, recorded: changedState(events),
        result: twinResult, events: withEvents ? crossingEvents(events) : [] })
      for (const event of events) kinds.add(event.type)
      if (resultShapeOf(result as never) === null) shapeless++
    }
    const decoded = decodeOutcomes(writer.encode(applied, withEvents ? engine.log : null))
    engine.log.clear()
    if (!isDeepStrictEqual(decoded, expected)) {
      const at = decoded.findIndex((outcome, i) => !isDeepStrictEqual(outcome, expected[i]))
      t.same(decoded[at], expected[at], `outcome ${done - applied.length + at} differs after the round trip`)
      break
    }
    size = (size * 3) % 997 + 1
  }
  t.equal(done, COMMANDS, 'every batch decoded to what the twin engine read back')
  t.equal(shapeless, 0, 'every result of the stream is written by position')
  for (const kind of ['orderAccepted', 'orderUpdate', 'trade', 'bookLevel', 'balance', 'ledger', 'marketCreated',
    'marketUpdated', 'allowance', 'apiKey', 'orderRejected']) {
    t.ok(kinds.has(kind), `the stream carried ${kind} events`)
  }
  t.end()
})

t.test('values beyond what the engine makes today still round-trip exactly', (t) => {
  const odd = {
    ok: false, code: 'X', message: 'prix réservé 💸', orderId: '',
    context: { negative: -42, fraction: 0.1, minusZero: -0, huge: Number.MAX_SAFE_INTEGER, beyond: 2 ** 60, nan: NaN,
      missing: undefined, nested: [[], {}, [null, true, false]] },
  }
  const batch = [{ requestId: 2 ** 40, seq: 0, timeMs: 0, recorded: false, result: odd, eventsEnd: 0 }] as unknown as AppliedOutcome[]
  const decoded = decodeOutcomes(new OutcomeWriter().encode(batch, null))
  t.same(decoded, [{ requestId: 2 ** 40, seq: 0, timeMs: 0, recorded: false, result: odd, events: [] }])
  const context = (decoded[0]!.result as unknown as typeof odd).context
  t.ok(Object.is(context.minusZero, -0), '-0 stays -0')
  t.ok(Number.isNaN(context.nan), 'NaN stays NaN')
  t.ok('missing' in context, 'an undefined field stays present')
  t.end()
})

/** Round trip of one result, keys in their order included (isDeepStrictEqual ignores order). */
function roundTrip(result: unknown): unknown {
  const batch = [{ requestId: 1, seq: 1, timeMs: 1, recorded: true, result, eventsEnd: 0 }] as unknown as AppliedOutcome[]
  return decodeOutcomes(new OutcomeWriter().encode(batch, null))[0]!.result
}

t.test('a result that is not exactly of a shape goes the generic way, exactly', (t) => {
  const placed = { ok: true, orderId: '0xab', status: 'LIVE', makingMicros: 1, takingMicros: 2, feeMicros: 0,
    tradeIds: ['t1', 't2'] }
  t.equal(resultShapeOf(placed), 1, 'an order placed has its shape')
  const near: Record<string, unknown>[] = [
    { ...placed, extra: 1 },
    { ok: true, status: 'LIVE', orderId: '0xab', makingMicros: 1, takingMicros: 2, feeMicros: 0, tradeIds: [] },
    { ...placed, status: 'DELAYED' },
    { ...placed, feeMicros: -0 },
    { ...placed, feeMicros: 0.5 },
    { ...placed, makingMicros: -1 },
    { ...placed, tradeIds: ['t1', 7] },
    { ...placed, ok: false },
    { ok: false, code: 'X', message: 'm', orderId: 'o', context: null },
    { ok: true, results: 'none' },
    { ok: true, canceled: [1], notCanceled: [] },
    { ok: 1 },
  ]
  for (const result of near) {
    t.equal(resultShapeOf(result), null, `not a shape: ${JSON.stringify(result)}`)
    const back = roundTrip(result) as Record<string, unknown>
    t.ok(isDeepStrictEqual(back, result) && Object.keys(back).join() === Object.keys(result).join(),
      'round trip, keys in order')
  }
  const shaped: Record<string, unknown>[] = [
    placed, { ...placed, orderId: 'ordre réservé 💸', tradeIds: ['échange', ''] }, { ok: true },
    { ok: false, code: 'X', message: 'm', context: { a: 1 } },
    { ok: false, code: 'X', message: 'm', context: null, orderId: '' },
    { ok: true, results: [placed, { ok: false, code: 'Y', message: 'n', context: null, orderId: 'z' }, { odd: 1 }] },
    { ok: true, canceled: ['a', 'b'], notCanceled: [{ orderId: 'c', reason: 'gone' }] },
  ]
  for (const result of shaped) {
    t.not(resultShapeOf(result), null, `a shape: ${JSON.stringify(result)}`)
    const back = roundTrip(result) as Record<string, unknown>
    t.ok(isDeepStrictEqual(back, result) && JSON.stringify(back) === JSON.stringify(result),
      'round trip, keys in order at every level')
  }
  t.end()
})

/** An engine that executed `count` commands of a simulated stream, and their outcomes (its log holds their events). */
function executed(seed: number, count: number): { engine: Engine; outcomes: AppliedOutcome[] } {
  const engine = new Engine()
  const workload = new Workload({ seed })
  const outcomes: AppliedOutcome[] = []
  for (let i = 1; i <= count; i++) {
    const command = { ...workload.next(), seq: engine.seq + 1, timeMs: 1_700_000_000_000 + i * 10 } as Command
    const result = engine.execute(command)
    workload.observe(command, result, [])
    outcomes.push({ requestId: i, seq: engine.seq, timeMs: command.timeMs, recorded: engine.changed, result,
      eventsEnd: engine.log.length })
  }
  return { engine, outcomes }
}

t.test('a damaged batch is refused', (t) => {
  const { engine, outcomes } = executed(SEED + 1, 50)
  const bytes = new Uint8Array(new OutcomeWriter().encode(outcomes, engine.log))
  t.ok(decodeOutcomes(bytes.slice().buffer).some((outcome) => outcome.events.length > 0), 'the batch carries events')
  const beyond = outcomes.map((outcome, i) => i === outcomes.length - 1 ? { ...outcome, eventsEnd: outcome.eventsEnd + 1 } : outcome)
  t.throws(() => decodeOutcomes(new OutcomeWriter().encode(beyond, engine.log)), 'a command\'s events past the batch\'s')
  const short = outcomes.map((outcome, i) => i === outcomes.length - 1 ? { ...outcome, eventsEnd: outcome.eventsEnd - 1 } : outcome)
  t.throws(() => decodeOutcomes(new OutcomeWriter().encode(short, engine.log)), 'events that belong to no outcome')
  engine.log.stringCount = 1
  t.throws(() => decodeOutcomes(new OutcomeWriter().encode(outcomes, engine.log)), 'an event naming a string not listed')
  t.throws(() => decodeOutcomes(bytes.slice(0, bytes.length - 3).buffer), 'a truncated batch')
  t.throws(() => decodeOutcomes(Uint8Array.from([...bytes, 0]).buffer), 'trailing bytes')
  const unknownTag = Uint8Array.from([1, 1, 1, 1, 0xee])
  t.throws(() => decodeOutcomes(unknownTag.buffer), 'an unknown tag')
  const danglingRef = Uint8Array.from([1, 1, 1, 1, 3, 11, 1, 9, 5, 3, 10, 0])
  t.throws(() => decodeOutcomes(danglingRef.buffer), 'a reference to a string not seen before')
  t.throws(() => decodeOutcomes(Uint8Array.from([1, 1, 1, 1, 3, 12, 0xee, 10, 0]).buffer), 'an unknown result shape')
  t.throws(() => decodeOutcomes(Uint8Array.from([1, 1, 1, 1, 3, 12, 1, 0, 9, 0, 0, 0, 0, 10, 0]).buffer),
    'an unknown order status')
  t.throws(() => decodeOutcomes(Uint8Array.from([1, 1, 1, 1, 3, 12, 1, 40, 0x61, 10, 0]).buffer),
    'an order id longer than its batch')
  t.throws(() => new OutcomeWriter().encode([{ requestId: 1, seq: 1, timeMs: 1, recorded: true,
    result: { ok: true, when: new Date(0) }, eventsEnd: 0 } as unknown as AppliedOutcome], null),
  'a non-plain object is not encoded')
  t.end()
})
