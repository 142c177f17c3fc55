/**
 * Generates the JSON Schemas of the OpenAPI and AsyncAPI documents (src/api/rest/gen/schemas.ts)
 * from the typed shapes (src/api/shapes): the response body of every route of each surface
 * (NativeBodies, CompatBodies), the request body of every route that reads one
 * (NativeRequestBodies, CompatRequestBodies), the messages of the WebSocket channels
 * (MarketChannelRequests and -Events, UserChannelRequests and -Events), and the error body. The
 * types stay the one source; the schemas are their compiled form, committed, because the
 * generator needs the TypeScript compiler (seconds) and the server must not run it at start.
 *
 *   npm run gen:schemas     (writes the file; test/unit/api/schemas-gen.test.ts fails when it is stale)
 *
 * ts-json-schema-generator writes draft-07 under `definitions`; OpenAPI 3.1 takes JSON Schema
 * 2020-12 under `components/schemas`, with names of letters, digits, `.`, `-` and `_`. So the
 * references are moved there, generic names (`Page<NativeMarket>`) spelt `Page_NativeMarket`, and
 * draft-07 tuples (`items: [...]`) rewritten as `prefixItems`.
 */
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createGenerator } from 'ts-json-schema-generator'
import { packageRoot } from '../src/package-root.js'

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json }
type JsonObject = { readonly [key: string]: Json }

// From the package's root: this module runs from scripts/ (npm run) and from dist/scripts/ (npm test).
const ROOT = packageRoot(import.meta.url).dir
export const SCHEMAS_FILE = join(ROOT, 'src', 'api', 'rest', 'gen', 'schemas.ts')

/**
 * The generated file's maps: each a type whose properties (a route's key, a message's name) become
 * one schema each, exported as `constant`, typed by its keys (`keys`, imported from `from`).
 */
const MAPS: readonly { readonly root: string; readonly constant: string; readonly keys: string;
  readonly from: string; readonly doc: string }[] = [
  { root: 'NativeBodies', constant: 'RESPONSE_SCHEMAS', keys: 'NativeRoute', from: 'bodies',
    doc: 'The 2xx body of every native route (NativeBodies).' },
  { root: 'NativeRequestBodies', constant: 'REQUEST_SCHEMAS', keys: 'NativeRequestRoute', from: 'requests',
    doc: 'The JSON body of every native route that reads one (NativeRequestBodies).' },
  { root: 'CompatBodies', constant: 'COMPAT_RESPONSE_SCHEMAS', keys: 'CompatRoute', from: 'bodies',
    doc: 'The 2xx body of every /compat route, keyed without the prefix (CompatBodies).' },
  { root: 'CompatRequestBodies', constant: 'COMPAT_REQUEST_SCHEMAS', keys: 'CompatRequestRoute', from: 'requests',
    doc: 'The JSON body of every /compat route that reads one (CompatRequestBodies).' },
  { root: 'MarketChannelRequests', constant: 'WS_MARKET_REQUEST_SCHEMAS', keys: 'MarketChannelRequest',
    from: 'ws-market', doc: 'What a client sends on /ws/market, by message name (MarketChannelRequests).' },
  { root: 'MarketChannelEvents', constant: 'WS_MARKET_EVENT_SCHEMAS', keys: 'MarketChannelEvent',
    from: 'ws-market', doc: 'What the server sends on /ws/market, by message name (MarketChannelEvents).' },
  { root: 'UserChannelRequests', constant: 'WS_USER_REQUEST_SCHEMAS', keys: 'UserChannelRequest',
    from: 'ws-user', doc: 'What a client sends on /ws/user, by message name (UserChannelRequests).' },
  { root: 'UserChannelEvents', constant: 'WS_USER_EVENT_SCHEMAS', keys: 'UserChannelEvent',
    from: 'ws-user', doc: 'What the server sends on /ws/user, by message name (UserChannelEvents).' },
]
const ERROR_ROOT = 'ErrorBody'
/** The error body keeps the component name the document has always had. */
const RENAMED: Readonly<Record<string, string>> = { ErrorBody: 'Error' }

