/**
 * The OpenAPI 3.1 document of the native API, generated from the route table: a route cannot
 * exist without being documented, nor be documented without existing (a test checks both ways
 * against the running server). Request and response bodies are JSON Schemas generated from the
 * typed shapes (src/api/rest/gen/schemas.ts, `npm run gen:schemas`), found by the route's key
 * (`GET /markets/:id`) in NativeBodies and NativeRequestBodies: a route cannot document a type
 * other than the one its handler and the SDK are typed with.
 */
import type { Route } from './route.js'
import { RATE_RULES } from '../../limits.js'
import { COMPONENT_SCHEMAS, REQUEST_SCHEMAS, RESPONSE_SCHEMAS, type JsonSchema } from './gen/schemas.js'

/** The interface's version (the seed: "The interface description carries version 1.0.0"), not the server's. */
export const API_VERSION = '1.0.0'

/** L2 is the seed's `hmac_signature` scheme. */
const SECURITY: Readonly<Record<string, unknown[]>> = {
  none: [],
  l1: [{ l1: [] }],
  l2: [{ hmac_signature: [] }],
  admin: [{ admin: [] }],
}

/** A route's generated schema, by its key; undefined when the table has none. */
function schemaOf(table: Readonly<Record<string, JsonSchema>>, key: string): JsonSchema | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined
}

function responseSchema(key: string): JsonSchema {
  const schema = schemaOf(RESPONSE_SCHEMAS, key)
  if (schema === undefined) throw new Error(`${key}: no answer type in NativeBodies (then npm run gen:schemas)`)
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

/** The request body of a route, from NativeRequestBodies; its `body` words say what it is for. */
function requestBody<C>(route: Route<C>, key: string): Record<string, unknown> {
  const schema = schemaOf(REQUEST_SCHEMAS, key)
  if ((schema === undefined) !== (route.openapi.body === undefined)) {
    throw new Error(`${key}: a body description needs a type in NativeRequestBodies, and the reverse`)
  }
  if (schema === undefined) return {}
  return { requestBody: { required: true, description: route.openapi.body,
    content: { 'application/json': { schema } } } }
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

export function openApiDocument<C>(routes: readonly Route<C>[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    if (route.surface === 'compat') continue
    const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}')
    const key = `${route.method} ${route.path}`
    const parameters = [
      ...[...route.path.matchAll(/:([A-Za-z_]+)/g)]
        .map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } })),
      ...Object.entries(route.openapi.query ?? {}).map(([name, description]) => ({
        name, in: 'query', required: description.startsWith('required'), description, schema: { type: 'string' },
      })),
    ]
    paths[path] ??= {}
    paths[path]![route.method.toLowerCase()] = {
      tags: [route.openapi.tag],
      summary: route.openapi.summary,
      security: SECURITY[route.auth],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...requestBody(route, key),
      responses: {
        [route.openapi.status ?? 200]: { description: answerDescription(route, responseSchema(key)),
          content: { [route.openapi.mediaType ?? 'application/json']: { schema: responseSchema(key) } } },
        ...(route.auth === 'none' ? {} : {
          401: { description: 'authentication failed', content: errorContent() },
        }),
        429: {
          description: rateLimitedText(route),
          headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds' } },
          content: errorContent(),
        },
        default: { description: 'error: {error, code, ...context}', content: errorContent() },
      },
    }
  }
  return {
    openapi: '3.1.0',
    // The schemas are plain JSON Schema 2020-12 (generated, no OpenAPI-only keywords): say so.
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: { title: 'Predex API', version,
      description: 'Binary prediction markets: native API. Polymarket CLOB surface under /compat.' },
    paths,
    components: {
      // ErrorBody (src/api/shapes/error.ts) under the name the document has always given it.
      schemas: COMPONENT_SCHEMAS,
      securitySchemes: {
        l1: { type: 'apiKey', in: 'header', name: 'EXCHANGE-SIGNATURE',
          description: 'EIP-712 ClobAuth signature with EXCHANGE-ADDRESS, -TIMESTAMP, -NONCE (or POLY_*)' },
        hmac_signature: { type: 'apiKey', in: 'header', name: 'EXCHANGE-SIGNATURE',
          description: 'HMAC-SHA256 over timestamp + METHOD + path + body, with EXCHANGE-ADDRESS, -TIMESTAMP, '
            + '-API-KEY, -PASSPHRASE (or POLY_*)' },
        admin: { type: 'apiKey', in: 'header', name: 'EXCHANGE-ADMIN-KEY' },
      },
    },
  }
}
