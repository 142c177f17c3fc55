/**
 * Client order ids (issue 11): an order may carry the trader's own name for it, unique per owner
 * (API key) among its live orders. A repeat while the order lives is refused with
 * CLIENT_ORDER_ID_DUPLICATED naming the original and its status, and changes nothing; once the
 * order has ended (cancelled, filled, expired, its market closed or resolved) the id is free
 * again; two owners may use the same id; `cancelByClientOrderId` cancels by it. The index behind
 * it is rebuilt identically from a snapshot (also one written before client order ids) and by a
 * replay, and the invariants check it.
 */
import { isLiveEntry, rowOfEntry } from '../../../src/engine/order-index.js'
import { NO_ROW } from '../../../src/engine/order-table.js'
import t, { type Test } from 'tap'
import { Harness, USDC, addressOf } from '../../support/harness.js'
import { stateOf } from '../../support/engine-checks.js'
import { Engine } from '../../../src/engine/engine.js'
import { Code, CODE_MESSAGES } from '../../../src/engine/codes.js'
import type { OrderInput } from '../../../src/engine/command.js'
import { checkInvariants } from '../../../src/engine/invariants.js'
import { CLIENT_ORDER_ID_LENGTH_MAX, CANCEL_IDS_MAX } from '../../../src/engine/limits.js'
import type { Canceled, OrderPlaced, OrderRejection, Rejection } from '../../../src/engine/result.js'
import { isClientOrderId } from '../../../src/engine/order-shape.js'
import { checkClientOrderId } from '../../../src/engine/rules.js'
import { decodeSnapshot, encodeSnapshot, stateHashOf } from '../../../src/engine/snapshot.js'
import { summaryOf } from '../../../src/engine/view.js'
import { decodeStampedCommand, encodeStampedCommand } from '../../../src/codec/command-codec.js'
import { AssertionError } from '../../../src/stdx/assert.js'

const alice = addressOf(1)
const bob = addressOf(2)
const NOT_FOUND = CODE_MESSAGES.ORDER_NOT_FOUND

function setup(): { h: Harness; m: { marketId: string; yes: string; no: string } } {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 1_000 * USDC)
  h.fund(bob, 1_000 * USDC)
  h.split(bob, m.marketId, 100 * USDC)
  return { h, m }
}

/** A resting BUY of alice at 0.40 with a client order id (a fresh order id each time). */
function bid(h: Harness, tokenId: string, clientOrderId: string, extra: Partial<OrderInput> = {}): OrderInput {
  return { ...h.order({ maker: alice, tokenId, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC, clientOrderId }),
    ...extra }
}

function placed(t: Test, h: Harness, order: OrderInput, status: 'LIVE' | 'MATCHED' | 'CANCELED'): OrderPlaced {
  const { result } = h.place(order)
  t.equal(result.ok && 'status' in result ? result.status : JSON.stringify(result), status, `${order.orderId} ${status}`)
  return result as OrderPlaced
}

t.test('a repeat while the order lives is refused with the original, and changes nothing', (t) => {
  const { h, m } = setup()
  const original = bid(h, m.yes, 'mine-1')
  placed(t, h, original, 'LIVE')
  const before = stateOf(h)
  const repeat = bid(h, m.yes, 'mine-1')
  const applied = h.place(repeat)
  const result = applied.result as OrderRejection
  t.equal(result.ok, false)
  t.equal(result.code, Code.CLIENT_ORDER_ID_DUPLICATED)
  t.equal(result.message, CODE_MESSAGES.CLIENT_ORDER_ID_DUPLICATED)
  t.strictSame(result.context, { orderId: original.orderId, status: 'LIVE', clientOrderId: 'mine-1' },
    'the context names the original order, its status and the client order id')
  t.equal(result.orderId, repeat.orderId, 'the refused order keeps its own id in the result')
  t.strictSame(applied.events, [{ type: 'orderRejected', orderId: repeat.orderId, maker: alice,
    code: Code.CLIENT_ORDER_ID_DUPLICATED, message: CODE_MESSAGES.CLIENT_ORDER_ID_DUPLICATED }],
  'only the rejection: no balance or book event')
  t.strictSame(stateOf(h), before, 'balances, holds, book and orders unchanged')
  t.equal(h.engine.orders.get(repeat.orderId), undefined, 'the repeat was never accepted')
  // Even an order that could only be refused for other reasons answers with the original: the
  // check comes right after the order id's own duplicate check.
  const doomed = bid(h, 'no-such-token', 'mine-1')
  t.equal((h.place(doomed).result as Rejection).code, Code.CLIENT_ORDER_ID_DUPLICATED)
  // The order id's own duplicate check comes first.
  t.equal((h.place(original).result as Rejection).code, Code.INVALID_ORDER_DUPLICATED)
  t.end()
})

