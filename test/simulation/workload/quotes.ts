/**
 * Mass quotes (with `massQuotes`) and order groups (with `orderGroups`).
 * Part of the simulation's workload (../workload.ts): functions over one WorkloadState.
 */
import type { Command, MassQuote, OrderGroupAction, OrderGroupCommand, OrderInput }
  from '../../../src/engine/command.js'
import { MASS_QUOTE_LEVELS_MAX, MICROS_PER_LOT, MICROS_PER_UNIT, ORDER_AMOUNT_MICROS_MAX, ORDER_GROUP_FREEZE_MS_MAX, ORDER_GROUP_ID_LENGTH_MAX, ORDER_GROUP_WINDOW_MS_MAX, ORDER_GROUP_WINDOW_MS_MIN }
  from '../../../src/engine/limits.js'
import { type AccountView, GROUP_IDS, type MarketView, type Stamp, WorkloadState, onGrid, orderMarket, otherAccount, pickAccount, uuid } from './state.js'
import { restingAt } from './orders.js'

/**
 * A trader re-quotes a small ladder on a market: it keeps about half of its key's live quotes
 * there, names now and then an ended order of its own (reported: already matched or cancelled),
 * someone's (not found) or an unknown id, and places 0 to 4 new levels a side from a tick or two
 * through the mid outwards (so some trade at once). About one in seven is malformed: an unknown
 * market, an order of another market or of another key, an id named twice (a kept one again, or
 * a new order's), an id that is not a string, more than MASS_QUOTE_LEVELS_MAX on a side. Sent by
 * the key's wallet, now and then by its signer (whose wallet, for the proxy-wallet accounts, has
 * no orders: the new orders' maker is what finds the ladder then).
 */
export function massQuote(w: WorkloadState, s: Stamp): Command {
  const a = pickAccount(w)
  const m = orderMarket(w)
  let marketId = m.input.marketId
  const mine = [...w.live.values()].filter((o) => o.input.owner === a.apiKey && o.marketId === marketId)
  const keep: unknown[] = mine.filter(() => w.rng.chance(0.55)).map((o) => o.input.orderId)
  const ownEnded = w.ended.filter((e) => e.maker === a.address)
  if (ownEnded.length > 0 && w.rng.chance(0.25)) keep.push(w.rng.pick(ownEnded).id)
  if (w.rng.chance(0.05)) {
    const others = [...w.live.values()].filter((o) => o.input.owner !== a.apiKey)
    const pool = others.length > 0 && w.rng.chance(0.5) ? others.map((o) => o.input.orderId) : w.ended.map((e) => e.id)
    const id = pool.length > 0 ? w.rng.pick(pool) : `0x${w.rng.hex(32)}`
    if (!keep.includes(id)) keep.push(id)
  }
  if (w.rng.chance(0.04)) keep.push(`0x${w.rng.hex(32)}`)
  const orders = [...ladder(w, m, a, true, w.rng.int(0, 4)), ...ladder(w, m, a, false, w.rng.int(0, 4))]
  const r = w.rng.int(0, 99)
  if (r < 3) marketId = uuid(w)
  else if (r < 6) {
    const elsewhere = [...w.markets.values()].filter((x) => x !== m)
    if (elsewhere.length > 0) orders.splice(w.rng.int(0, orders.length), 0, freshQuoteIn(w, w.rng.pick(elsewhere), a))
  } else if (r < 8) {
    const other = otherAccount(w, a.address)
    orders.push({ ...freshQuoteIn(w, m, a), owner: other.apiKey })
  } else if (r < 11) {
    const ids = [...keep, ...orders.map((o) => o.orderId)]
    const twice = ids.length > 0 ? w.rng.pick(ids) : `0x${w.rng.hex(32)}`
    if (ids.length === 0 || w.rng.chance(0.5)) keep.push(twice)
    else orders.push({ ...freshQuoteIn(w, m, a), orderId: twice as string })
  } else if (r < 12) keep.push(w.rng.pick<unknown>([null, 7, undefined, { orderId: 'x' }]))
  else if (r < 14) orders.push(...ladder(w, m, a, w.rng.chance(0.5), MASS_QUOTE_LEVELS_MAX + 1))
  const address = w.rng.chance(0.1) ? a.signer : a.address
  const quote: MassQuote = { kind: 'massQuote', ...s, address, owner: a.apiKey, marketId, keep: keep as string[], orders }
  return quote
}

/** `n` resting orders of `a` on one side of `m`, from a tick through the mid (or a few ticks off it) outwards. */
export function ladder(w: WorkloadState, m: MarketView, a: AccountView, bid: boolean, n: number): OrderInput[] {
  const out: OrderInput[] = []
  let offset = w.rng.int(-1, 3)
  for (let i = 0; i < n; i++) {
    const yesPips = onGrid(m, m.midPips + (bid ? -offset : offset) * m.tickPips)
    out.push(restingAt(w, m, a, bid, yesPips, w.rng.chance(0.9) ? 'GTC' : 'GTD', w.rng.chance(0.1)))
    offset += w.rng.int(1, 2)
  }
  return out
}

/** A resting order of `a` in market `m`, a few ticks off the mid. */
export function freshQuoteIn(w: WorkloadState, m: MarketView, a: AccountView): OrderInput {
  const bid = w.rng.chance(0.5)
  const offset = w.rng.int(1, 6)
  return restingAt(w, m, a, bid, onGrid(m, m.midPips + (bid ? -offset : offset) * m.tickPips), 'GTC', false)
}

