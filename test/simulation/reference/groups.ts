/**
 * Order groups: fill limits over a window, triggers that cancel the group's orders, and their events.
 */
import type { OrderGroupCommand, OrderInput } from '../../../src/engine/command.js'
import type { OrderGroupAction as GroupEventAction, OrderGroupChanged } from '../../../src/engine/event.js'
import type { CommandResult, Rejection } from '../../../src/engine/result.js'
import { Code } from '../../../src/engine/codes.js'
import {
  ORDER_AMOUNT_MICROS_MAX,
  ORDER_GROUP_BUCKET_MS,
  ORDER_GROUP_FREEZE_MS_MAX,
  ORDER_GROUP_WINDOW_MS_MAX,
  ORDER_GROUP_WINDOW_MS_MIN,
  ORDER_GROUPS_MAX,
  ORDER_GROUPS_PER_KEY_MAX,
} from '../../../src/engine/limits.js'
import { end } from './matching.js'
import { DONE, type GroupState, LOT, ReferenceState, type Step, refuse, rejection } from './state.js'
import { isGroupId, isNonNegativeInt } from './validation.js'

/** The lots and notional micro-USDC of a group's window. */
export interface WindowSums {
  readonly lots: bigint
  readonly notional: bigint
}

/** Whether a fill in `bucket` is in a group's window at `now` (a bucket): the last windowMs / 100 buckets up to now's. */
export function inWindow(g: GroupState, bucket: number, now: number): boolean {
  return bucket > now - g.windowMs / ORDER_GROUP_BUCKET_MS && bucket <= now
}

/** A group's window at bucket `now`. */
export function windowSums(g: GroupState, now: number): WindowSums {
  let lots = 0n
  let notional = 0n
  for (const f of g.fills) {
    if (!inWindow(g, f.bucket, now)) continue
    lots += f.lots
    notional += f.notional
  }
  return { lots, notional }
}

/** Whether a window reaches one of the group's limits (0: no such limit); micro-shares are lots x 10 000. */
export function reachesLimit(g: GroupState, w: WindowSums): boolean {
  return (g.contractsLimitMicros > 0 && w.lots * LOT >= BigInt(g.contractsLimitMicros)) ||
    (g.notionalLimitMicros > 0 && w.notional >= BigInt(g.notionalLimitMicros))
}

/**
 * The first unacceptable limit of a create or update, or null: each limit a whole number of
 * micro-units, at least one of them not 0; a window of 1 to 60 s in whole buckets; a freeze of 0
 * to an hour. SPEC: a limit is bounded as an order's amount is (ORDER_AMOUNT_MICROS_MAX: the docs
 * give no bound, and no fill can pass that); a contracts limit need not be a whole number of lots
 * (the window reaches it at the first lot at or above it). Neither limit is a limit when 0, so
 * both 0 names the first field.
 */
export function limitsError(c: OrderGroupCommand): string | null {
  const isLimit = (v: unknown): boolean => isNonNegativeInt(v) && (v as number) <= ORDER_AMOUNT_MICROS_MAX
  if (!isLimit(c.contractsLimitMicros)) return 'contractsLimitMicros'
  if (!isLimit(c.notionalLimitMicros)) return 'notionalLimitMicros'
  if (c.contractsLimitMicros === 0 && c.notionalLimitMicros === 0) return 'contractsLimitMicros'
  const w: unknown = c.windowMs
  if (!isNonNegativeInt(w) || (w as number) < ORDER_GROUP_WINDOW_MS_MIN || (w as number) > ORDER_GROUP_WINDOW_MS_MAX ||
    (w as number) % ORDER_GROUP_BUCKET_MS !== 0) return 'windowMs'
  if (!isNonNegativeInt(c.freezeMs) || c.freezeMs > ORDER_GROUP_FREEZE_MS_MAX) return 'freezeMs'
  return null
}

export function groupInvalid(field: string): Rejection {
  return rejection(refuse(Code.ORDER_GROUP_INVALID, { field }))
}

/**
 * create, update, trigger, reset or delete a group of an API key (docs: "Order groups").
 * The group id first (ORDER_GROUP_INVALID {field: groupId}); create then answers
 * ORDER_GROUP_EXISTS, the limits, ORDER_GROUPS_FULL, in that order; any other action needs the
 * group (ORDER_GROUP_NOT_FOUND); update reads the limits.
 * SPEC: `address` is not judged (a group is its key's; the face checks the key's credentials).
 * SPEC: an action that is none of the five answers ORDER_GROUP_NOT_FOUND when the key has no
 * such group, else ORDER_GROUP_INVALID {field: action}: the group is looked for first, as for
 * every action but create.
 */
