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
import { Harness, USDC, addressOf } from '../../support/harness.js'

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

t.test('fields that name a string listed already read back as their own values', (t) => {
  // orderAccepted names the maker's address for a signer who is the maker, and the batch's ''
  // for no client order id; a single placement's result names the id its acceptance listed. The
  // reads must equal the inputs in every case, and a batch placement's results must keep each
  // order's own id though a later order of the batch took a freed row.
  const h = new Harness()
  const m = h.market({ tickSizeMicros: 10_000 })
  const [alice, bob, carol] = [addressOf(1), addressOf(2), addressOf(3)]
  for (const address of [alice, bob, carol]) h.fund(address, 1_000 * USDC)
  h.split(bob, m.marketId, 100 * USDC)
  const cases = [
    h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 5 * USDC }),
    { ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 410_000, sizeMicros: 5 * USDC }), signer: carol },
    { ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 420_000, sizeMicros: 5 * USDC }), clientOrderId: 'mine-1' },
  ]
  for (const order of cases) {
    const { result, events } = h.place(order)
    const accepted = events.find((event) => event.type === 'orderAccepted')
    t.match(accepted, { orderId: order.orderId, maker: order.maker, signer: order.signer, clientOrderId: order.clientOrderId })
    t.match(result, { ok: true, orderId: order.orderId, status: 'LIVE' })
  }
  // Bob's first SELL fills against Alice's best bid and ends, freeing its row; his second takes it.
  const filled = { ...h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 420_000, sizeMicros: 5 * USDC }),
    timeInForce: 'FAK' as const }
  const rests = h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 900_000, sizeMicros: 5 * USDC })
  const { result } = h.apply({ kind: 'placeOrders', orders: [filled, rests] })
  t.match(result, { ok: true, results: [{ orderId: filled.orderId, status: 'MATCHED' }, { orderId: rests.orderId, status: 'LIVE' }] })
  t.end()
})
