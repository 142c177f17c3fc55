/**
 * Snapshots and determinism: a state encodes to a canonical snapshot and loads back to the same
 * state hash; the same commands give the same events and hashes twice; and snapshot + the rest
 * of the stream equals the uninterrupted run. A damaged snapshot does not load.
 */
import t from 'tap'
import { Harness, USDC, addressOf } from '../../support/harness.js'
import { Engine } from '../../../src/engine/engine.js'
import { decodeSnapshot, encodeSnapshot, stateHashOf } from '../../../src/engine/snapshot.js'
import { summaryOf } from '../../../src/engine/view.js'
import { AssertionError } from '../../../src/stdx/assert.js'

const alice = addressOf(1)
const bob = addressOf(2)
const carol = addressOf(3)

/** A state with a bit of everything: fees, mint and merge, GTD, ended orders, keys, a resolution. */
function richHarness(): Harness {
  const h = new Harness()
  const m = h.market({ feeRateBps: 50 })
  const r = h.market({ tickSizeMicros: 1_000 })
  for (const who of [alice, bob, carol]) h.fund(who, 500 * USDC)
  h.split(bob, m.marketId, 50 * USDC)
  h.split(carol, r.marketId, 20 * USDC)
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 550_000, sizeMicros: 20 * USDC, feeRateBps: 50 }))
  h.place(h.order({ maker: carol, tokenId: m.no, side: 'BUY', priceMicros: 440_000, sizeMicros: 15 * USDC, feeRateBps: 50 }))
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 570_000, sizeMicros: 30 * USDC, feeRateBps: 50 }))
  h.place(h.order({ maker: bob, tokenId: m.no, side: 'SELL', priceMicros: 300_000, sizeMicros: 10 * USDC, feeRateBps: 50 }))
  h.place({ ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC, feeRateBps: 50 }),
    timeInForce: 'GTD', expirationSec: h.timeMs / 1000 + 3_600 })
  h.place(h.order({ maker: carol, tokenId: r.yes, side: 'SELL', priceMicros: 612_000, sizeMicros: 5 * USDC }))
  h.apply({ kind: 'registerApiKey', apiKey: 'key-1', address: alice, secret: 's'.repeat(44), passphrase: 'p', nonce: 0 })
  h.apply({ kind: 'registerApiKey', apiKey: 'key-2', address: bob, secret: 't'.repeat(44), passphrase: 'q', nonce: 3 })
  h.timeMs += 1_000
  h.apply({ kind: 'resolveMarket', marketId: r.marketId, outcome: 'No' })
  h.apply({ kind: 'redeem', address: carol, marketId: r.marketId })
  return h
}

t.test('a snapshot loads back to the same state', (t) => {
  const h = richHarness()
  const bytes = encodeSnapshot(h.engine)
  const loaded = decodeSnapshot(bytes)
  t.equal(stateHashOf(loaded), stateHashOf(h.engine))
  t.same(summaryOf(loaded), summaryOf(h.engine))
  t.same(encodeSnapshot(loaded), bytes, 'encoding the loaded state gives the same bytes')
  t.equal(loaded.apiKeys.get('key-2')?.nonce, 3)
  t.ok(bytes.length < 4_000, `compact: ${bytes.length} bytes`)
  t.end()
})

t.test('the state hash changes when the state does', (t) => {
  const h = richHarness()
  const before = stateHashOf(h.engine)
  h.apply({ kind: 'credit', address: alice, usdcMicros: 1, gasMicros: 0 })
  t.not(stateHashOf(h.engine), before)
  t.match(before, /^[0-9a-f]{64}$/)
  t.end()
})

t.test('the same commands give the same events and the same state twice', (t) => {
  const h = richHarness()
  const again = new Engine()
  for (let i = 0; i < h.commands.length; i++) {
    const replayed = again.apply(h.commands[i]!)
    t.same(replayed.events, eventsOfCommand(h, i), `command ${i + 1} (${h.commands[i]!.kind})`)
  }
  t.equal(stateHashOf(again), stateHashOf(h.engine))
  t.end()
})

t.test('snapshot + the rest of the stream equals the uninterrupted run', (t) => {
  const h = richHarness()
  for (let cut = 0; cut <= h.commands.length; cut += 3) {
    const prefix = new Engine()
    for (const command of h.commands.slice(0, cut)) prefix.apply(command)
    const resumed = decodeSnapshot(encodeSnapshot(prefix))
    for (let i = cut; i < h.commands.length; i++) {
      t.same(resumed.apply(h.commands[i]!).events, eventsOfCommand(h, i))
    }
    t.equal(stateHashOf(resumed), stateHashOf(h.engine), `cut after ${cut} commands`)
  }
  t.end()
})

t.test('orders live at the snapshot that end afterwards: the restored run encodes the same', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 100 * USDC)
  h.fund(bob, 100 * USDC)
  h.split(bob, m.marketId, 20 * USDC)
  const first = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 5 * USDC })
  h.place(first)
  const second = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 300_000, sizeMicros: 5 * USDC })
  h.place(second)
  h.apply({ kind: 'cancelOrder', address: alice, orderId: second.orderId })
  const resumed = decodeSnapshot(encodeSnapshot(h.engine))
  // The first order, live at the snapshot, now fills; in both runs it must sit where it was accepted.
  const sell = h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 5 * USDC })
  const original = h.place(sell)
  const again = resumed.apply(h.commands.at(-1)!)
  t.same(again.events, original.events)
  t.same(encodeSnapshot(resumed), encodeSnapshot(h.engine), 'same bytes after the order ended')
  t.end()
})

t.test('a damaged snapshot does not load', (t) => {
  const bytes = encodeSnapshot(richHarness().engine)
  t.throws(() => decodeSnapshot(bytes.slice(0, bytes.length - 1)), AssertionError, 'truncated')
  t.throws(() => decodeSnapshot(new Uint8Array([...bytes, 0])), AssertionError, 'trailing byte')
  const badMagic = bytes.slice()
  badMagic[1] = 0x41
  t.throws(() => decodeSnapshot(badMagic), AssertionError, 'bad magic')
  t.end()
})

/** The events the harness recorded for its i-th command, in the original run. */
function eventsOfCommand(h: Harness, i: number): unknown[] {
  return h.results[i]!.events
}
