/**
 * GET /docs: the API as one self-contained HTML page, rendered here on the server (no script, no
 * stylesheet or font from elsewhere: it works offline and under a strict CSP). In order: how to
 * authenticate (docs-auth.ts), the REST operations of the OpenAPI document grouped by tag, the
 * native ones first and then Polymarket's under /compat (each a collapsible section with its method,
 * path, authentication, parameters, request body and answers), the WebSocket channels of the
 * AsyncAPI document (docs-ws.ts), and the schemas they all name, linked by anchor.
 */
import { authSection } from './docs-auth.js'
import { escape, isJson, list, schemaBlock, schemasSection, type Json, type Schemas } from './docs-schema.js'
import { wsSection } from './docs-ws.js'

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1em 2em;color:#222}
h1{margin-bottom:0}h2{border-bottom:2px solid #ddd;margin-top:2em}h2.t{text-transform:capitalize}
details{border:1px solid #ddd;border-radius:4px;margin:.4em 0;padding:.3em .6em}
summary{cursor:pointer}code{font:13px ui-monospace,monospace}pre{background:#f6f6f6;padding:.5em;overflow-x:auto}
.m{display:inline-block;min-width:4.5em;font-weight:bold;font-family:ui-monospace,monospace}
.get{color:#1769aa}.post{color:#2e7d32}.delete{color:#c62828}.patch{color:#ef6c00}
.auth{float:right;font-size:12px;background:#eee;border-radius:3px;padding:0 .4em}
table{border-collapse:collapse;margin:.3em 0}td,th{border:1px solid #e4e4e4;padding:.15em .5em;text-align:left;
vertical-align:top}th{background:#f6f6f6}.req{color:#c62828}.d{color:#555}`

function parametersOf(operation: Json): string {
  const parameters = list(operation.parameters).filter(isJson)
  if (parameters.length === 0) return ''
  const rows = parameters.map((p) => `<tr><td><code>${escape(p.name)}</code>` +
    `${p.required === true ? ' <span class="req">*</span>' : ''}</td><td>${escape(p.in)}</td>` +
    `<td class="d">${escape(p.description ?? '')}</td></tr>`)
  return `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th></th></tr>${rows.join('')}</table>`
}

/** The first media type of a content map and its schema. */
function contentOf(content: unknown): { media: string; schema: unknown } | null {
  if (!isJson(content)) return null
  const media = Object.keys(content)[0]
  if (media === undefined) return null
  const entry = content[media]
  return { media, schema: isJson(entry) ? entry.schema : undefined }
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

/** The schemes an operation accepts: alternatives joined by "or", "public" for none. */
function authOf(operation: Json): string {
  const schemes = list(operation.security).filter(isJson).flatMap((s) => Object.keys(s))
  return schemes.length === 0 ? 'public' : schemes.join(' or ')
}

function operationOf(method: string, path: string, operation: Json, schemas: Schemas): string {
  const description = typeof operation.description === 'string' ? `<p>${escape(operation.description)}</p>` : ''
  return `<details id="${escape(`${method}-${path}`)}"><summary><span class="m ${method}">` +
    `${method.toUpperCase()}</span> <code>${escape(path)}</code> ${escape(operation.summary ?? '')}` +
    `<span class="auth">${escape(authOf(operation))}</span></summary>${description}` +
    `${parametersOf(operation)}${requestOf(operation, schemas)}${responsesOf(operation, schemas)}</details>`
}

/** A tag's heading: its display name (x-displayName) and description from the document's tag list. */
function tagHeading(tag: string, tags: readonly Json[]): string {
  const entry = tags.find((t) => t.name === tag)
  const display = typeof entry?.['x-displayName'] === 'string' ? entry['x-displayName'] : null
  const description = typeof entry?.description === 'string' ? `<p>${escape(entry.description)}</p>` : ''
  return `<h2 id="tag-${escape(tag)}"${display === null ? ' class="t"' : ''}>${escape(display ?? tag)}</h2>` +
    description
}

/** The operations by tag, in the order the document first names each tag. */
function sectionsOf(paths: Json, tags: readonly Json[], schemas: Schemas): string {
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
  return [...byTag].map(([tag, operations]) => `${tagHeading(tag, tags)}${operations.join('')}`).join('\n')
}

function schemasOfDocument(document: Json): Schemas {
  const components = isJson(document.components) ? document.components : {}
  return (isJson(components.schemas) ? components.schemas : {}) as Schemas
}

/** The page's links: a table of contents. */
function contentsOf(paths: Json, tags: readonly Json[]): string {
  const used = new Set(Object.values(paths).filter(isJson)
    .flatMap((item) => METHODS.map((method) => item[method]).filter(isJson).map((op) => String(list(op.tags)[0]))))
  const links = tags.filter((tag) => used.has(String(tag.name))).map((tag) =>
    `<a href="#tag-${escape(tag.name)}">${escape(tag['x-displayName'] ?? tag.name)}</a>`)
  return `<p><a href="#authentication">Authentication</a> · ${links.join(' · ')} · ` +
    '<a href="#websocket">WebSocket</a> · <a href="#schemas">Schemas</a></p>'
}

/**
 * The page of the OpenAPI document (openApiDocument, src/api/rest/openapi.ts) and the AsyncAPI
 * document (asyncApiDocument, src/api/rest/asyncapi.ts) of a server on chain `chainId`.
 */
export function docsPage(openApi: Json, asyncApi: Json, chainId: number): string {
  const info = isJson(openApi.info) ? openApi.info : {}
  const paths = isJson(openApi.paths) ? openApi.paths : {}
  const tags = list(openApi.tags).filter(isJson)
  // One schema section for both documents: the same names are the same types (one generation).
  const schemas: Schemas = Object.fromEntries(Object.entries({ ...schemasOfDocument(asyncApi),
    ...schemasOfDocument(openApi) }).sort(([a], [b]) => a.localeCompare(b)))
  const title = `${escape(info.title ?? 'API')} ${escape(info.version ?? '')}`
  return '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title>` +
    `<style>${CSS}</style></head><body><h1>${title}</h1><p>${escape(info.description ?? '')} ` +
    'The machine-readable forms: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1, REST) and ' +
    '<a href="/asyncapi.json">/asyncapi.json</a> (AsyncAPI 3.0, WebSocket). ' +
    'Fields marked <span class="req">*</span> are always present (answers) or required (bodies).</p>\n' +
    `${contentsOf(paths, tags)}\n${authSection(chainId)}\n${sectionsOf(paths, tags, schemas)}\n` +
    `${wsSection(asyncApi, schemas)}\n<h2 id="schemas">Schemas</h2>\n${schemasSection(schemas)}\n</body></html>\n`
}
