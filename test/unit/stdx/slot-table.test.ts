/**
 * SlotTable (src/stdx/slot-table.ts), the engine host's pending requests and queries: a value is
 * found under its own id only, a slot another id still holds is not free (the host refuses then,
 * never overwrites), `drain` hands every value over once, and a seeded run of sequential ids taken
 * out of order agrees with a Map at every step.
 */
import t from 'tap'
import { SlotTable } from '../../../src/stdx/slot-table.js'
import { seedOf } from '../../support/seed.js'

const SEED = seedOf('SLOT_TABLE_SEED')

t.test('a value is found under its own id, once', async (t) => {
  const table = new SlotTable<string>(4)
  table.set(1, 'one')
  table.set(2, 'two')
  t.equal(table.size, 2)
  t.equal(table.take(5), undefined, 'id 5 shares slot 1 with id 1 but is not it')
  t.equal(table.take(1), 'one')
  t.equal(table.take(1), undefined, 'taken once')
  t.equal(table.size, 1)
})

t.test('a slot held by an older id is not free, and cannot be overwritten', async (t) => {
  const table = new SlotTable<string>(4)
  table.set(3, 'three')
  t.notOk(table.isFree(7), 'id 7 would take the slot id 3 still holds')
  t.throws(() => table.set(7, 'seven'), /the slot of id 7 is free/)
  t.equal(table.take(3), 'three', 'the older value is intact')
  t.ok(table.isFree(7))
  table.set(7, 'seven')
  t.equal(table.take(7), 'seven')
})

t.test('ids beyond 2^31; ids and the capacity must be whole numbers', async (t) => {
  const table = new SlotTable<number>(8)
  const big = 2 ** 40 + 3
  table.set(big, 1)
  t.equal(table.take(big), 1)
  t.throws(() => table.set(-1, 0), /an id is a whole number/)
  t.throws(() => table.set(1.5, 0), /an id is a whole number/)
  t.throws(() => new SlotTable(0), /whole number of slots/)
  t.throws(() => new SlotTable(2.5), /whole number of slots/)
  const six = new SlotTable<number>(6)
  six.set(5, 5)
  t.notOk(six.isFree(11), 'any capacity: id 11 shares slot 5 with id 5')
})

t.test('drain hands every waiting value over and empties the table', async (t) => {
  const table = new SlotTable<string>(8)
  for (const id of [10, 11, 13]) table.set(id, `v${id}`)
  t.same(table.drain().sort(), ['v10', 'v11', 'v13'])
  t.equal(table.size, 0)
  t.ok(table.isFree(10) && table.isFree(13))
  t.same(table.drain(), [])
})

t.test(`seeded: sequential ids, taken out of order, against a Map (seed ${SEED})`, async (t) => {
  let state = SEED >>> 0
  const next = (): number => {
    state = (state * 1103515245 + 12345) >>> 0
    return state / 2 ** 32
  }
  const capacity = 16
  const table = new SlotTable<number>(capacity)
  const reference = new Map<number, number>()
  let nextId = 0
  let mismatches = 0
  for (let step = 0; step < 20_000; step++) {
    if (next() < 0.55) {
      // As the host does: the next id is taken only when its slot is free.
      const free = table.isFree(nextId)
      if (free !== ![...reference.keys()].some((id) => id % capacity === nextId % capacity)) mismatches++
      if (free) {
        table.set(nextId, nextId * 2)
        reference.set(nextId, nextId * 2)
        nextId++
      }
    } else {
      const id = Math.floor(next() * (nextId + 1))
      if (table.take(id) !== reference.get(id)) mismatches++
      reference.delete(id)
    }
    if (table.size !== reference.size) mismatches++
  }
  t.equal(mismatches, 0, 'every answer as the Map\'s')
})