t.test('the order events carry the client order id (and \'\' when there is none)', (t) => {
  const { h, m } = setup()
  const withId = h.place(bid(h, m.yes, 'tagged'))
  const without = h.place(bid(h, m.yes, ''))
  t.equal(Harness.eventsOf(withId, 'orderAccepted')[0]?.clientOrderId, 'tagged')
  t.equal(Harness.eventsOf(without, 'orderAccepted')[0]?.clientOrderId, '')
  t.end()
})

t.test('no client order id (\'\') never collides', (t) => {
  const { h, m } = setup()
  for (let i = 0; i < 3; i++) placed(t, h, bid(h, m.yes, ''), 'LIVE')
  t.equal(h.engine.orders.liveWithClientOrderId, 0, 'orders without one are not indexed')
  t.end()
})

t.test('a client order id is free again once its order has ended', async (t) => {
  t.test('cancelled', (t) => {
    const { h, m } = setup()
    const first = bid(h, m.yes, 'again')
    placed(t, h, first, 'LIVE')
    h.apply({ kind: 'cancelOrder', address: alice, orderId: first.orderId })
    placed(t, h, bid(h, m.yes, 'again'), 'LIVE')
    t.end()
  })
  t.test('filled', (t) => {
    const { h, m } = setup()
    placed(t, h, bid(h, m.yes, 'filled'), 'LIVE')
    placed(t, h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 10 * USDC }),
      'MATCHED')
    placed(t, h, bid(h, m.yes, 'filled'), 'LIVE')
    t.end()
  })
  t.test('partly filled it still lives, and still holds the id', (t) => {
    const { h, m } = setup()
    const first = bid(h, m.yes, 'partly')
    placed(t, h, first, 'LIVE')
    placed(t, h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 4 * USDC }),
      'MATCHED')
    t.strictSame((h.place(bid(h, m.yes, 'partly')).result as Rejection).context,
      { orderId: first.orderId, status: 'LIVE', clientOrderId: 'partly' })
    t.end()
  })
  t.test('expired', (t) => {
    const { h, m } = setup()
    const expirationSec = h.timeMs / 1000 + 120
    placed(t, h, bid(h, m.yes, 'gtd', { timeInForce: 'GTD', expirationSec }), 'LIVE')
    t.equal((h.place(bid(h, m.yes, 'gtd')).result as Rejection).code, Code.CLIENT_ORDER_ID_DUPLICATED)
    h.timeMs += 120_000
    placed(t, h, bid(h, m.yes, 'gtd'), 'LIVE')
    t.end()
  })
  t.test('its market closed or resolved', (t) => {
    const { h, m } = setup()
    const other = h.market()
    placed(t, h, bid(h, m.yes, 'closing'), 'LIVE')
    placed(t, h, bid(h, other.yes, 'resolving'), 'LIVE')
    h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status: 'Closed' })
    h.apply({ kind: 'resolveMarket', marketId: other.marketId, outcome: 'Yes' })
    const fresh = h.market()
    placed(t, h, bid(h, fresh.yes, 'closing'), 'LIVE')
    placed(t, h, bid(h, fresh.yes, 'resolving'), 'LIVE')
    t.end()
  })
  t.test('an immediate order ends in its own command; a batch sees each order in turn', (t) => {
    const { h, m } = setup()
    placed(t, h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 30 * USDC }),
      'LIVE')
    const fak = bid(h, m.yes, 'ioc', { timeInForce: 'FAK' })
    const { result } = h.apply({ kind: 'placeOrders', orders: [fak, bid(h, m.yes, 'ioc', { timeInForce: 'FAK' }),
      bid(h, m.yes, 'rests'), bid(h, m.yes, 'rests')] })
    const results = (result as { results: readonly (OrderPlaced | OrderRejection)[] }).results
    t.strictSame(results.map((r) => (r.ok ? r.status : r.code)),
      ['MATCHED', 'MATCHED', 'MATCHED', 'LIVE'], 'the FAKs filled and freed the id; the first GTC filled too')
    t.end()
  })
  t.end()
})

