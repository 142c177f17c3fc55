/**
 * Signed orders over REST for the benchmarks: POST /order requests rendered from orders signed
 * beforehand (only the L2 headers, an HMAC, are made as they go, as a client would); the
 * same requests in bench:rest and bench:grpc (which compares gRPC with them in one run).
 */
import { l2Headers } from '../src/crypto/request-headers.js'
import { orderBody } from '../src/client/orders.js'
import { httpRequest, type RequestSource } from './http-load.js'
import type { SignedFor } from './predex-server.js'

/** Keep-alive connections of a REST figure. */
export const REST_CONNECTIONS = 32

/**
 * Orders a server takes before any REST figure is measured, in bench:rest and bench:grpc. A fresh
 * server compiles its hot paths with TurboFan on V8's own threads, in each of its six isolates
 * (main, engine worker, journal thread, snapshot replica, two verification threads), for its
 * first thousands of orders: after 400 orders, the next 3 000 cost the server 0.58 ms of CPU
 * each, 0.25 of it V8's threads; after 4 000, 0.37-0.52 and 0.08-0.15, and `--trace-opt` still
 * counted 94 functions optimized in the 0.76 s of bench:rest's orders figure; after 14 000, 0.33
 * and 0.06, and 41 (docs/performance.md, "... what else was measured and left", 2026-12-01). The
 * figures are a running server's; bench:rest reports the first orders' rate beside them.
 */
export const REST_WARM_UP_ORDERS = 14_000

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

/** Orders in one POST /orders of the batch figure (the native limit, NATIVE_BATCH_ORDERS_MAX). */
export const BATCH_ORDERS = 10

/**
 * `orders` regrouped into batches of `size` orders of one trader each (a batch is placed with its
 * owner's L2 headers, so it cannot mix traders); a trader's last incomplete batch is left out.
 */
export function batchesOf(orders: readonly SignedFor[], size: number): SignedFor[][] {
  const byTrader = new Map<string, SignedFor[]>()
  for (const order of orders) {
    const list = byTrader.get(order.trader.address) ?? []
    list.push(order)
    byTrader.set(order.trader.address, list)
  }
  const lists = [...byTrader.values()]
  const batches: SignedFor[][] = []
  // Traders in turn, as the single figure sends them, so no one key's verification queue fills first.
  for (let from = 0; lists.some((list) => from + size <= list.length); from += size) {
    for (const list of lists) if (from + size <= list.length) batches.push(list.slice(from, from + size))
  }
  return batches
}

/** POST /orders of `batches` one after another (cycling); each order sent is appended to `sent`. */
export function batchSource(batches: readonly SignedFor[][], sent: SignedFor[]): RequestSource {
  let next = 0
  return () => {
    const batch = batches[next++ % batches.length]!
    sent.push(...batch)
    const { trader } = batch[0]!
    const body = '[' + batch.map(({ signed }) => orderBody(signed, trader.credentials.apiKey, 'GTC')).join(',') + ']'
    return httpRequest('POST', '/orders', body,
      l2Headers(trader.credentials, trader.address, 'POST', '/orders', body, nowSec()))
  }
}
