/**
 * The page's way to the API: same-origin fetches, typed with the server's own body types
 * (src/api/shapes/bodies.ts), so that a change of a shape the page reads fails the page's type
 * check (npm run typecheck) instead of the page at run time. Errors come back as ApiError with
 * the catalogue's body (message, code, context).
 */
import type { CompatBodies, CompatRoute, NativeBodies, NativeRoute } from '../api/shapes/bodies.js'
import type { ErrorBody } from '../api/shapes/error.js'

export type Body<R extends NativeRoute> = NativeBodies[R]
export type CompatBody<R extends CompatRoute> = CompatBodies[R]

export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ErrorBody) {
    super(body.error)
  }
}

/** An answer's body, or ApiError for any status outside 2xx (a body that is not JSON included). */
async function parsed<T>(response: Response): Promise<T> {
  const text = await response.text()
  let body: unknown
  try {
    body = text === '' ? null : JSON.parse(text)
  } catch {
    throw new ApiError(response.status, { error: `the server answered ${response.status} with a body that is not JSON`,
      code: 'BAD_RESPONSE' })
  }
  if (!response.ok) {
    const error = body as Partial<ErrorBody> | null
    throw new ApiError(response.status, { ...error, error: error?.error ?? `HTTP ${response.status}`,
      code: error?.code ?? 'UNKNOWN' })
  }
  return body as T
}

/** GET `path` (with its query); `R` names the route whose body comes back. */
export async function get<R extends NativeRoute>(_route: R, path: string,
  headers: Record<string, string> = {}): Promise<Body<R>> {
  return parsed<Body<R>>(await fetch(path, { headers }))
}

/** GET of a Polymarket-shaped route under /compat. */
export async function getCompat<R extends CompatRoute>(_route: R, path: string): Promise<CompatBody<R>> {
  return parsed<CompatBody<R>>(await fetch(`/compat${path}`))
}

/** A request with a JSON body that is sent as exactly `body` (the L2 signature covers these bytes). */
export async function send<R extends NativeRoute>(_route: R, method: 'POST' | 'DELETE', path: string, body: string,
  headers: Record<string, string> = {}): Promise<Body<R>> {
  const init = { method, body, headers: { 'content-type': 'application/json', ...headers } }
  return parsed<Body<R>>(await fetch(path, init))
}