t.test('a batch: the second order with the id of a resting first one is refused', (t) => {
  const { h, m } = setup()
  const first = bid(h, m.yes, 'twin')
  const { result } = h.apply({ kind: 'placeOrders', orders: [first, bid(h, m.no, 'twin')] })
  const results = (result as { results: readonly (OrderPlaced | OrderRejection)[] }).results
  t.equal(results[0]?.ok, true)
  t.strictSame(results[1]?.ok === false ? results[1].context : null,
    { orderId: first.orderId, status: 'LIVE', clientOrderId: 'twin' })
  t.end()
})

t.test('the same client order id under two owners, or two keys of one address, is fine', (t) => {
  const { h, m } = setup()
  placed(t, h, bid(h, m.yes, 'shared'), 'LIVE')
  placed(t, h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 700_000, sizeMicros: USDC,
    clientOrderId: 'shared' }), 'LIVE')
  placed(t, h, { ...bid(h, m.yes, 'shared'), owner: 'second-key-of-alice' }, 'LIVE')
  t.equal(h.engine.orders.liveWithClientOrderId, 3)
  t.end()
})

t.test('shape: clientOrderId is \'\' or up to 64 printable ASCII characters (step 1, last field)', (t) => {
  const { h, m } = setup()
  t.equal(CLIENT_ORDER_ID_LENGTH_MAX, 64)
  const longest = '~'.repeat(CLIENT_ORDER_ID_LENGTH_MAX)
  placed(t, h, bid(h, m.yes, longest), 'LIVE')
  placed(t, h, bid(h, m.yes, ' !"#$%&\'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~'), 'LIVE')
  const bad: readonly unknown[] = ['x'.repeat(CLIENT_ORDER_ID_LENGTH_MAX + 1), 'tab\there', 'new\nline', 'caf\u00e9',
    '\u0000', '\u007f', 7, null, undefined, ['a']]
  for (const clientOrderId of bad) {
    const before = stateOf(h)
    const { result } = h.place({ ...bid(h, m.yes, ''), clientOrderId } as unknown as OrderInput)
    t.strictSame(result.ok ? null : [result.code, result.context],
      [Code.INVALID_ORDER_PAYLOAD, { field: 'clientOrderId' }], `refused: ${JSON.stringify(clientOrderId)}`)
    t.strictSame(stateOf(h), before)
  }
  // The edge pre-checks with the same rule.
  t.ok(isClientOrderId(''))
  t.ok(isClientOrderId(longest))
  t.notOk(isClientOrderId(longest + 'x'))
  t.equal(checkClientOrderId('ok'), null)
  t.strictSame(checkClientOrderId('\u00a0'),
    { ok: false, code: Code.INVALID_ORDER_PAYLOAD, message: CODE_MESSAGES.INVALID_ORDER_PAYLOAD,
      context: { field: 'clientOrderId' } })
  // Earlier fields are reported first.
  const { result } = h.place({ ...bid(h, m.yes, 'x'.repeat(100)), postOnly: 'yes' } as unknown as OrderInput)
  t.strictSame(result.ok ? null : result.context, { field: 'postOnly' })
  t.end()
})

t.test('cancelByClientOrderId: the owner\'s live orders by their ids', (t) => {
  const { h, m } = setup()
  const a = bid(h, m.yes, 'a')
  const b = bid(h, m.no, 'b')
  const plain = bid(h, m.yes, '')
  for (const order of [a, b, plain]) placed(t, h, order, 'LIVE')
  const heldBefore = summaryOf(h.engine).accounts.find((x) => x.address === alice)!.usdcHeldMicros
  const applied = h.apply({ kind: 'cancelByClientOrderId', address: alice, owner: `key-${alice}`,
    clientOrderIds: ['b', 'unknown', 'a', 'b', ''] })
  t.strictSame(applied.result, { ok: true, canceled: [b.orderId, a.orderId],
    notCanceled: [{ orderId: 'unknown', reason: NOT_FOUND }, { orderId: '', reason: NOT_FOUND }] },
  'canceled: order ids in request order; repeats ignored; unknown ids (and \'\') not found')
  t.strictSame(Harness.eventsOf(applied, 'orderUpdate').map((e) => [e.orderId, e.status, e.reason]),
    [[b.orderId, 'CANCELED', 'owner'], [a.orderId, 'CANCELED', 'owner']])
  const heldAfter = summaryOf(h.engine).accounts.find((x) => x.address === alice)!.usdcHeldMicros
  t.equal(heldAfter, heldBefore - 8 * USDC, 'both holds released (4 USDC each)')
  t.strictSame(summaryOf(h.engine).openOrders.map((o) => o.orderId), [plain.orderId])
  // Ended: the id names nothing now, and is free.
  const again = h.apply({ kind: 'cancelByClientOrderId', address: alice, owner: `key-${alice}`, clientOrderIds: ['a'] })
  t.strictSame(again.result, { ok: true, canceled: [], notCanceled: [{ orderId: 'a', reason: NOT_FOUND }] })
  placed(t, h, bid(h, m.yes, 'a'), 'LIVE')
  t.end()
})

