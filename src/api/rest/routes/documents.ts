/**
 * The documents of the API and where to find them: GET /openapi.json (REST, both surfaces),
 * GET /asyncapi.json (the WebSocket channels), GET /docs (both as one page, with how to
 * authenticate) and GET / (an index; a browser is sent to /docs). Built from the route table they
 * describe, which is handed in as a function: this module is part of that table.
 */
import type { ServiceContext } from '../../../service/context.js'
import { VERSION } from '../../../version.js'
import type { ApiIndex } from '../../shapes/api-index.js'
import { asyncApiDocument } from '../asyncapi.js'
import { docsPage } from '../docs-page.js'
import { openApiDocument } from '../openapi.js'
import type { Reply, RestRequest, Route } from '../route.js'

type Table = () => readonly Route<ServiceContext>[]

const INDEX: ApiIndex = { name: 'Predex', version: VERSION, docs: '/docs', openapi: '/openapi.json',
  asyncapi: '/asyncapi.json', compat: '/compat' }

/** A browser asks for HTML first; curl, fetch and SDKs do not. */
function wantsHtml(request: RestRequest): boolean {
  return (request.headers('accept') ?? '').toLowerCase().includes('text/html')
}

export function documentRoutes(table: Table): Route<ServiceContext>[] {
  /** The page is the same for the process's life (per chain): rendered once, at the first request. */
  const pages = new Map<number, string>()
  return [
    { method: 'GET', path: '/openapi.json', auth: 'none', bodyMax: 0, surface: 'native',
      openapi: { tag: 'health', summary: 'This document: OpenAPI 3.1 of the REST API, native and /compat',
        response: 'OpenAPI document' },
      handler: () => ({ body: openApiDocument(table(), VERSION) }) },
    { method: 'GET', path: '/asyncapi.json', auth: 'none', bodyMax: 0, surface: 'native',
      openapi: { tag: 'health', summary: 'AsyncAPI 3.0 of the WebSocket channels (/ws/market, /ws/user)',
        response: 'AsyncAPI document' },
      handler: () => ({ body: asyncApiDocument(VERSION) }) },
    { method: 'GET', path: '/docs', auth: 'none', bodyMax: 0, surface: 'native',
      openapi: { tag: 'health', summary: 'Both documents as one browsable page, with how to authenticate',
        response: 'HTML page', mediaType: 'text/html' },
      handler: (_request, _identity, context) => {
        let page = pages.get(context.chainId)
        if (page === undefined) {
          page = docsPage(openApiDocument(table(), VERSION), asyncApiDocument(VERSION), context.chainId)
          pages.set(context.chainId, page)
        }
        return { body: page, raw: true, contentType: 'text/html; charset=utf-8' }
      } },
    { method: 'GET', path: '/', auth: 'none', bodyMax: 0, surface: 'native',
      openapi: { tag: 'health', summary: 'Where the documents are: the paths of /docs, /openapi.json, '
        + '/asyncapi.json and /compat, and the server\'s version', response: 'ApiIndex',
      redirect: 'Accept names text/html (a browser): Location /docs, the same body' },
      // Vary: a cache must not hand a browser's redirect to a script, nor the reverse.
      handler: (request): Reply => wantsHtml(request)
        ? { status: 302, body: INDEX, headers: { location: '/docs', vary: 'accept' } }
        : { body: INDEX, headers: { vary: 'accept' } } },
  ]
}
