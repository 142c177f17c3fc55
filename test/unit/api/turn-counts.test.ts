/**
 * The per-turn request count behind REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX: up to the bound per
 * address within one event-loop turn, each address on its own, and a fresh count the next turn.
 */
import t from 'tap'
import { TurnCounts } from '../../../src/api/rest/turn-counts.js'

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

t.test('up to the bound per address in one turn, then refused; a fresh count the next turn', async (t) => {
  const counts = new TurnCounts(3)
  t.same([1, 2, 3, 4, 5].map(() => counts.take('10.0.0.1')), [true, true, true, false, false],
    'three taken, the fourth and fifth past the bound')
  t.equal(counts.take('10.0.0.2'), true, 'another address has its own count')
  await nextTurn()
  t.same([1, 2, 3, 4].map(() => counts.take('10.0.0.1')), [true, true, true, false], 'the next turn starts at zero')
})

t.test('a turn with no request leaves nothing behind', async (t) => {
  const counts = new TurnCounts(1)
  t.equal(counts.take('a'), true)
  await nextTurn()
  await nextTurn()
  t.equal(counts.take('a'), true, 'counted again from zero')
  t.equal(counts.take('a'), false)
})
