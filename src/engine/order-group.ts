/**
 * Order groups with fill limits (issue 31; "market-maker protection" at Deribit, Kalshi's order
 * groups; docs/engine.md, "Order groups"). A group belongs to an API key; an order joins one at
 * placement. Each fill of one of its orders adds the shares and the USDC notional (at the order's
 * own price) to the group's rolling window of engine time; once either sum reaches its limit, the
 * group triggers in the same step as the fill: every resting order of the group is cancelled
 * (reason `order-group`), a taker of the group stops where it is (unless it is FOK, whose dry run
 * promised it whole), and the group takes no new order until it is reset, or until its freeze
 * ends. So no later fill can meet a quote that the limit meant to pull.
 *
 * The window counts whole buckets of ORDER_GROUP_BUCKET_MS: a fill at time t falls in bucket
 * floor(t / bucket), and the window at t is the last windowMs / bucket buckets up to t's own. The
 * buckets are a ring with running sums, so a fill costs O(1) amortised and a group's memory is
 * bounded by its window (at most 600 buckets).
 */
import { Code } from './codes.js'
import type { OrderGroupCommand } from './command.js'
import type { Engine } from './engine.js'
import type { OrderGroupAction as EventAction } from './event.js'
import { cancelResting } from './lifecycle.js'
import {
  MICROS_PER_LOT, ORDER_AMOUNT_MICROS_MAX, ORDER_GROUP_BUCKET_MS, ORDER_GROUP_FREEZE_MS_MAX, ORDER_GROUP_WINDOW_MS_MAX,
  ORDER_GROUP_WINDOW_MS_MIN, ORDER_GROUPS_MAX, ORDER_GROUPS_PER_KEY_MAX,
} from './limits.js'
import { NO_ROW, type OrderRow } from './order-table.js'
import { isClientOrderId } from './order-shape.js'
import { rejection } from './rejection.js'
import type { Done, Rejection } from './result.js'

export class OrderGroup {
  /** Its resting orders, oldest first: a list through the order table's groupPrev and groupNext. */
  head: OrderRow = NO_ROW
  tail: OrderRow = NO_ROW
  restingCount = 0
  /** Engine time it triggered, or -1. */
  triggeredMs = -1
  /** Lots and micro-USDC filled per bucket, a ring of windowMs / bucket slots, and their sums. */
  private lots: Float64Array
  private notional: Float64Array
  windowLots = 0
  windowNotionalMicros = 0
  /** The latest bucket the ring holds (its older slots expire as later ones are written). */
  lastBucket = 0

  constructor(readonly owner: string, readonly groupId: string, public contractsLimitMicros: number,
    public notionalLimitMicros: number, public windowMs: number, public freezeMs: number) {
    this.lots = new Float64Array(windowMs / ORDER_GROUP_BUCKET_MS)
    this.notional = new Float64Array(windowMs / ORDER_GROUP_BUCKET_MS)
  }

  /** Whether it refuses orders at `timeMs`: triggered, and its freeze (if any) not over. */
  isTriggered(timeMs: number): boolean {
    return this.triggeredMs >= 0 && (this.freezeMs === 0 || timeMs < this.triggeredMs + this.freezeMs)
  }

  /** Adds a fill; whether the window now reaches a limit. */
  addFill(timeMs: number, lots: number, notionalMicros: number): boolean {
    const bucket = Math.floor(timeMs / ORDER_GROUP_BUCKET_MS)
    this.advanceTo(bucket)
    const slot = bucket % this.lots.length
    this.lots[slot] += lots
    this.notional[slot] += notionalMicros
    this.windowLots += lots
    this.windowNotionalMicros += notionalMicros
    return (this.contractsLimitMicros > 0 && this.windowLots * MICROS_PER_LOT >= this.contractsLimitMicros) ||
      (this.notionalLimitMicros > 0 && this.windowNotionalMicros >= this.notionalLimitMicros)
  }

  /** The window's sums as of `timeMs` (read only). */
  windowAt(timeMs: number): { readonly lots: number; readonly notionalMicros: number } {
    const bucket = Math.floor(timeMs / ORDER_GROUP_BUCKET_MS)
    let lots = 0
    let notionalMicros = 0
    for (const [b, l, n] of this.buckets()) {
      if (b > bucket - this.lots.length && b <= bucket) {
        lots += l
        notionalMicros += n
      }
    }
    return { lots, notionalMicros }
  }

  /** The non-empty buckets, oldest first: [bucket, lots, notional] (snapshots). */
  buckets(): [number, number, number][] {
    const size = this.lots.length
    const out: [number, number, number][] = []
    for (let b = this.lastBucket - size + 1; b <= this.lastBucket; b++) {
      if (b < 0) continue
      const slot = b % size
      if (this.lots[slot] !== 0 || this.notional[slot] !== 0) out.push([b, this.lots[slot]!, this.notional[slot]!])
    }
    return out
  }

