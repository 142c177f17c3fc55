/**
 * Order groups with fill limits, for an authenticated trader (docs/engine.md, "Order groups";
 * docs/rest.md): create, update, trigger by hand, reset, delete and list the groups of the
 * trader's API key. An order joins a group at placement (its `orderGroupId`). Each change is one
 * engine command (journaled); the list is a read of the engine's state.
 */
import type { OrderGroupAction } from '../../engine/command.js'
import type { OrderGroupView } from '../../engine/order-group.js'
import { ApiCode, PredexError } from '../../errors.js'
import { Code, CODE_MESSAGES } from '../../engine/codes.js'
import { accepted, submit } from '../commands.js'
import type { ServiceContext } from '../context.js'
import type { Trader } from './trading.js'

/**
 * A group's limits: shares and USDC filled in the window (0: no such limit), the window, the
 * freeze (0: until reset).
 */
export interface GroupLimits {
  readonly contractsLimitMicros: number
  readonly notionalLimitMicros: number
  readonly windowMs: number
  readonly freezeMs: number
}

const NO_LIMITS: GroupLimits = { contractsLimitMicros: 0, notionalLimitMicros: 0, windowMs: 0, freezeMs: 0 }

/** The trader's groups, by id. */
export async function orderGroupsOf(context: ServiceContext, trader: Trader): Promise<readonly OrderGroupView[]> {
  const answer = await context.host.query({ kind: 'orderGroups', owner: trader.apiKey })
  if (answer.kind !== 'orderGroups') throw new PredexError(ApiCode.INTERNAL, 'the engine answered another query')
  return answer.groups
}

/** One of the trader's groups; ORDER_GROUP_NOT_FOUND if it has none of this id. */
export async function orderGroupOf(context: ServiceContext, trader: Trader, groupId: string): Promise<OrderGroupView> {
  const group = (await orderGroupsOf(context, trader)).find((g) => g.groupId === groupId)
  if (group === undefined) {
    throw new PredexError(Code.ORDER_GROUP_NOT_FOUND, CODE_MESSAGES.ORDER_GROUP_NOT_FOUND, { orderGroupId: groupId })
  }
  return group
}

export function createOrderGroup(context: ServiceContext, trader: Trader, groupId: string, limits: GroupLimits):
  Promise<OrderGroupView> {
  return change(context, trader, groupId, 'create', limits)
}

/** New limits; what `limits` leaves out keeps its value. */
export async function updateOrderGroup(context: ServiceContext, trader: Trader, groupId: string,
  limits: Partial<GroupLimits>): Promise<OrderGroupView> {
  const current = await orderGroupOf(context, trader, groupId)
  return change(context, trader, groupId, 'update', {
    contractsLimitMicros: limits.contractsLimitMicros ?? current.contractsLimitMicros,
    notionalLimitMicros: limits.notionalLimitMicros ?? current.notionalLimitMicros,
    windowMs: limits.windowMs ?? current.windowMs,
    freezeMs: limits.freezeMs ?? current.freezeMs,
  })
}

/** Triggers the group now: its resting orders are cancelled, it refuses orders until reset (or its freeze ends). */
export function triggerOrderGroup(context: ServiceContext, trader: Trader, groupId: string): Promise<OrderGroupView> {
  return change(context, trader, groupId, 'trigger', NO_LIMITS)
}

/** Takes orders again, with an empty window. */
export function resetOrderGroup(context: ServiceContext, trader: Trader, groupId: string): Promise<OrderGroupView> {
  return change(context, trader, groupId, 'reset', NO_LIMITS)
}

/** Deletes the group; its resting orders are cancelled. */
export async function deleteOrderGroup(context: ServiceContext, trader: Trader, groupId: string): Promise<void> {
  await command(context, trader, groupId, 'delete', NO_LIMITS)
}

async function change(context: ServiceContext, trader: Trader, groupId: string, action: OrderGroupAction,
  limits: GroupLimits): Promise<OrderGroupView> {
  await command(context, trader, groupId, action, limits)
  return orderGroupOf(context, trader, groupId)
}

async function command(context: ServiceContext, trader: Trader, groupId: string, action: OrderGroupAction,
  limits: GroupLimits): Promise<number> {
  const { result, seq } = await submit(context, { kind: 'orderGroup', action, address: trader.address,
    owner: trader.apiKey, groupId, ...limits })
  accepted(result)
  return seq
}
