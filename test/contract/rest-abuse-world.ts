/**
 * The world of the REST abuse tests (rest-abuse.test.ts, rest-input-abuse.test.ts): a real server
 * started when a test file imports this module (each file is a process of its own, so each has
 * its own server), Alice and Bob funded on one market, and the helpers that send a request and
 * check that a refused one changed nothing in the engine (state hash, sequence, balances).
 */
import { connect } from 'node:net'
import t, { type Test } from 'tap'
import { orderBody, signLimitOrder, type MarketTerms, type SignedOrder } from '../../src/client/orders.js'
import { l2Headers } from '../../src/crypto/request-headers.js'
import type { ApiCredentials } from '../../src/api/shapes/credential.js'
import { Wallet } from '../../src/crypto/wallet.js'
import type { OrderStruct } from '../../src/crypto/eip712.js'
import { CHAIN_ID, USDC, nowSec, send, startServer, type Trader } from '../support/rest-harness.js'
import { TestClock } from '../support/clock.js'

// The server runs with a short L2 window (3 s past, 1 s ahead), on a clock the tests move.
export const PAST_SEC = 3
export const FUTURE_SEC = 1
export const clock = new TestClock()
export const server = await startServer({ clock,
  argv: ['--auth-window-past', String(PAST_SEC), '--auth-window-future', String(FUTURE_SEC)] })
t.teardown(() => server.stop())
export const port = server.predex.port
export const market = await server.createMarket()
export const alice = await server.trader(100 * USDC)
export const bob = await server.trader(100 * USDC)
export const terms: MarketTerms = { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: CHAIN_ID }

export interface Answer {
  readonly status: number
  readonly body: any
  readonly contentType: string | null
  readonly headers: Readonly<Record<string, string>>
}

// ---------------------------------------------------------------------------------------------
// Helpers

export async function engineState(): Promise<{ seq: number; stateHash: string }> {
  const answer = await server.predex.context.host.query({ kind: 'stateHash' })
  if (answer.kind !== 'stateHash') throw new Error('unexpected answer')
  return { seq: answer.seq, stateHash: answer.stateHash }
}

export async function balances(): Promise<unknown> {
  return Promise.all([alice, bob].map((trader) => server.account(trader.address)))
}

/** A request through fetch (the harness's send), as an Answer. */
export async function call(method: string, path: string, text: string, headers: Record<string, string> = {}): Promise<Answer> {
  const answer = await send(server, method, path, text, headers)
  return { status: answer.status, body: answer.body, contentType: answer.headers.get('content-type'),
    headers: Object.fromEntries(answer.headers.entries()) }
}

/** An L2-signed request with native headers (or POLY_* ones), optionally at another timestamp. */
export function signedHeaders(trader: Trader, method: string, path: string, text: string, timestampSec = nowSec(),
  credentials: ApiCredentials = trader.credentials, family: 'EXCHANGE' | 'POLY' = 'EXCHANGE'): Record<string, string> {
  return l2Headers(credentials, trader.address, method, path, text, timestampSec, family)
}

export async function l2Call(trader: Trader, method: string, path: string, text: string): Promise<Answer> {
  return call(method, path, text, signedHeaders(trader, method, path.split('?')[0]!, text))
}

/**
 * Raw HTTP/1.1 over a socket: writes `parts` one after another (`gapMs` apart, stopping once the
 * server has answered), and parses the first response. A connection closed without an answer
 * gives status 0.
 */
export function rawHttp(parts: readonly (string | Buffer)[], gapMs = 5, timeoutMs = 5_000): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    let received = Buffer.alloc(0)
    let finished = false
    const finish = (): void => {
      if (finished) return
      finished = true
      clearTimeout(timer)
      socket.destroy()
      resolve(parseResponse(received.toString('latin1')))
    }
    const timer = setTimeout(finish, timeoutMs)
    socket.on('connect', () => {
      void (async () => {
        for (const part of parts) {
          if (finished || socket.destroyed || received.length > 0) break
          socket.write(part)
          if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs))
        }
      })()
    })
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      const answer = parseResponse(received.toString('latin1'))
      const length = Number(answer.headers['content-length'] ?? NaN)
      const head = received.indexOf('\r\n\r\n')
      if (head >= 0 && Number.isFinite(length) && received.length >= head + 4 + length) finish()
    })
    socket.on('error', () => undefined)
    socket.on('close', finish)
  })
}

export function parseResponse(text: string): Answer {
  const head = text.indexOf('\r\n\r\n')
  if (head < 0) return { status: 0, body: null, contentType: null, headers: {} }
  const lines = text.slice(0, head).split('\r\n')
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0]!)?.[1] ?? 0)
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const rawBody = text.slice(head + 4)
  let body: unknown = rawBody
  try {
    body = JSON.parse(rawBody)
  } catch {
    // not JSON: kept as text, and the assertions below will say so
  }
  return { status, body, contentType: headers['content-type'] ?? null, headers }
}

/** The error contract of api.md: status, JSON, `{error, code}`. */
export function expectError(t: Test, answer: Answer, status: number, code: string): void {
  t.equal(answer.status, status, `status ${status}: ${JSON.stringify(answer.body)}`)
  t.match(answer.contentType ?? '', /^application\/json/, 'a JSON answer')
  t.type(answer.body, 'object', 'a JSON object body')
  t.equal(answer.body?.code, code, `code ${code}`)
  t.type(answer.body?.error, 'string', 'a human message')
  t.ok(String(answer.body?.error ?? '').length > 0, 'a non-empty message')
}

/** A refused request: status, code, and nothing changed in the engine (state hash, seq, balances). */
export function refused(name: string, status: number, code: string, run: () => Promise<Answer>,
  more?: (t: Test, answer: Answer) => void | Promise<void>): void {
  t.test(name, async (t) => {
    const before = await engineState()
    const balancesBefore = await balances()
    const answer = await run()
    expectError(t, answer, status, code)
    await more?.(t, answer)
    t.same(await engineState(), before, 'the engine state hash and sequence are unchanged')
    t.same(await balances(), balancesBefore, 'balances and holds are unchanged')
  })
}

export let salt = 1

export function aliceOrder(overrides: Partial<{ price: string; size: string; tokenId: string; expiration: number }> = {},
  orderTerms: MarketTerms = terms, wallet: Wallet = alice.wallet): SignedOrder {
  return signLimitOrder(wallet, orderTerms, { tokenId: market.yesTokenId, side: 'BUY', price: '0.40', size: '10', ...overrides },
    { salt: String(1_000 + salt++) })
}

/** Alice's order with some of its signed fields replaced, and signed again: well signed, odd terms. */
export function resigned(changes: Partial<OrderStruct>): SignedOrder {
  const order: OrderStruct = { ...aliceOrder().order, ...changes }
  return { order, ...alice.wallet.signOrder(order, CHAIN_ID, false) }
}

export function resignedText(changes: Partial<OrderStruct>, orderType: 'GTC' | 'GTD' | 'FOK' | 'FAK' = 'GTC'): string {
  return orderBody(resigned(changes), alice.credentials.apiKey, orderType)
}

/** The JSON of POST /order for `signed`, changed by `edit` (on the parsed object). */
export function editedBody(signed: SignedOrder, edit: (body: any) => void, owner = alice.credentials.apiKey): string {
  const body = JSON.parse(orderBody(signed, owner, 'GTC'))
  edit(body)
  return JSON.stringify(body)
}
