/**
 * The AsyncAPI 3.0 document of the WebSocket channels (GET /asyncapi.json): the market channel
 * (`/ws/market`) and the user channel (`/ws/user`), what a client sends on each and every message
 * the server sends, with payload schemas generated from the types the channels build their
 * messages with (src/api/shapes/ws-*.ts; scripts/gen-schemas.ts). Operations are the server's:
 * it receives the subscriptions and sends the events.
 *
 * The channels speak Polymarket's protocol on both surfaces, at the same paths: there is no
 * /compat prefix for WebSocket (Polymarket's clients connect to `<ws host>/ws/market` and
 * `<ws host>/ws/user`).
 *
 * AsyncAPI's default schema format is JSON Schema draft-07 (a superset of it), while the generated
 * schemas are 2020-12 (for OpenAPI 3.1): the only difference in them, tuples (`prefixItems`), is
 * written back as draft-07 `items: [...]` here.
 */
import {
  WS_BACKPRESSURE_BYTES_MAX, WS_IDLE_TIMEOUT_SEC, WS_MESSAGE_BYTES_MAX, WS_SNAPSHOT_WINDOW_MS, WS_SNAPSHOTS_PER_WINDOW,
  WS_SUBSCRIPTIONS_MAX,
} from '../../limits.js'
import {
  COMPONENT_SCHEMAS, WS_MARKET_EVENT_SCHEMAS, WS_MARKET_REQUEST_SCHEMAS, WS_USER_EVENT_SCHEMAS, WS_USER_REQUEST_SCHEMAS,
  type JsonSchema,
} from './gen/schemas.js'
import { referencedSchemas } from './schema-closure.js'
import type { NativeBodies } from '../shapes/bodies.js'

type Json = { readonly [key: string]: unknown }
type Schemas = Readonly<Record<string, JsonSchema>>

/** Messages sent as text, not JSON: PING and its answer. */
const TEXT_MESSAGES = new Set(['ping', 'pong'])

interface ChannelSpec {
  readonly address: string
  readonly title: string
  readonly description: string
  /** What a client sends, by message name. */
  readonly requests: Schemas
  /** What the server sends, by message name. */
  readonly events: Schemas
}

const LIMITS = `At most ${WS_SUBSCRIPTIONS_MAX} subscriptions per connection; client messages of at most ` +
  `${WS_MESSAGE_BYTES_MAX / 1024} KiB; a socket silent for ${WS_IDLE_TIMEOUT_SEC} s is closed (send PING every ` +
  `10 s); a reader with ${WS_BACKPRESSURE_BYTES_MAX / 1024 / 1024} MiB queued is closed. Bad input is answered ` +
  'with an error event.'

