/**
 * What the WebSocket channels share: the bounds of a socket (limits.ts), the upgrade with the
 * socket's own data, text `PING` answered `PONG`, JSON messages parsed by the one set of wire
 * rules, and any error answered as `{"event_type": "error", "error", "code", ...}` from the
 * catalogue.
 */
import type { WebSocket, WebSocketBehavior } from 'uWebSockets.js'
import { WS_BACKPRESSURE_BYTES_MAX, WS_IDLE_TIMEOUT_SEC, WS_MESSAGE_BYTES_MAX } from '../../limits.js'
import { ApiCode, PredexError } from '../../errors.js'
import type { WsError } from '../shapes/ws-socket.js'
import { parseJsonBody } from '../wire.js'
import type { Metrics, WsChannel } from '../../metrics.js'

/** Where a channel's sockets and messages are counted (/metrics). */
export interface ChannelMeter {
  readonly channel: WsChannel
  readonly metrics: Metrics
}

export interface ChannelHandlers<T> {
  /** The data of a new socket, from the client's address. */
  readonly data: (remoteAddress: string) => T
  readonly open: (ws: WebSocket<T>) => void
  readonly close: (ws: WebSocket<T>) => void
  /** A JSON object from the client; throw an PredexError to answer with an error event. */
  readonly message: (ws: WebSocket<T>, body: Record<string, unknown>) => void
  /** After an error event was sent (the user channel closes an unauthenticated socket). */
  readonly afterError?: (ws: WebSocket<T>) => void
}

export function channelBehavior<T>(meter: ChannelMeter, handlers: ChannelHandlers<T>): WebSocketBehavior<T> {
  const { channel, metrics } = meter
  return {
    compression: 0,
    maxPayloadLength: WS_MESSAGE_BYTES_MAX,
    maxBackpressure: WS_BACKPRESSURE_BYTES_MAX,
    // A flag, though this build types it as a number: a reader past the bound is closed.
    closeOnBackpressureLimit: 1,
    idleTimeout: WS_IDLE_TIMEOUT_SEC,
    upgrade: (res, req, context) => {
      const data = handlers.data(Buffer.from(res.getRemoteAddressAsText()).toString())
      res.upgrade<T>(data, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'), context)
    },
    open: (ws) => {
      metrics.wsOpened(channel)
      handlers.open(ws)
    },
    close: (ws) => {
      metrics.wsClosed(channel)
      handlers.close(ws)
    },
    message: (ws, message) => {
      const started = performance.now()
      const status = handled(ws, message, handlers)
      metrics.observeWsMessage(channel, status, (performance.now() - started) / 1000)
    },
  }
}

/** Answers one client message; returns its status for /metrics ("pong", "ok" or the catalogue code). */
function handled<T>(ws: WebSocket<T>, message: ArrayBuffer, handlers: ChannelHandlers<T>): string {
  const text = Buffer.from(message).toString('utf8')
  if (text === 'PING') {
    ws.send('PONG')
    return 'pong'
  }
  try {
    const body = parseJsonBody(Buffer.from(text))
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new PredexError(ApiCode.BAD_REQUEST, 'a subscription is a JSON object')
    }
    handlers.message(ws, body as Record<string, unknown>)
    return 'ok'
  } catch (error) {
    const apiError = error instanceof PredexError ? error : new PredexError(ApiCode.BAD_REQUEST, String(error))
    const event: WsError = { event_type: 'error', ...apiError.body() }
    ws.send(JSON.stringify(event))
    handlers.afterError?.(ws)
    return apiError.code
  }
}
