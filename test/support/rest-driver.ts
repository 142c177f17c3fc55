/**
 * The REST driver: the contract cases over a real Predex on loopback (test/rest-harness.ts: port
 * 0, a fresh temporary data directory), each operation its native route, authenticated with L2
 * headers.
 */
import { l2Headers } from '../../src/client/headers.js'
import { send, startServer, type TestServer } from '../rest-harness.js'
import { nowSec, type Caller, type Driver, type Query, type Reply, type Trader } from './driver.js'

export async function startRestDriver(): Promise<Driver> {
  return new RestDriver(await startServer())
}

class RestDriver implements Driver {
  constructor(private server: TestServer) {}

  command: Driver['command'] = (command) => this.server.command(command)
  createMarket: Driver['createMarket'] = (options) => this.server.createMarket(options)
  trader: Driver['trader'] = (usdcMicros) => this.server.trader(usdcMicros)
  account: Driver['account'] = (address) => this.server.account(address)

  async restart(): Promise<void> {
    await this.server.predex.stop()
    this.server = await startServer({ dataDir: this.server.dataDir })
  }

  stop(): Promise<void> {
    return this.server.stop()
  }

  placeOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.call(caller, 'POST', '/order', request)
  }

  placeOrders(caller: Caller, requests: unknown): Promise<Reply> {
    return this.call(caller, 'POST', '/orders', requests)
  }

  verifyOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.call(caller, 'POST', '/order/verify', request)
  }

  cancelOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.call(caller, 'DELETE', '/order', request)
  }

  cancelOrders(caller: Caller, ids: unknown): Promise<Reply> {
    return this.call(caller, 'DELETE', '/orders', ids)
  }

  cancelAll(caller: Caller): Promise<Reply> {
    return this.call(caller, 'DELETE', '/cancel-all')
  }

  order(caller: Caller, orderId: string): Promise<Reply> {
    return this.call(caller, 'GET', `/data/order/${orderId}`)
  }

  openOrders(caller: Caller, query: Query = {}): Promise<Reply> {
    return this.call(caller, 'GET', '/data/orders' + queryString(query))
  }

  orders(caller: Caller, query: Query = {}): Promise<Reply> {
    return this.call(caller, 'GET', '/orders' + queryString(query))
  }

  trades(caller: Caller, query: Query = {}): Promise<Reply> {
    return this.call(caller, 'GET', '/data/trades' + queryString(query))
  }

  balance(caller: Caller, query: Query): Promise<Reply> {
    return this.call(caller, 'GET', '/balance-allowance' + queryString(query))
  }

  book(tokenId: string): Promise<Reply> {
    return this.call(null, 'GET', `/book?token_id=${tokenId}`)
  }

  unifiedBook(tokenId: string): Promise<Reply> {
    return this.call(null, 'GET', `/book/unified?token_id=${tokenId}`)
  }

  /** A request as `caller` (null: a public route); a body other than a string is sent as JSON. */
  private async call(caller: Caller | null, method: string, path: string, body?: unknown): Promise<Reply> {
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body)
    const { status, body: answer } = await send(this.server, method, path, text, headersOf(caller, method, path, text))
    return { status, body: answer }
  }
}

function headersOf(caller: Caller | null, method: string, path: string, text: string): Record<string, string> {
  if (caller === null || 'anonymous' in caller) return {}
  if ('forged' in caller) return forgedHeaders(caller.forged)
  return l2Headers(caller.credentials, caller.address, method, path.split('?')[0]!, text, nowSec(), 'EXCHANGE')
}

/** The trader's L2 headers with a well-formed signature that signs nothing. */
function forgedHeaders(trader: Trader): Record<string, string> {
  return {
    'EXCHANGE-ADDRESS': trader.address, 'EXCHANGE-SIGNATURE': 'A'.repeat(43) + '=', 'EXCHANGE-TIMESTAMP': String(nowSec()),
    'EXCHANGE-API-KEY': trader.credentials.apiKey, 'EXCHANGE-PASSPHRASE': trader.credentials.passphrase,
  }
}

function queryString(query: Query): string {
  const entries = Object.entries(query).map(([key, value]): [string, string] => [key, String(value)])
  return entries.length === 0 ? '' : '?' + new URLSearchParams(entries).toString()
}
