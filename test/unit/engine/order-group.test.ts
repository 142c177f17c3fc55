/**
 * Order groups with fill limits (docs/engine.md, "Order groups"): a fill that brings a group's
 * rolling window to a limit cancels every resting order of the group in the same command, and the
 * group refuses orders until it is reset or its freeze ends; the window forgets old fills; groups
 * survive a snapshot. Invariants run after every command (the harness).
 */
import t from 'tap'
import { Harness, addressOf, T0_MS, USDC } from '../../support/harness.js'
import type { OrderGroupAction } from '../../../src/engine/command.js'
import type { OrderInput } from '../../../src/engine/command.js'
import { decodeSnapshot, encodeSnapshot, stateHashOf } from '../../../src/engine/snapshot.js'
import { summaryOf } from '../../../src/engine/view.js'

const maker = addressOf(1)
const taker = addressOf(2)
const KEY = `key-${maker}`

function setUp() {
  const h = new Harness()
  const m = h.market()
  h.fund(maker, 1_000 * USDC)
  h.fund(taker, 1_000 * USDC)
  h.split(taker, m.marketId, 500 * USDC)
  const group = (action: OrderGroupAction, limits: Partial<{ contracts: number; notional: number; windowMs: number;
    freezeMs: number }> = {}, groupId = 'mmp') => h.apply({ kind: 'orderGroup', action, address: maker, owner: KEY,
    groupId, contractsLimitMicros: limits.contracts ?? 0, notionalLimitMicros: limits.notional ?? 0,
    windowMs: limits.windowMs ?? 15_000, freezeMs: limits.freezeMs ?? 0 })
  /** A bid of the maker in group `groupId` ('': none). */
  const bid = (priceMicros: number, size: number, groupId = 'mmp'): OrderInput =>
    ({ ...h.order({ maker, tokenId: m.yes, side: 'BUY', priceMicros, sizeMicros: size * USDC }),
      ...(groupId === '' ? {} : { orderGroupId: groupId }) })
  const sell = (priceMicros: number, size: number) =>
    h.place(h.order({ maker: taker, tokenId: m.yes, side: 'SELL', priceMicros, sizeMicros: size * USDC }))
  return { h, m, group, bid, sell }
}

function openIds(h: Harness): string[] {
  return summaryOf(h.engine).openOrders.map((o) => o.orderId)
}

t.test('a fill that reaches the contracts limit cancels the group\'s resting orders in the same command', (t) => {
  const { h, group, bid, sell } = setUp()
  t.match(group('create', { contracts: 10 * USDC }).result, { ok: true })
  const b1 = bid(450_000, 8)
  const b2 = bid(440_000, 8)
  const b3 = bid(430_000, 8)
  const outside = bid(420_000, 8, '')
  for (const order of [b1, b2, b3, outside]) t.match(h.place(order).result, { ok: true, status: 'LIVE' })
  // 6 then 5: the second sale crosses 10 shares in the window on b2; b2's rest and b3 go in that command.
  sell(450_000, 6)
  t.strictSame(openIds(h).length, 4, '6 filled: below the limit')
  const breach = sell(400_000, 5)
  const updates = breach.events.filter((e) => e.type === 'orderUpdate')
  t.match(updates.filter((e) => e.reason === 'order-group').map((e) => (e as { orderId: string }).orderId),
    [b2.orderId, b3.orderId], 'the group\'s resting orders, cancelled in the same step')
  t.match(breach.events.filter((e) => e.type === 'orderGroup'), [{ groupId: 'mmp', action: 'triggered', triggered: true }])
  t.match(breach.result, { ok: true, status: 'MATCHED' }, 'the seller filled what it met before the trigger and then the outside bid')
  t.strictSame(openIds(h), [outside.orderId], 'the order outside the group rests')
  t.match(h.place(bid(450_000, 1)).result, { ok: false, code: 'ORDER_GROUP_TRIGGERED' })
  t.match(group('reset').result, { ok: true })
  t.match(h.place(bid(450_000, 1)).result, { ok: true, status: 'LIVE' }, 'taking orders again after the reset')
  t.end()
})

