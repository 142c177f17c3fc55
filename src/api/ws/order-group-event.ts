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
 * The type and its schema live here, beside the channel, rather than in src/api/shapes/ws-user.ts
 * (whose schemas are generated): GET /asyncapi.json documents the event from ORDER_GROUP_SCHEMAS.
 */
import type { OrderGroupAction, OrderGroupChanged } from '../../engine/event.js'
import type { JsonSchema } from '../rest/gen/schemas.js'
import type { Decimal, UnixMillisText } from '../shapes/vocabulary.js'
import { decimalOfMicros } from '../wire.js'

/** An order group as its change left it (REST's OrderGroup without its window sums and resting count). */
export type WsOrderGroupState = {
  readonly group_id: string
  /** Shares filled in the window that trigger it; "0": no such limit. */
  readonly contracts_limit: Decimal
  /** USDC filled (at the orders' prices) in the window that trigger it; "0": no such limit. */
  readonly notional_limit: Decimal
  readonly window_ms: number
  /** How long it stays triggered on its own; 0: until reset. */
  readonly freeze_ms: number
  /** Triggered and not reset since (as the change left it). */
  readonly triggered: boolean
  /** On a `triggered` change, its time (unix ms); null on the other changes. */
  readonly triggered_at: number | null
}

/** One of the socket's key's order groups changed; `action: "triggered"` is the "group_triggered" event. */
export type WsOrderGroup = {
  readonly event_type: 'order_group'
  readonly action: OrderGroupAction
  readonly group: WsOrderGroupState
  /** The command's time. */
  readonly timestamp: UnixMillisText
  /** This socket's message count: 1, 2, ... */
  readonly seq: number
}

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

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` })

/** The schemas of WsOrderGroup and WsOrderGroupState (2020-12, as the generated ones), for GET /asyncapi.json. */
export const ORDER_GROUP_SCHEMAS: Readonly<Record<'WsOrderGroup' | 'WsOrderGroupState', JsonSchema>> = {
  WsOrderGroup: {
    type: 'object',
    properties: {
      event_type: { type: 'string', const: 'order_group' },
      action: { type: 'string', enum: ['created', 'updated', 'triggered', 'reset', 'deleted'],
        description: 'What changed it; "triggered" is the "group_triggered" event: a fill reached its limits (or '
          + 'its owner triggered it), its resting orders were cancelled (their CANCELLATION events come just before) '
          + 'and it refuses orders until reset or its freeze ends.' },
      group: ref('WsOrderGroupState'),
      timestamp: { ...ref('UnixMillisText'), description: "The command's time." },
      seq: { type: 'number', description: "This socket's message count: 1, 2, ..." },
    },
    required: ['event_type', 'action', 'group', 'timestamp', 'seq'],
    additionalProperties: false,
    description: "One of the socket's API key's order groups changed (sent to that key's sockets only, whatever "
      + 'markets they follow).',
  },
  WsOrderGroupState: {
    type: 'object',
    properties: {
      group_id: { type: 'string' },
      contracts_limit: { ...ref('Decimal'), description: 'Shares filled in the window that trigger it; "0": no such '
        + 'limit.' },
      notional_limit: { ...ref('Decimal'), description: 'USDC filled (at the orders\' prices) in the window that '
        + 'trigger it; "0": no such limit.' },
      window_ms: { type: 'number' },
      freeze_ms: { type: 'number', description: 'How long it stays triggered on its own; 0: until reset.' },
      triggered: { type: 'boolean', description: 'Triggered and not reset since (as the change left it).' },
      triggered_at: { type: ['number', 'null'], description: 'On a "triggered" change, its time (unix ms); null on '
        + 'the other changes.' },
    },
    required: ['group_id', 'contracts_limit', 'notional_limit', 'window_ms', 'freeze_ms', 'triggered', 'triggered_at'],
    additionalProperties: false,
    description: "An order group as its change left it (GET /order-groups' OrderGroup without its window sums and "
      + 'resting count).',
  },
}