/** A definition's name as OpenAPI allows it (`^[a-zA-Z0-9.\-_]+$`). */
export function componentName(name: string): string {
  if (RENAMED[name] !== undefined) return RENAMED[name]
  return name.replace(/[<,]/g, '_').replace(/[>\s]/g, '').replace(/[^A-Za-z0-9._-]/g, '_')
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A draft-07 schema made 2020-12 and pointed at components/schemas, recursively. */
export function openApiSchema(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(openApiSchema)
  if (!isObject(schema)) return schema
  const out: Record<string, Json> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/definitions/')) {
      out.$ref = `#/components/schemas/${componentName(decodeURIComponent(value.slice('#/definitions/'.length)))}`
    } else if (key === 'items' && Array.isArray(value)) {
      out.prefixItems = value.map(openApiSchema)
    } else if (key === 'additionalItems') {
      out.items = openApiSchema(value)
    } else {
      out[key] = openApiSchema(value)
    }
  }
  return out
}

/** The per-key schemas of a map (its properties), in the map's order. */
function routeSchemas(definitions: JsonObject, root: string): Record<string, Json> {
  const map = definitions[root]
  if (!isObject(map) || !isObject(map.properties)) throw new Error(`${root}: not an object type`)
  const routes: Record<string, Json> = {}
  for (const [route, schema] of Object.entries(map.properties)) routes[route] = openApiSchema(schema)
  return routes
}

/** Generates the schemas and returns the text of src/api/rest/gen/schemas.ts. */
export function schemasModuleText(): string {
  const generator = createGenerator({
    path: join(ROOT, 'src', 'api', 'shapes', '*.ts'), tsconfig: join(ROOT, 'tsconfig.json'),
    skipTypeCheck: true, sortProps: false, encodeRefs: false, topRef: true, jsDoc: 'extended',
    additionalProperties: false, expose: 'export',
  })
  const definitions: Record<string, Json> = {}
  for (const root of [...MAPS.map((map) => map.root), ERROR_ROOT]) {
    const schema = generator.createSchema(root) as JsonObject
    if (isObject(schema.definitions)) Object.assign(definitions, schema.definitions)
  }
  const roots = new Set(MAPS.map((map) => map.root))
  const components: Record<string, Json> = {}
  for (const [name, schema] of Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b))) {
    if (!roots.has(name)) components[componentName(name)] = openApiSchema(schema)
  }
  const json = (value: Json): string => JSON.stringify(value, null, 2)
  const imports = [...new Set(MAPS.map((map) => map.from))].map((from) => {
    const keys = MAPS.filter((map) => map.from === from).map((map) => map.keys)
    return `import type { ${[...new Set(keys)].join(', ')} } from '../../shapes/${from}.js'`
  })
  return [
    '/**',
    ' * GENERATED by `npm run gen:schemas` (scripts/gen-schemas.ts) from the types in src/api/shapes: do not',
    ' * edit. test/unit/api/openapi-schemas.test.ts fails when this file differs from a fresh generation.',
    ' */',
    ...imports,
    '',
    '/** A JSON Schema (2020-12), as data. */',
    'export type JsonSchema = { readonly [keyword: string]: unknown }',
    '',
    '/** The named types, for components/schemas (references point there). */',
    `export const COMPONENT_SCHEMAS: Readonly<Record<string, JsonSchema>> = ${json(components)}`,
    ...MAPS.flatMap((map) => ['', `/** ${map.doc} */`,
      `export const ${map.constant}: Readonly<Record<${map.keys}, JsonSchema>> = ` +
      `${json(routeSchemas(definitions, map.root))}`]),
    '',
  ].join('\n')
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  writeFileSync(SCHEMAS_FILE, schemasModuleText())
  process.stdout.write(`wrote ${SCHEMAS_FILE}\n`)
}
