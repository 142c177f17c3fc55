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
import { Engine } from '../../../src/engine/engine.js'
import type { Command } from '../../../src/engine/command.js'
import { crossingEvents, type Outcome } from '../../../src/host/messages.js'
import { decodeOutcomes, OutcomeWriter } from '../../../src/host/outcome-codec.js'
import { resultShapeOf } from '../../../src/host/result-shape.js'
import { Workload } from '../../simulation/workload.js'

const SEED = Number(process.env.SEED ?? 7)
const COMMANDS = 6_000

function simulatedOutcomes(seed: number, count: number): Outcome[] {
  const engine = new Engine()
  const workload = new Workload({ seed })
  const outcomes: Outcome[] = []
  for (let i = 1; i <= count; i++) {
    const unstamped = workload.next()
    const command = { ...unstamped, seq: engine.seq + 1, timeMs: 1_700_000_000_000 + i * 10 } as Command
    const { result, events } = engine.apply(command)
    workload.observe(command, result, events)
    outcomes.push({ requestId: i, seq: engine.seq, timeMs: command.timeMs, recorded: events.length > 0, result,
      events: i % 2 === 0 ? crossingEvents(events) : events })
  }
  return outcomes
}

t.test(`every outcome of a simulated stream survives the round trip (seed ${SEED})`, (t) => {
  t.comment(`seed ${SEED}; SEED=<n> to repeat`)
  const outcomes = simulatedOutcomes(SEED, COMMANDS)
  const writer = new OutcomeWriter()
  const kinds = new Set<string>()
  let from = 0
  let size = 1
  while (from < outcomes.length) {
    const batch = outcomes.slice(from, from + size)
    const decoded = decodeOutcomes(writer.encode(batch))
    if (!isDeepStrictEqual(decoded, batch)) {
      const at = decoded.findIndex((outcome, i) => !isDeepStrictEqual(outcome, batch[i]))
      t.same(decoded[at], batch[at], `outcome ${from + at} differs after the round trip`)
      break
    }
    for (const outcome of batch) for (const event of outcome.events) kinds.add(event.type)
    from += size
    size = (size * 3) % 997 + 1
  }
  t.equal(from >= outcomes.length, true, 'every batch decoded as encoded')
  const shapeless = outcomes.filter((outcome) => resultShapeOf(outcome.result as never) === null)
  t.same(shapeless.map((outcome) => outcome.result), [], 'every result of the stream is written by position')
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
  const batch = [{ requestId: 2 ** 40, seq: 0, timeMs: 0, recorded: false, result: odd, events: [] }] as unknown as Outcome[]
  const decoded = decodeOutcomes(new OutcomeWriter().encode(batch))
  t.same(decoded, batch)
  const context = (decoded[0]!.result as unknown as typeof odd).context
  t.ok(Object.is(context.minusZero, -0), '-0 stays -0')
  t.ok(Number.isNaN(context.nan), 'NaN stays NaN')
  t.ok('missing' in context, 'an undefined field stays present')
  t.end()
})

/** Round trip of one result, keys in their order included (isDeepStrictEqual ignores order). */
function roundTrip(result: unknown): unknown {
  const batch = [{ requestId: 1, seq: 1, timeMs: 1, recorded: true, result, events: [] }] as unknown as Outcome[]
  return decodeOutcomes(new OutcomeWriter().encode(batch))[0]!.result
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

t.test('a damaged batch is refused', (t) => {
  const outcomes = simulatedOutcomes(SEED + 1, 50)
  const bytes = new Uint8Array(new OutcomeWriter().encode(outcomes))
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
    result: { ok: true, when: new Date(0) }, events: [] } as unknown as Outcome]), 'a non-plain object is not encoded')
  t.end()
})
