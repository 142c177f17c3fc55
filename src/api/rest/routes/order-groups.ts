/**
 * Order groups over REST (native; docs/rest.md, "Order groups"): parse, call the order-group
 * service (src/service/trading/order-groups.ts), shape the answer.
 */
import type { OrderGroupView } from '../../../engine/order-group.js'
import { ApiCode, PredexError } from '../../../errors.js'
import { REST_SMALL_BODY_BYTES_MAX } from '../../../limits.js'
import * as groups from '../../../service/trading/order-groups.js'
import { decimalOfMicros } from '../../../stdx/decimal.js'
import type { OrderGroupInfo } from '../../shapes/placement.js'
import type { OrderGroupCreate, OrderGroupPatch, Unparsed } from '../../shapes/requests.js'
import { microsOfDecimal, parseJsonBody, requireObject, requireString } from '../../wire.js'
import type { RestRequest } from '../route.js'
import type { TypedRoute } from '../typed-route.js'
import { traderOf } from './common.js'

function groupInfo(group: OrderGroupView): OrderGroupInfo {
  return {
    group_id: group.groupId, contracts_limit: decimalOfMicros(group.contractsLimitMicros),
    notional_limit: decimalOfMicros(group.notionalLimitMicros), window_ms: group.windowMs, freeze_ms: group.freezeMs,
    triggered: group.triggered, triggered_at: group.triggeredMs < 0 ? null : group.triggeredMs,
    window_contracts: decimalOfMicros(group.windowContractsMicros),
    window_notional: decimalOfMicros(group.windowNotionalMicros), resting_orders: group.restingOrders,
  }
}

/** A whole number of milliseconds (the engine judges its range). */
function millisOf(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `${field} must be a whole number of milliseconds`, { field })
  }
  return value
}

function limitsOf(body: Unparsed<OrderGroupPatch>): Partial<groups.GroupLimits> {
  return {
    ...(body.contracts_limit === undefined ? {} : { contractsLimitMicros: microsOfDecimal(body.contracts_limit,
      'contracts_limit') }),
    ...(body.notional_limit === undefined ? {} : { notionalLimitMicros: microsOfDecimal(body.notional_limit,
      'notional_limit') }),
    ...(body.window_ms === undefined ? {} : { windowMs: millisOf(body.window_ms, 'window_ms') }),
    ...(body.freeze_ms === undefined ? {} : { freezeMs: millisOf(body.freeze_ms, 'freeze_ms') }),
  }
}

function groupIdOf(request: RestRequest): string {
  return decodeURIComponent(request.params[0]!)
}

const TAG = 'trading'

export const orderGroupRoutes: TypedRoute[] = [
  { method: 'GET', path: '/order-groups', auth: 'l2', bodyMax: 0, surface: 'native',
    openapi: { tag: TAG, summary: "The API key's order groups, with their windows now",
      response: '{data: [OrderGroup]}' },
    handler: async (_request, identity, context) =>
      ({ body: { data: (await groups.orderGroupsOf(context, traderOf(identity))).map(groupInfo) } }) },
  { method: 'POST', path: '/order-groups', auth: 'l2', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'cancelAll',
    surface: 'native',
    openapi: { tag: TAG, summary: 'Create an order group: fill limits that cancel its orders when reached',
      body: '{group_id, contracts_limit?, notional_limit?, window_ms, freeze_ms?}', response: 'OrderGroup (201)',
      status: 201 },
    handler: async (request, identity, context) => {
      const body: Unparsed<OrderGroupCreate> = requireObject(parseJsonBody(request.body), 'body')
      const groupId = requireString(body.group_id, 'group_id', 64)
      const limits = limitsOf(body)
      const group = await groups.createOrderGroup(context, traderOf(identity), groupId, { contractsLimitMicros: 0,
        notionalLimitMicros: 0, windowMs: 0, freezeMs: 0, ...limits })
      return { status: 201, body: groupInfo(group) }
    } },
  { method: 'PATCH', path: '/order-groups/:id', auth: 'l2', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'cancelAll',
    surface: 'native',
    openapi: { tag: TAG, summary: "Change an order group's limits (the others keep their values)",
      body: '{contracts_limit?, notional_limit?, window_ms?, freeze_ms?}', response: 'OrderGroup' },
    handler: async (request, identity, context) => {
      const body: Unparsed<OrderGroupPatch> = requireObject(parseJsonBody(request.body), 'body')
      return { body: groupInfo(await groups.updateOrderGroup(context, traderOf(identity), groupIdOf(request),
        limitsOf(body))) }
    } },
  { method: 'POST', path: '/order-groups/:id/trigger', auth: 'l2', bodyMax: REST_SMALL_BODY_BYTES_MAX,
    rate: 'cancelAll', surface: 'native',
    openapi: { tag: TAG, summary: 'Trigger an order group now: its orders are cancelled, it takes none until reset',
      response: 'OrderGroup' },
    handler: async (request, identity, context) =>
      ({ body: groupInfo(await groups.triggerOrderGroup(context, traderOf(identity), groupIdOf(request))) }) },
  { method: 'POST', path: '/order-groups/:id/reset', auth: 'l2', bodyMax: REST_SMALL_BODY_BYTES_MAX,
    rate: 'cancelAll', surface: 'native',
    openapi: { tag: TAG, summary: 'Reset a triggered order group: it takes orders again, with an empty window',
      response: 'OrderGroup' },
    handler: async (request, identity, context) =>
      ({ body: groupInfo(await groups.resetOrderGroup(context, traderOf(identity), groupIdOf(request))) }) },
  { method: 'DELETE', path: '/order-groups/:id', auth: 'l2', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'cancelAll',
    surface: 'native',
    openapi: { tag: TAG, summary: 'Delete an order group; its resting orders are cancelled',
      response: '{deleted: true, group_id}' },
    handler: async (request, identity, context) => {
      const groupId = groupIdOf(request)
      await groups.deleteOrderGroup(context, traderOf(identity), groupId)
      return { body: { deleted: true, group_id: groupId } }
    } },
]