export function orderGroup(r: ReferenceState, c: OrderGroupCommand, step: Step): CommandResult {
  if (!isGroupId(c.groupId)) return groupInvalid('groupId')
  const group = groupOf(r, c.owner, c.groupId)
  if (c.action === 'create') return createGroup(r, c, group, step)
  if (group === undefined) return rejection(refuse(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: c.groupId }))
  switch (c.action) {
    case 'update': {
      const field = limitsError(c)
      if (field !== null) return groupInvalid(field)
      // A new window length starts an empty window; the same length keeps what it holds. A lower
      // limit takes effect at the next fill (no fill, no trigger).
      if (c.windowMs !== group.windowMs) group.fills = []
      group.contractsLimitMicros = c.contractsLimitMicros
      group.notionalLimitMicros = c.notionalLimitMicros
      group.windowMs = c.windowMs
      group.freezeMs = c.freezeMs
      emitGroup(r, group, 'updated', step)
      return DONE
    }
    case 'trigger':
      // SPEC: by hand also when it is triggered already: its time is now, its freeze starts again.
      triggerGroup(r, group, step)
      return DONE
    case 'reset':
      group.triggeredMs = null
      group.fills = []
      emitGroup(r, group, 'reset', step)
      return DONE
    case 'delete': {
      cancelGroupOrders(r, group, step)
      const ofOwner = r.groups.get(c.owner)!
      ofOwner.delete(c.groupId)
      if (ofOwner.size === 0) r.groups.delete(c.owner)
      emitGroup(r, group, 'deleted', step)
      return DONE
    }
    default:
      return groupInvalid('action')
  }
}

export function createGroup(r: ReferenceState, c: OrderGroupCommand, existing: GroupState | undefined, step: Step): CommandResult {
  if (existing !== undefined) return rejection(refuse(Code.ORDER_GROUP_EXISTS, { orderGroupId: c.groupId }))
  const field = limitsError(c)
  if (field !== null) return groupInvalid(field)
  let total = 0
  for (const ofOwner of r.groups.values()) total += ofOwner.size
  if ((r.groups.get(c.owner)?.size ?? 0) >= ORDER_GROUPS_PER_KEY_MAX || total >= ORDER_GROUPS_MAX) {
    return rejection(refuse(Code.ORDER_GROUPS_FULL, { perKeyMax: ORDER_GROUPS_PER_KEY_MAX }))
  }
  const group: GroupState = {
    owner: c.owner,
    groupId: c.groupId,
    contractsLimitMicros: c.contractsLimitMicros,
    notionalLimitMicros: c.notionalLimitMicros,
    windowMs: c.windowMs,
    freezeMs: c.freezeMs,
    triggeredMs: null,
    fills: [],
  }
  let ofOwner = r.groups.get(c.owner)
  if (ofOwner === undefined) {
    ofOwner = new Map()
    r.groups.set(c.owner, ofOwner)
  }
  ofOwner.set(c.groupId, group)
  emitGroup(r, group, 'created', step)
  return DONE
}

export function groupOf(r: ReferenceState, owner: string, groupId: string): GroupState | undefined {
  return r.groups.get(owner)?.get(groupId)
}

/** The group an order joins: the one its orderGroupId names among its owner's (it passed the checks). */
export function groupNamed(r: ReferenceState, input: OrderInput): GroupState | null {
  const groupId = input.orderGroupId
  if (groupId === undefined || groupId === '') return null
  return groupOf(r, input.owner, groupId) ?? null
}

/**
 * Whether a group refuses orders now: it triggered, and its freeze (as it is now: an update may
 * change it) has not ended. A freeze of 0 lasts until a reset.
 */
export function isTriggered(r: ReferenceState, g: GroupState): boolean {
  return g.triggeredMs !== null && (g.freezeMs === 0 || r.timeMs < g.triggeredMs + g.freezeMs)
}

/** The 100 ms bucket of the command's time. */
export function bucketNow(r: ReferenceState): number {
  return Math.floor(r.timeMs / ORDER_GROUP_BUCKET_MS)
}

/** Counts a fill in a group's window (now); whether the window now reaches a limit. */
export function addGroupFill(r: ReferenceState, g: GroupState, lots: bigint, notional: bigint): boolean {
  const bucket = bucketNow(r)
  // Fills that have left the window count no more (the window only moves forward).
  g.fills = g.fills.filter((f) => inWindow(g, f.bucket, bucket))
  g.fills.push({ bucket, lots, notional })
  return reachesLimit(g, windowSums(g, bucket))
}

/**
 * Triggers a group: it refuses orders from now (until reset, or its freeze ends), its window is
 * emptied, its resting orders are cancelled (reason order-group, oldest first), then its event.
 */
export function triggerGroup(r: ReferenceState, g: GroupState, step: Step): void {
  g.triggeredMs = r.timeMs
  g.fills = []
  cancelGroupOrders(r, g, step)
  emitGroup(r, g, 'triggered', step)
}

export function cancelGroupOrders(r: ReferenceState, g: GroupState, step: Step): void {
  for (const o of r.live.filter((x) => x.group === g)) end(r, o, 'CANCELED', 'order-group', step)
}

/**
 * A group's event. SPEC: `triggered` says whether it has triggered and not been reset since,
 * not whether its freeze still holds (an update after the freeze ended says true).
 */
export function emitGroup(r: ReferenceState, g: GroupState, action: GroupEventAction, step: Step): void {
  const event: OrderGroupChanged = {
    type: 'orderGroup',
    owner: g.owner,
    groupId: g.groupId,
    action,
    contractsLimitMicros: g.contractsLimitMicros,
    notionalLimitMicros: g.notionalLimitMicros,
    windowMs: g.windowMs,
    freezeMs: g.freezeMs,
    triggered: g.triggeredMs !== null,
    timeMs: r.timeMs,
  }
  step.events.push(event)
}
