/** Health, readiness, metrics and the server clock. */
import type { ServiceContext } from '../../../service/context.js'
import type { Route } from '../route.js'
import { ApiCode, PredexError } from '../../../errors.js'

const GET = 'GET' as const

export const healthRoutes: Route<ServiceContext>[] = [
  { method: GET, path: '/health', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'health', summary: 'Liveness, engine sequence, journal lag, uptime, version',
      response: '{status, version, seq, journalLag, uptimeSec, pendingRequests, ringBytesUsed, ringBytes}' },
    handler: (_request, _identity, context) => {
      const load = context.host.load
      // Commands are acknowledged only once journaled: those pending are the journal's lag.
      return { body: { status: 'ok', version: context.version, seq: context.read.seq, journalLag: load.pendingRequests,
        uptimeSec: Math.floor((context.nowMs() - context.startedMs) / 1000), ...load } }
    } },
  { method: GET, path: '/ready', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'health', summary: '200 while commands are accepted; 503 NOT_READY when the engine failed or is stopping',
      response: '{ready: true, seq}' },
    handler: (_request, _identity, context) => {
      const reason = context.host.unavailableReason
      if (reason !== null) throw new PredexError(ApiCode.NOT_READY, `not ready: ${reason}`)
      return { body: { ready: true, seq: context.read.seq } }
    } },
  { method: GET, path: '/metrics', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'health', summary: 'Prometheus metrics (text format)', response: 'text/plain' },
    handler: (_request, _identity, context) => ({ body: context.metrics.text([
      { name: 'predex_engine_commands_total', help: 'Commands applied and durable (the engine sequence); rate() gives commands/s.', value: context.read.seq },
    ]), raw: true }) },
  { method: GET, path: '/time', auth: 'none', bodyMax: 0,
    openapi: { tag: 'health', summary: 'Server time, unix seconds (a bare JSON integer)', response: 'integer' },
    handler: (_request, _identity, context) => ({ body: Math.floor(context.nowMs() / 1000) }) },
  { method: GET, path: '/', auth: 'none', bodyMax: 0, surface: 'compat',
    openapi: { tag: 'health', summary: 'Polymarket liveness: "OK"', response: '"OK"' },
    handler: () => ({ body: 'OK' }) },
]
