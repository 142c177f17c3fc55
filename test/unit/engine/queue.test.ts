/**
 * Queue position (src/engine/queue.ts): the lots ahead of a live order, from its marks when no
 * removal but fills happened at its level since it joined, else by a walk. Both must agree with a
 * walk from the head for every live order after every command of a seeded workload, and the marks
 * must serve the common case (a level where only fills happened).
 */
import t from 'tap'
import { Engine } from '../../../src/engine/engine.js'
import type { Command } from '../../../src/engine/command.js'
import { queueAheadLots, queueAheadLotsByWalk, queueAheadMicros } from '../../../src/engine/queue.js'
import { Workload } from '../../simulation/workload.js'
import { seedOf } from '../../support/seed.js'
import { Harness, USDC, addressOf } from '../../support/harness.js'

const SEED = seedOf('QUEUE_SEED')
const COMMANDS = 4_000

t.test(`the lots ahead of every live order equal a walk from its level's head (seed ${SEED})`, (t) => {
  const engine = new Engine()
  const workload = new Workload({ seed: SEED })
  let checked = 0
  let fromMarks = 0
  let wrong: string | null = null
  for (let i = 0; i < COMMANDS && wrong === null; i++) {
    const command = { ...workload.next(), seq: engine.seq + 1, timeMs: 1_700_000_000_000 + i * 50 } as Command
    const { result, events } = engine.apply(command)
    workload.observe(command, result, events)
    const o = engine.orderTable
    for (let row = 0; row < o.rowsEver && wrong === null; row++) {
      if (o.live[row] !== 1) continue
      checked++
      if (o.level[row]!.otherRemovals === o.queueOtherMark[row]) fromMarks++
      const walked = queueAheadLotsByWalk(o, row)
      if (queueAheadLots(o, row) !== walked) wrong = `command ${i}, order ${o.orderId[row]}`
    }
  }
  t.equal(wrong, null, `${checked} positions checked`)
  t.ok(fromMarks > 0, `${fromMarks} of them from the marks, without a walk`)
  t.end()
})

t.test('a queue with only fills is read from the marks; a cancel ahead is walked', (t) => {
  const h = new Harness()
  const m = h.market()
  const [alice, bob, carol, dave] = [1, 2, 3, 4].map(addressOf)
  for (const who of [alice, bob, carol]) h.fund(who!, 100 * USDC)
  h.fund(dave!, 100 * USDC)
  h.split(dave!, m.marketId, 50 * USDC)
  const bid = (who: string, size: number) =>
    h.place(h.order({ maker: who, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: size * USDC })).result
  const a = bid(alice!, 5) as { orderId: string }
  const b = bid(bob!, 7) as { orderId: string }
  const c = bid(carol!, 3) as { orderId: string }
  t.equal(queueAheadMicros(h.engine, a.orderId), 0)
  t.equal(queueAheadMicros(h.engine, b.orderId), 5 * USDC)
  t.equal(queueAheadMicros(h.engine, c.orderId), 12 * USDC)
  // Dave sells 6: alice's 5 and 1 of bob's.
  h.place(h.order({ maker: dave!, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 6 * USDC }))
  t.equal(queueAheadMicros(h.engine, a.orderId), null, 'a filled order has no place')
  t.equal(queueAheadMicros(h.engine, b.orderId), 0)
  t.equal(queueAheadMicros(h.engine, c.orderId), 6 * USDC)
  const o = h.engine.orderTable
  const row = (id: string) => [...Array(o.rowsEver).keys()].find((r) => o.live[r] === 1 && o.orderId[r] === id)!
  t.equal(o.level[row(c.orderId)]!.otherRemovals, o.queueOtherMark[row(c.orderId)], 'fills only: the marks tell')
  // Bob cancels: carol's place is walked, and right.
  h.apply({ kind: 'cancelOrder', address: bob!, orderId: b.orderId })
  t.not(o.level[row(c.orderId)]!.otherRemovals, o.queueOtherMark[row(c.orderId)], 'a cancel since: a walk')
  t.equal(queueAheadMicros(h.engine, c.orderId), 0)
  t.equal(queueAheadMicros(h.engine, 'nope'), null)
  t.end()
})