/**
 * An order group command of a key: mostly a create with small limits (of one of the key's few
 * ids: an existing one is refused) or an update, trigger, reset or delete of one of its groups;
 * sometimes invalid limits, an unknown group, a malformed id, an unknown action, or one more
 * group for the first account's key (until it has its 16: ORDER_GROUPS_FULL).
 */
export function orderGroup(w: WorkloadState, s: Stamp): Command {
  const a = pickAccount(w)
  const mine = [...(w.groups.get(a.apiKey)?.keys() ?? [])]
  const command = (action: unknown, groupId: unknown, limits = groupLimits(w), of = a): OrderGroupCommand => ({
    kind: 'orderGroup', ...s, action: action as OrderGroupAction, address: of.address, owner: of.apiKey,
    groupId: groupId as string, ...limits,
  })
  const anyAction = (): string => w.rng.pick(['create', 'update', 'trigger', 'reset', 'delete'])
  const r = w.rng.int(0, 99)
  if (r < 26 || (r >= 49 && mine.length === 0)) return command('create', w.rng.pick(GROUP_IDS))
  if (r < 32) {
    const first = w.accounts[0] ?? a
    return command('create', `extra ${w.extraGroups++}`, groupLimits(w), first)
  }
  if (r < 38) {
    const groupId = mine.length > 0 && w.rng.chance(0.6) ? w.rng.pick(mine) : w.rng.pick(GROUP_IDS)
    return command(w.rng.chance(0.5) ? 'create' : 'update', groupId, badLimits(w))
  }
  if (r < 43) return command(anyAction(), `nope ${w.rng.int(1, 3)}`)
  if (r < 46) {
    const bad: readonly unknown[] = ['', 'g'.repeat(ORDER_GROUP_ID_LENGTH_MAX + 1), 'tab\there', 'caf\u00e9', 5, null]
    return command(anyAction(), w.rng.pick(bad))
  }
  if (r < 49) {
    const groupId = mine.length > 0 ? w.rng.pick(mine) : w.rng.pick(GROUP_IDS)
    return command(w.rng.pick(['cancel', 'TRIGGER', '', 7]), groupId)
  }
  const groupId = w.rng.pick(mine)
  if (r < 62) return command('update', groupId)
  if (r < 72) return command('trigger', groupId)
  if (r < 92) return command('reset', groupId)
  return command('delete', groupId)
}

/**
 * Small limits, so that a few fills reach them: a contracts limit of 1 to 40 shares (now and
 * then not whole lots) and/or a notional one of 1 to 30 USDC; a window of 1 to 60 s; no freeze
 * (until reset), or one of up to 10 s or a minute.
 */
export function groupLimits(w: WorkloadState): Pick<OrderGroupCommand, 'contractsLimitMicros' | 'notionalLimitMicros' | 'windowMs' | 'freezeMs'> {
  const r = w.rng.int(0, 99)
  let contractsLimitMicros = r < 70 ? w.rng.int(1, 40) * MICROS_PER_UNIT : 0
  if (contractsLimitMicros > 0 && w.rng.chance(0.1)) contractsLimitMicros += w.rng.int(1, MICROS_PER_LOT - 1)
  let notionalLimitMicros = r >= 50 ? w.rng.int(1, 30) * MICROS_PER_UNIT : 0
  if (notionalLimitMicros > 0 && w.rng.chance(0.2)) notionalLimitMicros += w.rng.int(1, MICROS_PER_UNIT - 1)
  const windowMs = w.rng.chance(0.6)
    ? w.rng.pick([ORDER_GROUP_WINDOW_MS_MIN, 2_000, 5_000, 10_000, ORDER_GROUP_WINDOW_MS_MAX])
    : w.rng.int(10, 600) * 100
  const f = w.rng.int(0, 9)
  const freezeMs = f < 4 ? 0 : f < 8 ? w.rng.int(1, 100) * 100 : w.rng.int(1, 60) * 1_000
  return { contractsLimitMicros, notionalLimitMicros, windowMs, freezeMs }
}

/** Limits with one fault (ORDER_GROUP_INVALID). */
export function badLimits(w: WorkloadState): Pick<OrderGroupCommand, 'contractsLimitMicros' | 'notionalLimitMicros' | 'windowMs' | 'freezeMs'> {
  const good = groupLimits(w)
  const bad = <T>(values: readonly unknown[]): T => w.rng.pick(values) as T
  const faults = [
    (): typeof good => ({ ...good, contractsLimitMicros: 0, notionalLimitMicros: 0 }),
    (): typeof good => ({ ...good, contractsLimitMicros: bad([-1, 1.5, Number.NaN, ORDER_AMOUNT_MICROS_MAX + 1, '5000000']) }),
    (): typeof good => ({ ...good, notionalLimitMicros: bad([-1, 2.5, Number.POSITIVE_INFINITY, null]) }),
    (): typeof good => ({
      ...good,
      windowMs: bad([0, ORDER_GROUP_WINDOW_MS_MIN - 100, 1_050, ORDER_GROUP_WINDOW_MS_MAX + 100, -1_000, 1_500.5]),
    }),
    (): typeof good => ({ ...good, freezeMs: bad([-1, ORDER_GROUP_FREEZE_MS_MAX + 1, 2.5, Number.NaN]) }),
  ]
  return w.rng.pick(faults)()
}