  /** Puts a bucket back (a snapshot being loaded), oldest first. */
  restoreBucket(bucket: number, lots: number, notionalMicros: number): void {
    this.advanceTo(bucket)
    const slot = bucket % this.lots.length
    this.lots[slot] = lots
    this.notional[slot] = notionalMicros
    this.windowLots += lots
    this.windowNotionalMicros += notionalMicros
  }

  /** Forgets the window's fills (a trigger consumes them; a reset starts afresh). */
  clearWindow(): void {
    this.lots.fill(0)
    this.notional.fill(0)
    this.windowLots = 0
    this.windowNotionalMicros = 0
  }

  /** New limits; a new window length starts an empty window. */
  setLimits(contractsLimitMicros: number, notionalLimitMicros: number, windowMs: number, freezeMs: number): void {
    this.contractsLimitMicros = contractsLimitMicros
    this.notionalLimitMicros = notionalLimitMicros
    this.freezeMs = freezeMs
    if (windowMs === this.windowMs) return
    this.windowMs = windowMs
    this.lots = new Float64Array(windowMs / ORDER_GROUP_BUCKET_MS)
    this.notional = new Float64Array(windowMs / ORDER_GROUP_BUCKET_MS)
    this.windowLots = 0
    this.windowNotionalMicros = 0
  }

  /** Moves the ring on to `bucket`, expiring the slots it passes (at most one lap). */
  private advanceTo(bucket: number): void {
    if (bucket <= this.lastBucket) return
    const size = this.lots.length
    const from = Math.max(this.lastBucket + 1, bucket - size + 1)
    for (let b = from; b <= bucket; b++) {
      const slot = b % size
      this.windowLots -= this.lots[slot]!
      this.windowNotionalMicros -= this.notional[slot]!
      this.lots[slot] = 0
      this.notional[slot] = 0
    }
    this.lastBucket = bucket
  }
}

/**
 * The groups' windows as a FOK's dry run sees them (matching.ts, wouldFillEntirely): its would-be
 * fills counted on top of each window as it is, and the groups they would trigger pulled. Nothing
 * of a group changes; a group is read only once a fill of it is counted.
 */
export class DryRunGroups {
  private sums: Map<OrderGroup, { lots: number; notionalMicros: number }> | null = null
  private pulled: Set<OrderGroup> | null = null

  constructor(private readonly timeMs: number) {}

  /** Whether the walk would have found this group's orders cancelled by its trigger. */
  isPulled(group: OrderGroup | null): boolean {
    return group !== null && this.pulled !== null && this.pulled.has(group)
  }

  /** A would-be fill of one of the group's orders; one that reaches a limit pulls the group and empties its window. */
  count(group: OrderGroup, lots: number, notionalMicros: number): void {
    this.sums ??= new Map()
    let sum = this.sums.get(group)
    if (sum === undefined) {
      const window = group.windowAt(this.timeMs)
      sum = { lots: window.lots, notionalMicros: window.notionalMicros }
      this.sums.set(group, sum)
    }
    sum.lots += lots
    sum.notionalMicros += notionalMicros
    if ((group.contractsLimitMicros > 0 && sum.lots * MICROS_PER_LOT >= group.contractsLimitMicros) ||
      (group.notionalLimitMicros > 0 && sum.notionalMicros >= group.notionalLimitMicros)) {
      (this.pulled ??= new Set()).add(group)
      sum.lots = 0
      sum.notionalMicros = 0
    }
  }
}

/** One string for an (owner, group id) pair: the owner's length first, as the client order ids' index does. */
export function groupKeyOf(owner: string, groupId: string): string {
  return `${owner.length}:${owner}${groupId}`
}

/** The orderGroup command: create, update, trigger, reset or delete one of a key's groups. */
export function orderGroupCommand(engine: Engine, command: OrderGroupCommand): Done | Rejection {
  if (!isGroupId(command.groupId)) return invalid('groupId')
  const key = groupKeyOf(command.owner, command.groupId)
  const group = engine.orderGroups.get(key)
  if (command.action === 'create') return create(engine, command, key, group)
  if (group === undefined) return rejection(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: command.groupId })
  switch (command.action) {
    case 'update': {
      const refusal = checkLimits(command)
      if (refusal !== null) return refusal
      group.setLimits(command.contractsLimitMicros, command.notionalLimitMicros, command.windowMs, command.freezeMs)
      emitGroup(engine, group, 'updated')
      return { ok: true }
    }
    case 'trigger':
      triggerGroup(engine, group)
      return { ok: true }
    case 'reset':
      group.triggeredMs = -1
      group.clearWindow()
      emitGroup(engine, group, 'reset')
      return { ok: true }
    case 'delete':
      cancelGroupOrders(engine, group)
      engine.orderGroups.delete(key)
      emitGroup(engine, group, 'deleted')
      return { ok: true }
  }
  return invalid('action')
}

