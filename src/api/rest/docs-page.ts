/**
 * GET /docs: the OpenAPI document as one self-contained HTML page, rendered here on the server
 * (no script, no stylesheet or font from elsewhere: it works offline and under a strict CSP).
 * Operations are grouped by tag, each a collapsible section with its method, path, authentication,
 * parameters, request body and answers; the schemas they name follow, linked by anchor.
 */
import type { JsonSchema } from './gen/schemas.js'

type Json = { readonly [key: string]: unknown }

/** Nested inline objects are drawn to this depth, then named "object" (schemas of our types are shallow). */
const SCHEMA_DEPTH_MAX = 6
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1em 2em;color:#222}
h1{margin-bottom:0}h2{border-bottom:2px solid #ddd;margin-top:2em;text-transform:capitalize}
details{border:1px solid #ddd;border-radius:4px;margin:.4em 0;padding:.3em .6em}
summary{cursor:pointer}code{font:13px ui-monospace,monospace}
.m{display:inline-block;min-width:4.5em;font-weight:bold;font-family:ui-monospace,monospace}
.get{color:#1769aa}.post{color:#2e7d32}.delete{color:#c62828}.patch{color:#ef6c00}
.auth{float:right;font-size:12px;background:#eee;border-radius:3px;padding:0 .4em}
table{border-collapse:collapse;margin:.3em 0}td,th{border:1px solid #e4e4e4;padding:.15em .5em;text-align:left;
vertical-align:top}th{background:#f6f6f6}.req{color:#c62828}.d{color:#555}`

function escape(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : []
}

/** A schema's type in a few words of HTML: references link to the schema's own section. */
function typeOf(schema: unknown, depth: number): string {
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
    const prefix = list(schema.prefixItems)
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

type Schemas = Readonly<Record<string, JsonSchema>>

/** A body's schema; a named one is drawn in place too (its fields), besides the link to its section. */
function schemaBlock(schema: unknown, schemas: Schemas): string {
  const ref = isJson(schema) && typeof schema.$ref === 'string' ? schema.$ref : null
  const name = ref === null ? null : ref.replace('#/components/schemas/', '')
  const shown = name === null ? schema : schemas[name]
  const description = isJson(shown) && typeof shown.description === 'string'
    ? `<p class="d">${escape(shown.description)}</p>` : ''
  const link = name === null ? '' : `<div>${typeOf(schema, 0)}</div>`
  const fields = name === null || (isJson(shown) && shown.$ref === undefined) ? `<div>${typeOf(shown, 0)}</div>` : ''
  return `${link}${description}${fields}`
}

/** The first media type of a content map and its schema. */
function contentOf(content: unknown): { media: string; schema: unknown } | null {
  if (!isJson(content)) return null
  const media = Object.keys(content)[0]
  if (media === undefined) return null
  const entry = content[media]
  return { media, schema: isJson(entry) ? entry.schema : undefined }
}

function parametersOf(operation: Json): string {
  const parameters = list(operation.parameters).filter(isJson)
  if (parameters.length === 0) return ''
  const rows = parameters.map((p) => `<tr><td><code>${escape(p.name)}</code>` +
    `${p.required === true ? ' <span class="req">*</span>' : ''}</td><td>${escape(p.in)}</td>` +
    `<td class="d">${escape(p.description ?? '')}</td></tr>`)
  return `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th></th></tr>${rows.join('')}</table>`
}

function requestOf(operation: Json, schemas: Schemas): string {
  const body = operation.requestBody
  if (!isJson(body)) return ''
  const content = contentOf(body.content)
  const description = body.description === undefined ? '' : `<p class="d">${escape(body.description)}</p>`
  return `<h4>Request body</h4>${description}${content === null ? '' : schemaBlock(content.schema, schemas)}`
}

function responsesOf(operation: Json, schemas: Schemas): string {
  const responses = isJson(operation.responses) ? Object.entries(operation.responses) : []
  const items = responses.filter(([, r]) => isJson(r)).map(([status, response]) => {
    const r = response as Json
    const content = contentOf(r.content)
    const media = content === null ? '' : ` <code>${escape(content.media)}</code>`
    return `<details${status.startsWith('2') ? ' open' : ''}><summary><b>${escape(status)}</b>${media} ` +
      `<span class="d">${escape(r.description ?? '')}</span></summary>` +
      `${content === null ? '' : schemaBlock(content.schema, schemas)}</details>`
  })
  return `<h4>Answers</h4>${items.join('')}`
}

function authOf(operation: Json): string {
  const schemes = list(operation.security).filter(isJson).flatMap((s) => Object.keys(s))
  return schemes.length === 0 ? 'public' : schemes.join(', ')
}

function operationOf(method: string, path: string, operation: Json, schemas: Schemas): string {
  return `<details id="${escape(`${method}-${path}`)}"><summary><span class="m ${method}">` +
    `${method.toUpperCase()}</span> <code>${escape(path)}</code> ${escape(operation.summary ?? '')}` +
    `<span class="auth">${escape(authOf(operation))}</span></summary>` +
    `${parametersOf(operation)}${requestOf(operation, schemas)}${responsesOf(operation, schemas)}</details>`
}

/** The operations by tag, in the order the document first names each tag. */
function sectionsOf(paths: Json, schemas: Schemas): string {
  const byTag = new Map<string, string[]>()
  for (const [path, item] of Object.entries(paths)) {
    if (!isJson(item)) continue
    for (const method of METHODS) {
      const operation = item[method]
      if (!isJson(operation)) continue
      const tag = String(list(operation.tags)[0] ?? 'other')
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationOf(method, path, operation, schemas)])
    }
  }
  return [...byTag].map(([tag, operations]) => `<h2 id="tag-${escape(tag)}">${escape(tag)}</h2>${operations.join('')}`)
    .join('\n')
}

function schemasOf(schemas: Schemas): string {
  return Object.entries(schemas).map(([name, schema]) =>
    `<details id="schema-${escape(name)}"><summary><code>${escape(name)}</code></summary>` +
    `${schemaBlock(schema, schemas)}</details>`).join('\n')
}

/** The page of an OpenAPI document as openApiDocument (src/api/rest/openapi.ts) builds it. */
export function docsPage(document: Json): string {
  const info = isJson(document.info) ? document.info : {}
  const paths = isJson(document.paths) ? document.paths : {}
  const components = isJson(document.components) ? document.components : {}
  const schemas = (isJson(components.schemas) ? components.schemas : {}) as Schemas
  const title = `${escape(info.title ?? 'API')} ${escape(info.version ?? '')}`
  return '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title>` +
    `<style>${CSS}</style></head><body><h1>${title}</h1><p>${escape(info.description ?? '')} ` +
    'The machine-readable form: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). ' +
    'Fields marked <span class="req">*</span> are always present (answers) or required (bodies).</p>\n' +
    `${sectionsOf(paths, schemas)}\n<h2 id="schemas">Schemas</h2>\n${schemasOf(schemas)}\n</body></html>\n`
}