t.test('the notional limit, the freeze, the window forgetting old fills', (t) => {
  const { h, group, bid, sell } = setUp()
  group('create', { notional: 2 * USDC, windowMs: 1_000, freezeMs: 5_000 })
  h.place(bid(400_000, 20))
  sell(400_000, 4) // 1.6 USDC of notional
  h.timeMs = T0_MS + 10_000 // past the window: the 1.6 is forgotten
  sell(400_000, 4)
  t.equal(openIds(h).length, 1, '1.6 + 1.6 a window apart: no trigger')
  sell(400_000, 2) // 1.6 + 0.8 = 2.4 in one window: trigger
  t.strictSame(openIds(h), [])
  t.match(h.place(bid(400_000, 1)).result, { ok: false, code: 'ORDER_GROUP_TRIGGERED' }, 'frozen')
  h.timeMs += 5_000
  t.match(h.place(bid(400_000, 1)).result, { ok: true, status: 'LIVE' }, 'the freeze ended on its own')
  t.end()
})

t.test('a taker of a triggered group stops; a FOK completes', (t) => {
  const { h, m, group, sell } = setUp()
  group('create', { contracts: 3 * USDC })
  for (let i = 0; i < 5; i++) sell(500_000, 2)
  const gtc = { ...h.order({ maker, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 8 * USDC }),
    orderGroupId: 'mmp' }
  const applied = h.place(gtc)
  t.match(applied.result, { ok: true, status: 'CANCELED', takingMicros: 4 * USDC }, 'stopped at 4 (2 + 2 reach 3)')
  t.match(applied.events.filter((e) => e.type === 'orderUpdate' && e.orderId === gtc.orderId),
    [{ status: 'CANCELED', reason: 'order-group', sizeMatchedMicros: 4 * USDC }])
  group('reset')
  // 6 at 0.50 spend the whole 3 USDC budget: filled, past the trigger at 4.
  const fok = { ...h.order({ maker, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 6 * USDC,
    timeInForce: 'FOK' }), orderGroupId: 'mmp' }
  const placed = h.place(fok)
  t.match(placed.result, { ok: true, status: 'MATCHED', takingMicros: 6 * USDC }, 'a FOK fills whole: its dry run promised it')
  t.match(placed.events.filter((e) => e.type === 'orderGroup'), [{ action: 'triggered' }], 'and its group triggered')
  t.end()
})

t.test('create, update, trigger by hand, delete; refusals', (t) => {
  const { h, group, bid } = setUp()
  const refusals: [string, ReturnType<typeof group>, string][] = [
    ['no limit', group('create', {}), 'ORDER_GROUP_INVALID'],
    ['a window under a second', group('create', { contracts: USDC, windowMs: 900 }), 'ORDER_GROUP_INVALID'],
    ['a window off the 100 ms grid', group('create', { contracts: USDC, windowMs: 1_050 }), 'ORDER_GROUP_INVALID'],
    ['an empty id', group('create', { contracts: USDC }, ''), 'ORDER_GROUP_INVALID'],
    ['an unknown group', group('trigger', {}, 'nope'), 'ORDER_GROUP_NOT_FOUND'],
  ]
  for (const [what, applied, code] of refusals) t.match(applied.result, { ok: false, code }, what)
  t.match(h.place(bid(400_000, 1, 'nope')).result, { ok: false, code: 'ORDER_GROUP_NOT_FOUND' })
  group('create', { contracts: USDC })
  t.match(group('create', { contracts: USDC }).result, { ok: false, code: 'ORDER_GROUP_EXISTS' })
  for (let i = 1; i < 16; i++) group('create', { contracts: USDC }, `g${i}`)
  t.match(group('create', { contracts: USDC }, 'g16').result, { ok: false, code: 'ORDER_GROUPS_FULL' }, '16 a key')
  t.match(group('update', { contracts: 5 * USDC, windowMs: 2_000 }).result, { ok: true })
  const b = bid(400_000, 2)
  h.place(b)
  const triggered = group('trigger')
  t.match(triggered.events, [{ type: 'orderUpdate', orderId: b.orderId, reason: 'order-group' },
    { type: 'orderGroup', action: 'triggered' }])
  group('reset')
  const b2 = bid(400_000, 2)
  h.place(b2)
  t.match(group('delete').events.filter((e) => e.type === 'orderUpdate'), [{ orderId: b2.orderId, reason: 'order-group' }],
    'deleting a group cancels its orders')
  t.match(h.place(bid(400_000, 1)).result, { ok: false, code: 'ORDER_GROUP_NOT_FOUND' })
  t.end()
})

