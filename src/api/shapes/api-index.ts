/**
 * GET /: where to start. A browser (Accept with text/html) gets the web page instead (or is
 * redirected to /docs when the page is not built); any other client gets this, the paths of the
 * documents and of Polymarket's surface.
 */

export type ApiIndex = {
  readonly name: 'Predex'
  /** The server's version (package.json), the same as the documents' info.version. */
  readonly version: string
  /** This API as a page: authentication, the native and /compat routes, the WebSocket channels. */
  readonly docs: '/docs'
  /** OpenAPI 3.1: the REST routes of both surfaces. */
  readonly openapi: '/openapi.json'
  /** AsyncAPI 3.0: the WebSocket channels. */
  readonly asyncapi: '/asyncapi.json'
  /** Polymarket's CLOB surface: clob-client's `host`. */
  readonly compat: '/compat'
}