t.test('cancelByClientOrderId: only for the order\'s maker or signer, and only under its owner', (t) => {
  const { h, m } = setup()
  const order = { ...bid(h, m.yes, 'guarded'), signer: bob }
  placed(t, h, order, 'LIVE')
  const owner = `key-${alice}`
  const before = stateOf(h)
  const stranger = h.apply({ kind: 'cancelByClientOrderId', address: addressOf(9), owner, clientOrderIds: ['guarded'] })
  t.strictSame(stranger.result, { ok: true, canceled: [], notCanceled: [{ orderId: 'guarded', reason: NOT_FOUND }] })
  const otherKey = h.apply({ kind: 'cancelByClientOrderId', address: alice, owner: 'key-other', clientOrderIds: ['guarded'] })
  t.strictSame(otherKey.result, { ok: true, canceled: [], notCanceled: [{ orderId: 'guarded', reason: NOT_FOUND }] })
  t.strictSame(stateOf(h), before, 'nothing cancelled')
  const bySigner = h.apply({ kind: 'cancelByClientOrderId', address: bob, owner, clientOrderIds: ['guarded'] })
  t.strictSame((bySigner.result as Canceled).canceled, [order.orderId], 'the signer may cancel')
  t.end()
})

t.test('cancelByClientOrderId: more than CANCEL_IDS_MAX ids is refused whole', (t) => {
  const { h, m } = setup()
  placed(t, h, bid(h, m.yes, 'c0'), 'LIVE')
  const clientOrderIds = Array.from({ length: CANCEL_IDS_MAX + 1 }, (_, i) => `c${i}`)
  const before = stateOf(h)
  const { result } = h.apply({ kind: 'cancelByClientOrderId', address: alice, owner: `key-${alice}`, clientOrderIds })
  t.strictSame(result, { ok: false, code: Code.CANCEL_TOO_MANY, message: CODE_MESSAGES.CANCEL_TOO_MANY,
    context: { max: CANCEL_IDS_MAX } })
  t.strictSame(stateOf(h), before)
  t.end()
})

/** A state with live orders with and without client ids, ended ones, and an id reused. */
function richHarness(): Harness {
  const { h, m } = setup()
  h.place(bid(h, m.yes, 'keep'))
  h.place(bid(h, m.no, ''))
  const gone = bid(h, m.yes, 'reused')
  h.place(gone)
  h.apply({ kind: 'cancelOrder', address: alice, orderId: gone.orderId })
  h.place(bid(h, m.yes, 'reused'))
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 800_000, sizeMicros: USDC,
    clientOrderId: 'keep' }))
  h.place({ ...bid(h, m.yes, 'gtd'), timeInForce: 'GTD', expirationSec: h.timeMs / 1000 + 600 })
  return h
}

/** (owner, client order id) -> order id, as the index answers for every live order. */
function indexOf(engine: Engine): string[] {
  const rows: string[] = []
  for (const open of summaryOf(engine).openOrders) {
    const entry = engine.orders.get(open.orderId)
    if (entry === undefined || !isLiveEntry(entry)) continue
    const o = engine.orderTable
    const order = rowOfEntry(entry)
    if (o.clientOrderId[order] === '') continue
    const found = engine.orders.liveByClientOrderId(o.owner[order]!, o.clientOrderId[order]!)
    rows.push(`${o.owner[order]}/${o.clientOrderId[order]} -> ${found === NO_ROW ? 'none' : o.orderId[found]}`)
  }
  return rows
}

