/**
 * A route the compiler holds to its answer's declared shape: the body of `METHOD path` in
 * NativeBodies and CompatBodies (src/api/shapes/bodies.ts), the same entries the OpenAPI schemas
 * and the SDK's return types come from. The route tables are lists of TypedRoute, so a handler
 * that answers anything but its route's body does not compile, and a route missing from the
 * shapes has no type to be (the shapes' keys are the table's: test/unit/client/shapes.test.ts).
 *
 * A route on both surfaces answers either surface's body (it picks by `request.compat`). A body
 * sent as JSON made beforehand (a cached book) must be a `JsonOf` its shape (src/api/json-text.ts),
 * so the cache cannot hold text of another.
 */
import type { ServiceContext } from '../../service/context.js'
import type { JsonOf } from '../json-text.js'
import type { CompatBodies, CompatRoute, NativeBodies, NativeRoute } from '../shapes/bodies.js'
import type { Identity, Reply, RestRequest, Route } from './route.js'

type RouteKey = NativeRoute | CompatRoute

/** The body `K` answers: its native one, its compat one, or either. */
export type BodyOf<K extends RouteKey> =
  | (K extends NativeRoute ? NativeBodies[K] : never)
  | (K extends CompatRoute ? CompatBodies[K] : never)

/**
 * A reply whose body is a `B`, or a `B`'s JSON made beforehand, or bytes of another media type
 * the route declares (the web page's files: OpenApiInfo `html`, `mediaType`).
 */
export type ReplyOf<B> = Omit<Reply, 'body' | 'json' | 'bytes'> &
  ({ readonly body: B; readonly json?: undefined; readonly bytes?: undefined } |
    { readonly body: null; readonly json: JsonOf<B>; readonly bytes?: undefined } |
    { readonly body: null; readonly json?: undefined; readonly bytes: Uint8Array })

type MethodOf<K> = K extends `${infer M extends Route<ServiceContext>['method']} ${string}` ? M : never
type PathOf<K> = K extends `${string} ${infer P}` ? P : never

/** A handler answering a `B` (one shared by several routes names its body so). */
export type HandlerOf<B> = (request: RestRequest, identity: Identity | null, context: ServiceContext) =>
  ReplyOf<B> | Promise<ReplyOf<B>>

type RouteOf<K extends RouteKey> = Omit<Route<ServiceContext>, 'method' | 'path' | 'handler'> & {
  readonly method: MethodOf<K>
  readonly path: PathOf<K>
  readonly handler: HandlerOf<BodyOf<K>>
}

/** Any route of the table, its handler typed by its method and path. */
export type TypedRoute = { [K in RouteKey]: RouteOf<K> }[RouteKey]
