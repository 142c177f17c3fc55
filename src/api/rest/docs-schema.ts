/**
 * JSON Schemas as HTML for GET /docs: a type in a few words, an object as a table of its fields,
 * named types linked to their section (`#schema-<name>`). Shared by the REST operations
 * (docs-page.ts) and the WebSocket messages (docs-ws.ts). Reads 2020-12 (OpenAPI) and draft-07
 * (AsyncAPI) tuples alike.
 */
import type { JsonSchema } from './gen/schemas.js'

export type Json = { readonly [key: string]: unknown }
export type Schemas = Readonly<Record<string, JsonSchema>>

/** Nested inline objects are drawn to this depth, then named "object" (schemas of our types are shallow). */
const SCHEMA_DEPTH_MAX = 6

export function escape(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

export function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : []
}

/** A schema's type in a few words of HTML: references link to the schema's own section. */
export function typeOf(schema: unknown, depth: number): string {
  if (!isJson(schema)) return schema === false ? 'nothing' : 'any'
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '')
    return `<a href="#schema-${escape(name)}">${escape(name)}</a>`
  }
  if ('const' in schema) return `<code>${escape(JSON.stringify(schema.const))}</code>`
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `<code>${escape(JSON.stringify(v))}</code>`).join(' | ')
  const union = list(schema.anyOf).length > 0 ? schema.anyOf : schema.oneOf
  if (list(union).length > 0) return list(union).map((s) => typeOf(s, depth)).join(' | ')
  if (Array.isArray(schema.type)) return schema.type.map(escape).join(' | ')
  if (schema.type === 'array') {
    const prefix = list(schema.prefixItems).length > 0 ? list(schema.prefixItems) : list(schema.items)
    if (prefix.length > 0) return `[${prefix.map((s) => typeOf(s, depth)).join(', ')}]`
    return `array of ${typeOf(schema.items, depth)}`
  }
  if (schema.type === 'object' || isJson(schema.properties)) return objectOf(schema, depth)
  return escape(schema.type ?? 'any')
}

/** An object: its fields as a table (required ones marked), or a map's value type. */
function objectOf(schema: Json, depth: number): string {
  const properties = isJson(schema.properties) ? Object.entries(schema.properties) : []
  const extra = schema.additionalProperties
  const mapOf = isJson(extra) && Object.keys(extra).length > 0 ? `map of ${typeOf(extra, depth + 1)}` : ''
  if (properties.length === 0) return mapOf === '' ? 'object' : mapOf
  if (depth >= SCHEMA_DEPTH_MAX) return 'object'
  const required = new Set(list(schema.required))
  const rows = properties.map(([name, property]) => {
    const mark = required.has(name) ? ' <span class="req" title="required">*</span>' : ''
    const description = isJson(property) && property.description !== undefined ? escape(property.description) : ''
    return `<tr><td><code>${escape(name)}</code>${mark}</td><td>${typeOf(property, depth + 1)}</td>` +
      `<td class="d">${description}</td></tr>`
  })
  const others = mapOf === '' ? '' : `: ${mapOf}`
  const more = extra === false ? '' : `<tr><td colspan="3" class="d">and other fields${others}</td></tr>`
  return `<table><tr><th>field</th><th>type</th><th></th></tr>${rows.join('')}${more}</table>`
}

/** A body's schema; a named one is drawn in place too (its fields), besides the link to its section. */
export function schemaBlock(schema: unknown, schemas: Schemas): string {
  const ref = isJson(schema) && typeof schema.$ref === 'string' ? schema.$ref : null
  const name = ref === null ? null : ref.replace('#/components/schemas/', '')
  const shown = name === null ? schema : schemas[name]
  const description = isJson(shown) && typeof shown.description === 'string'
    ? `<p class="d">${escape(shown.description)}</p>` : ''
  const link = name === null ? '' : `<div>${typeOf(schema, 0)}</div>`
  const fields = name === null || (isJson(shown) && shown.$ref === undefined) ? `<div>${typeOf(shown, 0)}</div>` : ''
  return `${link}${description}${fields}`
}

/** Each named schema as a collapsible section, the target of the links. */
export function schemasSection(schemas: Schemas): string {
  return Object.entries(schemas).map(([name, schema]) =>
    `<details id="schema-${escape(name)}"><summary><code>${escape(name)}</code></summary>` +
    `${schemaBlock(schema, schemas)}</details>`).join('\n')
}