t.test('the index is the same after a snapshot round trip', (t) => {
  const h = richHarness()
  const loaded = decodeSnapshot(encodeSnapshot(h.engine), { hashSeed: 7 })
  t.strictSame(indexOf(loaded), indexOf(h.engine))
  t.equal(indexOf(loaded).length, 4, 'keep (alice), reused, keep (bob), gtd')
  t.equal(loaded.orders.liveWithClientOrderId, h.engine.orders.liveWithClientOrderId)
  t.equal(stateHashOf(loaded), stateHashOf(h.engine))
  // And it works: a repeat is refused by the loaded engine as by the original.
  const resumed = new Harness(loaded)
  const repeat = bid(h, h.engine.markets[0]!.yesTokenId, 'reused')
  t.strictSame(resumed.place(repeat).result, h.place(repeat).result)
  t.end()
})

t.test('the client order id is in the state hash', (t) => {
  const a = setup()
  const b = setup()
  a.h.place(bid(a.h, a.m.yes, 'one'))
  b.h.place(bid(b.h, b.m.yes, 'two'))
  t.not(stateHashOf(a.h.engine), stateHashOf(b.h.engine))
  t.end()
})

t.test('the index is the same after a replay, also of the journaled (encoded) commands', (t) => {
  const h = richHarness()
  const replayed = new Engine({ hashSeed: 3 })
  const decoded = new Engine({ hashSeed: 5 })
  for (const command of h.commands) {
    replayed.apply(command)
    decoded.apply(decodeStampedCommand(encodeStampedCommand(command)))
  }
  for (const engine of [replayed, decoded]) {
    t.strictSame(indexOf(engine), indexOf(h.engine))
    t.equal(stateHashOf(engine), stateHashOf(h.engine))
  }
  t.end()
})

t.test('a snapshot written before client order ids (version 2) loads, its live orders without one', (t) => {
  const { h, m } = setup()
  const orders = [bid(h, m.yes, ''), h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 700_000, sizeMicros: USDC })]
  for (const order of orders) h.place(order)
  const current = encodeSnapshot(h.engine)
  t.equal(current[8], 4, 'written as version 4')
  const v2 = versionTwoOf(current, orders)
  t.equal(v2.length, current.length - 1)
  const loaded = decodeSnapshot(v2)
  t.strictSame(summaryOf(loaded), summaryOf(h.engine))
  t.strictSame(encodeSnapshot(loaded), current, 'written back in the current version: the same state hash')
  t.equal(loaded.orders.liveWithClientOrderId, 0)
  t.end()
})

t.test('the invariants check the index', (t) => {
  const h = richHarness()
  checkInvariants(h.engine)
  const index = h.engine.orders as unknown as { liveByClientKey: Map<string, unknown> }
  const saved = new Map(index.liveByClientKey)
  index.liveByClientKey.clear()
  t.throws(() => checkInvariants(h.engine), AssertionError, 'an order missing from the index is found')
  for (const [key, value] of saved) index.liveByClientKey.set(key, value)
  index.liveByClientKey.set('stale', [...saved.values()][0])
  t.throws(() => checkInvariants(h.engine), AssertionError, 'an entry without its live order is found')
  index.liveByClientKey.delete('stale')
  checkInvariants(h.engine)
  t.end()
})

/**
 * The snapshot of live orders only (no ended one, no API key) as version 2 wrote it: one list of
 * every order, each id followed by tag 0 (live) and the order without its client order id (version
 * 3 added it after the signer; '' is one byte, its length 0), and no list of ended ids (version 4).
 */
function versionTwoOf(bytes: Uint8Array, liveOrders: readonly OrderInput[]): Uint8Array {
  let out = [...bytes]
  for (const { orderId, owner, signer } of liveOrders) {
    const id = [orderId.length, ...Buffer.from(orderId)]
    const pattern = [...id, owner.length, ...Buffer.from(owner), signer.length, ...Buffer.from(signer), 0]
    const at = indexOfPattern(out, pattern)
    if (at < 0) throw new Error(`no live order ${orderId} in the snapshot`)
    out = [...out.slice(0, at + id.length), 0, ...out.slice(at + id.length, at + pattern.length - 1),
      ...out.slice(at + pattern.length)]
  }
  // The last two bytes: no ended ids, no API keys.
  if (out.at(-2) !== 0 || out.at(-1) !== 0) throw new Error('the state has ended orders or API keys')
  out.splice(out.length - 2, 1)
  out[8] = 2
  return Uint8Array.from(out)
}

function indexOfPattern(haystack: readonly number[], pattern: readonly number[]): number {
  for (let i = 0; i + pattern.length <= haystack.length; i++) {
    if (pattern.every((byte, k) => haystack[i + k] === byte)) return i
  }
  return -1
}
