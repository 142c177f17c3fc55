/**
 * The user channel's order-group events (`/ws/user`; docs/rest.md, "WebSocket: the user
 * channel"): a change of one of the socket's API key's order groups (docs/engine.md, "Order
 * groups"), sent to that key's sockets only and whatever markets they follow (a group spans
 * markets). A trigger is `group_triggered`: a fill reached the group's limits (or its owner
 * triggered it), its resting orders were cancelled in the same engine step (their CANCELLATION
 * events come just before), and it refuses orders until reset or its freeze ends; the other changes
 * are `order_group`, with their action.
 *
 * The group is as the engine's change left it: its limits, `triggered`, and `triggered_at` on a
 * trigger (the change's time; null otherwise). The change carries no window sums nor resting
 * count (GET /order-groups reads them). The types are the channel's others' (src/api/shapes/
 * ws-user.ts: WsOrderGroup, WsGroupTriggered), whose schemas GET /asyncapi.json documents.
 */
import type { OrderGroupChanged } from '../../engine/event.js'
import type { WsGroupTriggered, WsOrderGroup } from '../shapes/ws-user.js'
import { decimalOfMicros } from '../wire.js'

/** The event of an engine change, before its socket numbers it: `group_triggered` for a trigger, else `order_group`. */
export function orderGroupEvent(change: OrderGroupChanged, timestamp: string):
  Omit<WsOrderGroup, 'seq'> | Omit<WsGroupTriggered, 'seq'> {
  const group = groupState(change)
  return change.action === 'triggered'
    ? { event_type: 'group_triggered', action: 'triggered', group, timestamp }
    : { event_type: 'order_group', action: change.action, group, timestamp }
}

function groupState(change: OrderGroupChanged): WsOrderGroup['group'] {
  return {
    group_id: change.groupId,
    contracts_limit: decimalOfMicros(change.contractsLimitMicros),
    notional_limit: decimalOfMicros(change.notionalLimitMicros),
    window_ms: change.windowMs,
    freeze_ms: change.freezeMs,
    triggered: change.triggered,
    triggered_at: change.action === 'triggered' ? change.timeMs : null,
  }
}
