/**
 * The user channel's `order_group` event (`/ws/user`; docs/rest.md, "WebSocket: the user
 * channel"): a change of one of the socket's API key's order groups (docs/engine.md, "Order
 * groups"), sent to that key's sockets only and whatever markets they follow (a group spans
 * markets). With `action: "triggered"` it is what Polymarket-style clients know as
 * `group_triggered`: a fill reached the group's limits (or its owner triggered it), its resting
 * orders were cancelled in the same engine step (their CANCELLATION events come just before), and
 * it refuses orders until reset or its freeze ends.
 *
 * The group is as the engine's change left it: its limits, `triggered`, and `triggered_at` on a
 * trigger (the change's time; null otherwise). The change carries no window sums nor resting
 * count (GET /order-groups reads them), so the group here is REST's OrderGroup without them.
 *
 * Its type is declared with the channel's others (src/api/shapes/ws-user.ts, WsOrderGroup), whose
 * schemas GET /asyncapi.json documents.
 */
import type { OrderGroupChanged } from '../../engine/event.js'
import type { WsOrderGroup } from '../shapes/ws-user.js'
import { decimalOfMicros } from '../wire.js'

/** The event of an engine change, before its socket numbers it. */
export function orderGroupEvent(change: OrderGroupChanged, timestamp: string): Omit<WsOrderGroup, 'seq'> {
  return {
    event_type: 'order_group',
    action: change.action,
    group: {
      group_id: change.groupId,
      contracts_limit: decimalOfMicros(change.contractsLimitMicros),
      notional_limit: decimalOfMicros(change.notionalLimitMicros),
      window_ms: change.windowMs,
      freeze_ms: change.freezeMs,
      triggered: change.triggered,
      triggered_at: change.action === 'triggered' ? change.timeMs : null,
    },
    timestamp,
  }
}
