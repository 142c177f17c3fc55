/**
 * The OpenAPI 3.1 document of both REST surfaces, generated from the route table: a route cannot
 * exist without being documented, nor be documented without existing (a test checks both ways
 * against the running server). The native API is at `/`; Polymarket's CLOB surface under
 * `/compat`, every route the server answers there, tagged `compat` ("Polymarket compatible").
 * Request and response bodies are JSON Schemas generated from the typed shapes
 * (src/api/rest/gen/schemas.ts, `npm run gen:schemas`), found by the route's key
 * (`GET /markets/:id`) in NativeBodies and NativeRequestBodies, or CompatBodies and
 * CompatRequestBodies under /compat: a route cannot document a type other than the one its
 * handler and the SDK are typed with.
 */
import type { Route } from './route.js'
import { RATE_RULES } from '../../limits.js'
import {
  COMPAT_REQUEST_SCHEMAS, COMPAT_RESPONSE_SCHEMAS, COMPONENT_SCHEMAS, REQUEST_SCHEMAS, RESPONSE_SCHEMAS,
  type JsonSchema,
} from './gen/schemas.js'
import { referencedSchemas } from './schema-closure.js'
import { SECURITY, securitySchemes, type Surface } from './security-schemes.js'
import type { NativeBodies } from '../shapes/bodies.js'

type Schemas = Readonly<Record<string, JsonSchema>>

/** Where each surface's routes are, and the generated schemas of their bodies. */
const SURFACES: Readonly<Record<Surface, { readonly prefix: string; readonly responses: Schemas;
  readonly requests: Schemas }>> = {
  native: { prefix: '', responses: RESPONSE_SCHEMAS, requests: REQUEST_SCHEMAS },
  compat: { prefix: '/compat', responses: COMPAT_RESPONSE_SCHEMAS, requests: COMPAT_REQUEST_SCHEMAS },
}

/** The tag of every /compat operation: /docs groups them under its display name. */
export const COMPAT_TAG = 'compat'

/** The tags in the order /docs shows them, with what each groups. */
const TAGS: readonly Record<string, string>[] = [
  { name: 'health', description: 'Liveness, readiness, metrics, the server clock, these documents and the web page.' },
  { name: 'markets', description: 'Markets and their listing.' },
  { name: 'market-data', description: 'Books, prices, midpoints, spreads, last trades, candles.' },
  { name: 'auth', description: 'API credentials: created or derived with L1, listed and revoked with L2.' },
  { name: 'trading', description: 'Placing and cancelling signed orders; heartbeats (cancel on disconnect).' },
  { name: 'orders', description: 'Order look-ups.' },
  { name: 'trades', description: 'Trades.' },
  { name: 'account', description: 'Balances and allowances.' },
  { name: 'users', description: 'Public views of a wallet: profile, positions, history.' },
  { name: 'faucet', description: 'The test network: test USDC and gasless ledger actions.' },
  { name: 'admin', description: 'Listing, changing and resolving markets; exchange statistics (admin key).' },
  { name: COMPAT_TAG, 'x-displayName': 'Polymarket compatible',
    description: "Polymarket's CLOB routes as Predex serves them under /compat, in Polymarket's formats: an "
      + 'unmodified @polymarket/clob-client (5.x) or @polymarket/clob-client-v2 works with host '
      + 'http://<server>/compat. The L2 HMAC covers the path without /compat, as the client signs it.' },
]

/** A route's generated schema, by its key; undefined when the table has none. */
function schemaOf(table: Schemas, key: string): JsonSchema | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined
}

function responseSchema(table: Schemas, key: string, surface: Surface): JsonSchema {
  const schema = schemaOf(table, key)
  if (schema === undefined) {
    const map = surface === 'native' ? 'NativeBodies' : 'CompatBodies'
    throw new Error(`${key}: no answer type in ${map} (then npm run gen:schemas)`)
  }
  return schema
}

/**
 * An answer's description: the name of its type (the schema says the rest), so the document carries
 * no hand-written list of fields to drift; the route's words only where the answer has no named type.
 */
function answerDescription<C>(route: Route<C>, schema: JsonSchema): string {
  const items = schema.type === 'array' && typeof schema.items === 'object' ? schema.items as JsonSchema | null : null
  const ref = typeof schema.$ref === 'string' ? schema.$ref : typeof items?.$ref === 'string' ? items.$ref : null
  if (ref === null) return route.openapi.response
  const name = ref.slice(ref.lastIndexOf('/') + 1)
  return schema.$ref === undefined ? `array of ${name}` : name
}

/** The request body of a route, from its surface's request map; its `body` words say what it is for. */
function requestBody<C>(route: Route<C>, table: Schemas, key: string): Record<string, unknown> {
  const schema = schemaOf(table, key)
  if ((schema === undefined) !== (route.openapi.body === undefined)) {
    throw new Error(`${key}: a body description needs a type in the request map of each surface, and the reverse`)
  }
  if (schema === undefined) return {}
  return { requestBody: { required: true, description: route.openapi.body,
    content: { 'application/json': { schema } } } }
}

