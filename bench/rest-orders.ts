/**
 * Signed orders over REST for the benchmarks: POST /order requests rendered from orders signed
 * beforehand (only the L2 headers, an HMAC, are made as they go, as a client would); the
 * same requests in bench:rest and bench:grpc (which compares gRPC with them in one run).
 */
import { l2Headers } from '../src/client/headers.js'
import { orderBody } from '../src/client/orders.js'
import { httpRequest, type RequestSource } from './http-load.js'
import type { SignedFor } from './predex-server.js'

/** Keep-alive connections of a REST figure. */
export const REST_CONNECTIONS = 32

const nowSec = (): number => Math.floor(Date.now() / 1000)

/** POST /order of `orders` one after another (cycling); each one sent is appended to `sent`. */
export function orderSource(orders: readonly SignedFor[], sent: SignedFor[]): RequestSource {
  let next = 0
  return () => {
    const order = orders[next++ % orders.length]!
    sent.push(order)
    const { trader, signed } = order
    const body = orderBody(signed, trader.credentials.apiKey, 'GTC')
    return httpRequest('POST', '/order', body,
      l2Headers(trader.credentials, trader.address, 'POST', '/order', body, nowSec()))
  }
}