t.test('groups, their windows and their orders survive a snapshot; no group: version 4 bytes', (t) => {
  const { h, m, group, bid, sell } = setUp()
  t.equal(encodeSnapshot(h.engine)[8], 4, 'a state without groups is written as version 4')
  group('create', { contracts: 10 * USDC, windowMs: 5_000 })
  h.place(bid(450_000, 8))
  h.place(bid(440_000, 8))
  sell(450_000, 6)
  const bytes = encodeSnapshot(h.engine)
  t.equal(bytes[8], 5)
  const loaded = decodeSnapshot(bytes)
  t.equal(stateHashOf(loaded), stateHashOf(h.engine))
  // Both remember the 6 in the window: 5 more (2 of the first bid, 3 of the second) trigger each.
  const again = new Harness(loaded)
  const seller = { ...h.order({ maker: taker, tokenId: m.yes, side: 'SELL', priceMicros: 440_000, sizeMicros: 5 * USDC }),
    orderId: `0x${'f'.repeat(64)}` }
  const original = h.place(seller)
  const restored = again.place(seller)
  t.match(original.events.filter((e) => e.type === 'orderGroup'), [{ action: 'triggered' }])
  t.strictSame(restored.events, original.events, 'the restored engine does exactly what the original did')
  t.equal(stateHashOf(again.engine), stateHashOf(h.engine))
  t.end()
})

/** Found by the reference model (the seeds and three hand sequences): each failed on the engine before its fix. */
t.test('a taker filled whole by the fill that triggers its group ends MATCHED, not cancelled', (t) => {
  const { h, m, group, sell } = setUp()
  group('create', { contracts: 3 * USDC })
  sell(500_000, 3)
  const bid = { ...h.order({ maker, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 3 * USDC }),
    orderGroupId: 'mmp' }
  const applied = h.place(bid)
  t.match(applied.result, { ok: true, status: 'MATCHED', takingMicros: 3 * USDC })
  t.match(applied.events.filter((e) => e.type === 'orderGroup'), [{ action: 'triggered' }], 'the group triggered')
  t.strictSame(applied.events.filter((e) => e.type === 'orderUpdate' && e.orderId === bid.orderId).map((e) =>
    (e as { status: string }).status), ['MATCHED'], 'no rest to cancel')
  t.end()
})

t.test('a FOK dry run skips the makers a group trigger would pull: no FOK fills in part', (t) => {
  const { h, m, group } = setUp()
  // The maker's three group bids (limit 2 shares) and another trader's: a FOK sell of 6 would meet 2,
  // trigger the group (its other 4 pulled), then find only 2 more: not filled, so refused whole.
  group('create', { contracts: 2 * USDC })
  for (const priceMicros of [500_000, 500_000, 490_000]) {
    h.place({ ...h.order({ maker, tokenId: m.yes, side: 'BUY', priceMicros, sizeMicros: 2 * USDC }), orderGroupId: 'mmp' })
  }
  h.fund(addressOf(3), 100 * USDC)
  h.place(h.order({ maker: addressOf(3), tokenId: m.yes, side: 'BUY', priceMicros: 480_000, sizeMicros: 2 * USDC }))
  const fok = h.order({ maker: taker, tokenId: m.yes, side: 'SELL', priceMicros: 480_000, sizeMicros: 6 * USDC,
    timeInForce: 'FOK' })
  const applied = h.place(fok)
  t.match(applied.result, { ok: false, code: 'FOK_ORDER_NOT_FILLED' })
  t.strictSame(applied.events.filter((e) => e.type !== 'orderRejected'), [], 'nothing traded')
  t.end()
})

t.test('a FOK whose own group\'s trigger pulls its own order before the walk reaches it is filled', (t) => {
  const { h, m, group } = setUp()
  h.split(maker, m.marketId, 50 * USDC)
  group('create', { contracts: 2 * USDC })
  const other = addressOf(3)
  h.fund(other, 100 * USDC)
  h.place(h.order({ maker: other, tokenId: m.yes, side: 'BUY', priceMicros: 510_000, sizeMicros: 2 * USDC }))
  h.place({ ...h.order({ maker, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 5 * USDC }),
    orderGroupId: 'mmp' })
  h.place(h.order({ maker: other, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 2 * USDC }))
  // The FOK (cancel-both, in the group) fills 2 at 0.51: the group triggers and pulls the maker's own
  // 0.50 bid, so the walk goes on to the other 0.50 bid and fills whole.
  const fok = { ...h.order({ maker, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 4 * USDC,
    timeInForce: 'FOK' }), selfTradePrevention: 'cancel-both' as const, orderGroupId: 'mmp' }
  t.match(h.place(fok).result, { ok: true, status: 'MATCHED', makingMicros: 4 * USDC })
  t.end()
})