function parametersOf<C>(route: Route<C>): Record<string, unknown> {
  const parameters = [
    ...[...route.path.matchAll(/:([A-Za-z_]+)/g)]
      .map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } })),
    ...Object.entries(route.openapi.query ?? {}).map(([name, description]) => ({
      name, in: 'query', required: description.startsWith('required'), description, schema: { type: 'string' },
    })),
  ]
  return parameters.length > 0 ? { parameters } : {}
}

function errorContent(): Record<string, unknown> {
  return { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } }
}

function rateLimitedText<C>(route: Route<C>): string {
  const budget = route.rate === undefined
    ? ' of the client address'
    : ` "${route.rate}" (${RATE_RULES[route.rate].burst} per ${RATE_RULES[route.rate].burstWindowMs / 1000} s)`
  return `RATE_LIMITED: past the budget${budget}; wait Retry-After seconds`
}

/** The success answer: its media type, and the HTML page a browser may get instead, when the route has one. */
function successOf<C>(route: Route<C>, schema: JsonSchema): { description: string; content: Record<string, unknown> } {
  const media = route.openapi.mediaType ?? 'application/json'
  const { html } = route.openapi
  const description = answerDescription(route, schema)
  if (html === undefined) return { description, content: { [media]: { schema } } }
  return { description: `${description}; or text/html: ${html}`,
    content: { [media]: { schema }, 'text/html': { schema: { type: 'string' } } } }
}

function responsesOf<C>(route: Route<C>, schema: JsonSchema): Record<string, unknown> {
  const success = successOf(route, schema)
  return {
    [route.openapi.status ?? 200]: success,
    ...(route.openapi.redirect === undefined ? {} : { 302: { description: route.openapi.redirect,
      content: { [route.openapi.mediaType ?? 'application/json']: { schema } },
      headers: { Location: { schema: { type: 'string' }, description: 'where to go' } } } }),
    ...(route.openapi.notModified === undefined ? {} : { 304: { description: 'If-None-Match names the answer\'s ETag: '
      + 'the copy the client holds is current; no body' } }),
    ...(route.auth === 'none' ? {} : { 401: { description: 'authentication failed', content: errorContent() } }),
    429: {
      description: rateLimitedText(route),
      headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds' } },
      content: errorContent(),
    },
    default: { description: 'error: {error, code, ...context}', content: errorContent() },
  }
}

function operationOf<C>(route: Route<C>, surface: Surface): Record<string, unknown> {
  const key = `${route.method} ${route.path}`
  const { responses, requests } = SURFACES[surface]
  return {
    tags: [surface === 'compat' ? COMPAT_TAG : route.openapi.tag],
    summary: route.openapi.summary,
    ...(route.openapi.description === undefined ? {} : { description: route.openapi.description }),
    security: SECURITY[surface][route.auth],
    ...parametersOf(route),
    ...requestBody(route, requests, key),
    responses: responsesOf(route, responseSchema(responses, key, surface)),
  }
}

/** The surfaces a route is served on (src/api/rest/server.ts registers it the same way). */
export function surfacesOf<C>(route: Route<C>): Surface[] {
  const surface = route.surface ?? 'both'
  return surface === 'both' ? ['native', 'compat'] : [surface]
}

/** The document's path of a route on a surface: `/compat/markets/{id}`. */
export function documentPath<C>(route: Route<C>, surface: Surface): string {
  return SURFACES[surface].prefix + route.path.replace(/:([A-Za-z_]+)/g, '{$1}')
}

/** `version`: the server's (package.json, src/version.ts), which the document describes. */
export function openApiDocument<C>(routes: readonly Route<C>[], version: string): NativeBodies['GET /openapi.json'] {
  const paths: Record<string, Record<string, unknown>> = {}
  // The native operations first, then /compat's: /docs shows the tags in the order they come.
  for (const surface of ['native', 'compat'] as const) {
    for (const route of routes.filter((r) => surfacesOf(r).includes(surface))) {
      const path = documentPath(route, surface)
      paths[path] ??= {}
      paths[path]![route.method.toLowerCase()] = operationOf(route, surface)
    }
  }
  return {
    openapi: '3.1.0',
    // The schemas are plain JSON Schema 2020-12 (generated, no OpenAPI-only keywords): say so.
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: { title: 'Predex API', version,
      description: 'Binary prediction markets: the native API at /, Polymarket\'s CLOB surface under /compat. '
        + 'How to authenticate: GET /docs, "Authentication". The WebSocket channels: GET /asyncapi.json.' },
    tags: TAGS,
    paths,
    components: {
      // The types the operations name, and ErrorBody (src/api/shapes/error.ts) under the name the
      // document has always given it.
      schemas: referencedSchemas([paths, errorContent()], COMPONENT_SCHEMAS),
      securitySchemes: securitySchemes(),
    },
  }
}
