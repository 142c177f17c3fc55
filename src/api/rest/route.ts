/**
 * A REST route: method, path, authentication, body limit, handler, and what the OpenAPI document
 * says about it. The route table (routes.ts) is the single source for the server and for
 * GET /openapi.json, so they cannot drift apart.
 */
import type { HeaderGetter } from '../../auth/headers.js'
import type { RateClass } from '../../limits.js'

export type Method = 'GET' | 'POST' | 'DELETE' | 'PATCH'
export type AuthLevel = 'none' | 'l1' | 'l2' | 'admin'

/** A request as handlers see it: everything copied out of uWS, so it outlives the callback. */
export interface RestRequest {
  readonly method: Method
  /** The path, without the query string and without the /compat prefix. */
  readonly path: string
  readonly params: readonly string[]
  readonly query: URLSearchParams
  readonly headers: HeaderGetter
  readonly body: Uint8Array
  /** True under /compat: Polymarket's formats. */
  readonly compat: boolean
  readonly remoteAddress: string
}

export interface Reply {
  readonly status?: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
  /** Send the body as it is (text), not as JSON. */
  readonly raw?: boolean
  /** The body already serialized as JSON (a cached answer): sent as it is, as application/json. */
  readonly json?: string
  /**
   * The body as bytes, sent as they are (a file of the web page, maybe compressed: its headers say
   * so), instead of `body`, as `contentType` (application/octet-stream unless told). A 304 sends none.
   */
  readonly bytes?: Uint8Array
  /** A raw body's media type, when it is not Prometheus text (the /docs page is text/html). */
  readonly contentType?: string
}

export interface Identity {
  /** L2: the API key used; L1: none. */
  readonly apiKey: string | null
  /** Lower-case address of the authenticated wallet. */
  readonly address: string
  /** L1: the nonce signed. */
  readonly nonce: number
}

export type Handler<C> = (request: RestRequest, identity: Identity | null, context: C) => Promise<Reply> | Reply

export interface OpenApiInfo {
  readonly summary: string
  /** What the summary cannot say in a line (a convention, what an answer means exactly), when it matters. */
  readonly description?: string
  readonly tag: string
  /** Query parameters: name -> description (required ones start with "required:"). */
  readonly query?: Readonly<Record<string, string>>
  /**
   * What the request body is for, in words. Its schema is generated from the route's entry in
   * NativeRequestBodies (src/api/shapes/requests.ts), as the response's from NativeBodies: a native
   * route has a body description exactly when it has a request type (test/unit/api/openapi-schemas.test.ts).
   */
  readonly body?: string
  /** What the answer is, in words; its schema is generated from the route's entry in NativeBodies. */
  readonly response: string
  /** The success status, when not 200. */
  readonly status?: 201
  /** When the route may answer 302 instead (Location names where), in words. */
  readonly redirect?: string
  /**
   * The answer's media type, when not application/json (it is then sent raw); the range of every
   * type for a file whose type its name decides (the web page's assets: JavaScript, CSS, source maps).
   */
  readonly mediaType?: 'text/plain' | 'text/html' | '*/*'
  /** When the route may answer an HTML page instead (a browser's Accept), in words: a second media type of its 200. */
  readonly html?: string
  /** Its answers carry an ETag, and a request whose If-None-Match names it gets 304 without a body. */
  readonly notModified?: true
}

export interface Route<C> {
  readonly method: Method
  /** uWS pattern: `/data/order/:id`. */
  readonly path: string
  readonly auth: AuthLevel
  /** Largest body accepted, in bytes (0: no body). */
  readonly bodyMax: number
  readonly handler: Handler<C>
  readonly openapi: OpenApiInfo
  /** Its own rate budget (limits.ts RATE_RULES), besides the general one every request counts against. */
  readonly rate?: RateClass
  /**
   * An order placement: refused before its body is read while the front end sheds load
   * (service/trading/load-shedder.ts). Reads and cancels never are.
   */
  readonly placement?: true
  /** Only under /compat (Polymarket-only endpoints), or only native. */
  readonly surface?: 'native' | 'compat' | 'both'
}
