/**
 * The documents of the API and where to find them: GET /openapi.json (REST, both surfaces),
 * GET /asyncapi.json (the WebSocket channels), GET /docs (both as one page, with how to
 * authenticate) and GET / (an index; a browser gets the web page, or is sent to /docs when the
 * page is not built), with the web page's files at GET /assets/:file. Built from the route table
 * they describe, which is handed in as a function: this module is part of that table.
 */
import { ApiCode, PredexError } from '../../../errors.js'
import type { Log } from '../../../log.js'
import type { ServiceContext } from '../../../service/context.js'
import { VERSION } from '../../../version.js'
import type { ApiIndex } from '../../shapes/api-index.js'
import { asyncApiDocument } from '../asyncapi.js'
import { docsPage } from '../docs-page.js'
import { openApiDocument } from '../openapi.js'
import type { RestRequest, Route } from '../route.js'
import type { ReplyOf, TypedRoute } from '../typed-route.js'
import { WebPage } from '../web-page.js'
import { assetReply, indexReply } from '../web-reply.js'

type Table = () => readonly Route<ServiceContext>[]

const INDEX: ApiIndex = { name: 'Predex', version: VERSION, docs: '/docs', openapi: '/openapi.json',
  asyncapi: '/asyncapi.json', compat: '/compat' }

/** A browser asks for HTML first; curl, fetch and SDKs do not. */
function wantsHtml(request: RestRequest): boolean {
  return (request.headers('accept') ?? '').toLowerCase().includes('text/html')
}

/**
 * The web page, read from dist/web at the first request that needs it and kept for the process's
 * life (a page built later is served after a restart); null when it is not built, or when it could
 * not be read (logged once: the server goes on without it, as when it is not built).
 */
function pageOnce(load: () => WebPage | null): (log: Log) => WebPage | null {
  let page: WebPage | null | undefined
  return (log) => {
    if (page !== undefined) return page
    try {
      page = load()
    } catch (error) {
      log.error('the web page is not served: its files could not be read', { err: error })
      page = null
    }
    return page
  }
}

/** `loadPage`: the built page (dist/web of the package root) unless told, null when there is none. */
export function documentRoutes(table: Table, loadPage: () => WebPage | null = () => WebPage.load()): TypedRoute[] {
  /** The page is the same for the process's life (per chain): rendered once, at the first request. */
  const pages = new Map<number, string>()
  const webPage = pageOnce(loadPage)
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
        + '/asyncapi.json and /compat, and the server\'s version; a browser gets the web page', response: 'ApiIndex',
      html: 'Accept names text/html (a browser) and the web page is built: the page (index.html, the server\'s '
        + 'chain id in its predex-chain-id meta tag)', notModified: true,
      redirect: 'Accept names text/html (a browser) and the web page is not built: Location /docs, the same body' },
      // Vary: a cache must not hand a browser's page or redirect to a script, nor the reverse.
      handler: (request, _identity, context): ReplyOf<ApiIndex> => {
        if (!wantsHtml(request)) return { body: INDEX, headers: { vary: 'accept' } }
        const page = webPage(context.log)
        return page === null ? { status: 302, body: INDEX, headers: { location: '/docs', vary: 'accept' } }
          : indexReply(page.index(context.chainId), request)
      } },
    { method: 'GET', path: '/assets/:file', auth: 'none', bodyMax: 0, surface: 'native',
      openapi: { tag: 'health', summary: 'A file of the web page: its scripts, styles and source maps, by name',
        description: 'The names carry a hash of the content (index.html names them), so an answer is cached for a '
          + 'year (immutable). Brotli or gzip when Accept-Encoding allows it; an ETag, and 304 for If-None-Match.',
        response: 'the file, its media type by its name', mediaType: '*/*', notModified: true },
      handler: (request, _identity, context) => {
        // By exact name in the page's map of files: no name a client sends reaches outside dist/web.
        const file = webPage(context.log)?.asset(request.params[0] ?? '')
        if (file === undefined) throw new PredexError(ApiCode.NOT_FOUND, 'no such file of the web page')
        return assetReply(file, request)
      } },
  ]
}