/** The channels, by the id the document gives them. */
export const CHANNELS: Readonly<Record<'market' | 'user', ChannelSpec>> = {
  market: {
    address: '/ws/market', title: 'Market channel',
    description: "Public book events of the assets (token ids) a socket subscribes to, in Polymarket's protocol "
      + '(clob-compat.md section 8.2). A subscription sends a `book` snapshot of each asset (unless initial_dump '
      + 'is false), then `price_change`, `last_trade_price` and `tick_size_change` of each, every one with the '
      + "asset's next `seq`, so a gap shows at once. `custom_feature_enabled: true` adds `best_bid_ask` (with "
      + "the seq of the price_change it follows) and every market's `new_market` and `market_resolved` (no seq). "
      + `Snapshots are budgeted: ${WS_SNAPSHOTS_PER_WINDOW} per ${WS_SNAPSHOT_WINDOW_MS / 1000} s per connection. `
      + LIMITS,
    requests: WS_MARKET_REQUEST_SCHEMAS, events: WS_MARKET_EVENT_SCHEMAS,
  },
  user: {
    address: '/ws/user', title: 'User channel',
    description: "The caller's own order and trade events, in Polymarket's formats (clob-compat.md section 8.3), "
      + "and the changes of the API key's order groups (`order_group`; a trigger is `group_triggered`). "
      + 'The first message authenticates with the API credentials (apiKey, secret, passphrase); a failure '
      + 'answers an error event and closes the socket (1008), as does revoking the key later. Each socket '
      + 'numbers its messages (`seq` 1, 2, ...). Failed authentications share the REST face\'s budget. ' + LIMITS,
    requests: WS_USER_REQUEST_SCHEMAS, events: WS_USER_EVENT_SCHEMAS,
  },
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A 2020-12 schema in draft-07 form: `prefixItems` becomes `items: [...]`, the `items` after it `additionalItems`. */
export function draft07(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(draft07)
  if (!isJson(schema)) return schema
  const tuple = Array.isArray(schema.prefixItems)
  return Object.fromEntries(Object.entries(schema).map(([key, value]) =>
    [tuple && key === 'prefixItems' ? 'items' : tuple && key === 'items' ? 'additionalItems' : key, draft07(value)]))
}

/** A message's one-line summary: its own description, else that of the type it names. */
function summaryOf(schema: JsonSchema): string | undefined {
  if (typeof schema.description === 'string') return schema.description
  const ref = typeof schema.$ref === 'string' ? schema.$ref.slice(schema.$ref.lastIndexOf('/') + 1) : null
  const named = ref === null ? undefined : COMPONENT_SCHEMAS[ref]
  return typeof named?.description === 'string' ? named.description : undefined
}

function messagesOf(messages: Schemas): Record<string, unknown> {
  return Object.fromEntries(Object.entries(messages).map(([name, schema]) => {
    const summary = summaryOf(schema)
    return [name, { name, ...(summary === undefined ? {} : { summary }),
      contentType: TEXT_MESSAGES.has(name) ? 'text/plain' : 'application/json', payload: draft07(schema) }]
  }))
}

function channelOf(spec: ChannelSpec): Record<string, unknown> {
  return { address: spec.address, title: spec.title, description: spec.description,
    messages: { ...messagesOf(spec.requests), ...messagesOf(spec.events) } }
}

function operationsOf(id: string, spec: ChannelSpec): Record<string, unknown> {
  const refs = (messages: Schemas): Json[] =>
    Object.keys(messages).map((name) => ({ $ref: `#/channels/${id}/messages/${name}` }))
  return {
    [`${id}Receive`]: { action: 'receive', channel: { $ref: `#/channels/${id}` },
      summary: `What a client sends on ${spec.address}`, messages: refs(spec.requests) },
    [`${id}Send`]: { action: 'send', channel: { $ref: `#/channels/${id}` },
      summary: `What the server sends on ${spec.address}`, messages: refs(spec.events) },
  }
}

/** `version`: the server's (package.json, src/version.ts), as the OpenAPI document's. */
export function asyncApiDocument(version: string): NativeBodies['GET /asyncapi.json'] {
  const channels = Object.fromEntries(Object.entries(CHANNELS).map(([id, spec]) => [id, channelOf(spec)]))
  const operations = Object.assign({}, ...Object.entries(CHANNELS).map(([id, spec]) => operationsOf(id, spec)))
  return {
    asyncapi: '3.0.0',
    info: { title: 'Predex WebSocket API', version,
      description: "Live book and user events over WebSocket, on the REST port, in Polymarket's protocol (the same "
        + 'paths serve Polymarket\'s clients: there is no /compat prefix for WebSocket). The REST API: '
        + 'GET /openapi.json; both as a page: GET /docs.' },
    servers: {
      predex: { host: '{host}', protocol: 'ws', description: 'The REST port: the channels share it (wss behind a '
        + 'TLS proxy).', variables: { host: { default: '127.0.0.1:8080', description: 'host:port of the server' } } },
    },
    defaultContentType: 'application/json',
    channels,
    operations,
    components: { schemas: draft07(referencedSchemas(channels, COMPONENT_SCHEMAS)) },
  }
}
