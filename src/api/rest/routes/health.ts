/** Health, readiness, metrics and the server clock. */
import type { TypedRoute } from '../typed-route.js'
import { healthOf, readySeq } from '../../../service/admin/health.js'
import { METRICS_RENDER_INTERVAL_MS } from '../../../limits.js'
import type { Metrics } from '../../../metrics.js'
import { RenderCache } from '../render-cache.js'

const GET = 'GET' as const

/** Each server's /metrics text, rendered at most once per METRICS_RENDER_INTERVAL_MS. */
const metricsTexts = new WeakMap<Metrics, RenderCache>()

function metricsTextOf(metrics: Metrics): Promise<string> {
  let cache = metricsTexts.get(metrics)
  if (cache === undefined) {
    metricsTexts.set(metrics, cache = new RenderCache(() => metrics.text(), METRICS_RENDER_INTERVAL_MS))
  }
  return cache.get()
}

export const healthRoutes: TypedRoute[] = [
  { method: GET, path: '/health', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'health', summary: 'Liveness, engine sequence, journal lag, uptime, version',
      response: '{status, version, seq, journalLag, uptimeSec, pendingRequests, ringBytesUsed, ringBytes, role, '
        + 'replicaLag, chain}' },
    handler: (_request, _identity, context) => ({ body: { status: 'ok', ...healthOf(context) } }) },
  { method: GET, path: '/ready', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'health',
      summary: '200 while commands are accepted; 503 NOT_READY when the engine failed or is stopping. With '
        + '?role=primary, 200 only on the node that takes writes now (a load balancer\'s check): elsewhere the 503 a '
        + 'write would get (NOT_PRIMARY naming the primary, COMMAND_LOG_UNAVAILABLE)',
      query: { role: 'optional: primary' },
      response: '{ready: true, seq}' },
    handler: (request, _identity, context) => ({ body: { ready: true,
      seq: readySeq(context, request.query.get('role')) } }) },
  { method: GET, path: '/metrics', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'health', summary: 'Prometheus metrics (text format), rendered at most every 100 ms',
      response: 'text/plain', mediaType: 'text/plain' },
    handler: async (_request, _identity, context) => ({ body: await metricsTextOf(context.metrics), raw: true }) },
  { method: GET, path: '/time', auth: 'none', bodyMax: 0,
    openapi: { tag: 'health', summary: 'Server time, unix seconds (a bare JSON integer)', response: 'integer' },
    handler: (_request, _identity, context) => ({ body: Math.floor(context.nowMs() / 1000) }) },
  { method: GET, path: '/', auth: 'none', bodyMax: 0, surface: 'compat',
    openapi: { tag: 'health', summary: 'Polymarket liveness: "OK"', response: '"OK"' },
    handler: () => ({ body: 'OK' }) },
]