function create(engine: Engine, command: OrderGroupCommand, key: string, existing: OrderGroup | undefined):
  Done | Rejection {
  if (existing !== undefined) return rejection(Code.ORDER_GROUP_EXISTS, { orderGroupId: command.groupId })
  const refusal = checkLimits(command)
  if (refusal !== null) return refusal
  let ofOwner = 0
  for (const group of engine.orderGroups.values()) if (group.owner === command.owner) ofOwner++
  if (ofOwner >= ORDER_GROUPS_PER_KEY_MAX || engine.orderGroups.size >= ORDER_GROUPS_MAX) {
    return rejection(Code.ORDER_GROUPS_FULL, { perKeyMax: ORDER_GROUPS_PER_KEY_MAX })
  }
  const group = new OrderGroup(command.owner, command.groupId, command.contractsLimitMicros,
    command.notionalLimitMicros, command.windowMs, command.freezeMs)
  engine.orderGroups.set(key, group)
  emitGroup(engine, group, 'created')
  return { ok: true }
}

function isGroupId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && isClientOrderId(value)
}

/** The limits' rules: whole numbers, one limit at least, a window of whole buckets within bounds. */
export function checkLimits(limits: Pick<OrderGroupCommand, 'contractsLimitMicros' | 'notionalLimitMicros' |
  'windowMs' | 'freezeMs'>): Rejection | null {
  const { contractsLimitMicros, notionalLimitMicros, windowMs, freezeMs } = limits
  if (!isAmount(contractsLimitMicros)) return invalid('contractsLimitMicros')
  if (!isAmount(notionalLimitMicros)) return invalid('notionalLimitMicros')
  if (contractsLimitMicros === 0 && notionalLimitMicros === 0) return invalid('contractsLimitMicros')
  if (!Number.isSafeInteger(windowMs) || windowMs < ORDER_GROUP_WINDOW_MS_MIN || windowMs > ORDER_GROUP_WINDOW_MS_MAX ||
    windowMs % ORDER_GROUP_BUCKET_MS !== 0) return invalid('windowMs')
  if (!Number.isSafeInteger(freezeMs) || freezeMs < 0 || freezeMs > ORDER_GROUP_FREEZE_MS_MAX) {
    return invalid('freezeMs')
  }
  return null
}

function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= ORDER_AMOUNT_MICROS_MAX
}

function invalid(field: string): Rejection {
  return rejection(Code.ORDER_GROUP_INVALID, { field })
}

/** Triggers a group: it refuses orders from now, its window starts afresh, its resting orders are cancelled. */
export function triggerGroup(engine: Engine, group: OrderGroup): void {
  group.triggeredMs = engine.timeMs
  group.clearWindow()
  cancelGroupOrders(engine, group)
  emitGroup(engine, group, 'triggered')
}

function cancelGroupOrders(engine: Engine, group: OrderGroup): void {
  const o = engine.orderTable
  const rows: OrderRow[] = []
  for (let row = group.head; row !== NO_ROW; row = o.groupNext[row]!) rows.push(row)
  for (const row of rows) cancelResting(engine, row, 'order-group')
}

function emitGroup(engine: Engine, group: OrderGroup, action: EventAction): void {
  engine.emit({ type: 'orderGroup', owner: group.owner, groupId: group.groupId, action,
    contractsLimitMicros: group.contractsLimitMicros, notionalLimitMicros: group.notionalLimitMicros,
    windowMs: group.windowMs, freezeMs: group.freezeMs, triggered: group.triggeredMs >= 0, timeMs: engine.timeMs })
}

/** A group as a read shows it, as of the engine's time. */
export interface OrderGroupView {
  readonly groupId: string
  readonly contractsLimitMicros: number
  readonly notionalLimitMicros: number
  readonly windowMs: number
  readonly freezeMs: number
  /** Refusing orders now (triggered, its freeze not over). */
  readonly triggered: boolean
  /** When it last triggered (-1: never, or reset since). */
  readonly triggeredMs: number
  /** Shares and USDC filled in the window as of now. */
  readonly windowContractsMicros: number
  readonly windowNotionalMicros: number
  readonly restingOrders: number
}

/** The groups of `owner`, by id. */
export function orderGroupsOf(engine: Engine, owner: string): OrderGroupView[] {
  const views: OrderGroupView[] = []
  for (const g of engine.orderGroups.values()) {
    if (g.owner !== owner) continue
    const window = g.windowAt(engine.timeMs)
    views.push({ groupId: g.groupId, contractsLimitMicros: g.contractsLimitMicros,
      notionalLimitMicros: g.notionalLimitMicros, windowMs: g.windowMs, freezeMs: g.freezeMs,
      triggered: g.isTriggered(engine.timeMs), triggeredMs: g.triggeredMs,
      windowContractsMicros: window.lots * MICROS_PER_LOT, windowNotionalMicros: window.notionalMicros,
      restingOrders: g.restingCount })
  }
  return views.sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0))
}
