/**
 * What the stream tests share: a reader that turns a grpc-js client stream into awaited messages
 * (each wait bounded), a client-side book that applies a book stream's messages (as a market
 * maker's would), and a few order helpers over REST.
 */
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js'
import { callErrorOf, type GrpcCallError, type GrpcSigner } from '../../src/client/grpc/transport.js'
import { Side } from '../../src/gen/predex/v1/common_pb.js'
import type { BookStreamResponse } from '../../src/gen/predex/v1/streams_pb.js'
import { l2, placeLimit, type TestServer, type Trader } from '../support/rest-harness.js'
import type { MarketRecord } from '../../src/engine/event.js'

export const WAIT_MS = 5_000

export function signerOf(trader: Trader): GrpcSigner {
  return { credentials: trader.credentials, address: trader.address }
}

/** Messages of a server stream as they come; `next` waits (at most `timeoutMs`) for the next one. */
export class Reader<T> {
  private readonly queue: T[] = []
  private wake: (() => void) | null = null
  /** The call's error, once it ended with one. */
  error: GrpcCallError | null = null
  ended = false

  constructor(readonly stream: ClientReadableStream<T>) {
    stream.on('data', (message: T) => {
      this.queue.push(message)
      this.poke()
    })
    stream.on('error', (error: ServiceError) => {
      this.error = callErrorOf(error)
      this.ended = true
      this.poke()
    })
    stream.on('end', () => {
      this.ended = true
      this.poke()
    })
  }

  /** The next message; rejects when the stream ends first (with its error) or nothing comes in time. */
  async next(timeoutMs = WAIT_MS): Promise<T> {
    const deadline = Date.now() + timeoutMs
    while (this.queue.length === 0) {
      if (this.ended) throw this.error ?? new Error('the stream ended')
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no message within ${timeoutMs} ms`)
      await this.waitUpTo(left)
    }
    return this.queue.shift()!
  }

  /** The messages that come until none has come for `idleMs` (the stream stays open). */
  async drain(idleMs = 300): Promise<T[]> {
    const messages: T[] = []
    for (;;) {
      if (this.queue.length === 0) await this.waitUpTo(idleMs)
      if (this.queue.length === 0) return messages
      messages.push(this.queue.shift()!)
    }
  }

  /** The error the stream ends with (after the messages still queued, which are dropped). */
  async failure(timeoutMs = WAIT_MS): Promise<GrpcCallError> {
    const deadline = Date.now() + timeoutMs
    while (!this.ended) {
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`the stream did not end within ${timeoutMs} ms`)
      await this.waitUpTo(left)
    }
    if (this.error === null) throw new Error('the stream ended without an error')
    return this.error
  }

  /** Messages received and not yet taken. */
  get queued(): number {
    return this.queue.length
  }

  cancel(): void {
    this.stream.cancel()
  }

  private waitUpTo(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null
        resolve()
      }, ms)
      this.wake = () => {
        clearTimeout(timer)
        this.wake = null
        resolve()
      }
    })
  }

  private poke(): void {
    this.wake?.()
  }
}

/** A level as REST writes it. */
export interface RestLevel {
  readonly price: string
  readonly size: string
}

/**
 * One token's book as a client keeps it from a book stream: the snapshot's levels, then each
 * message's changes; `seq` is the number of the last message applied. Sizes and prices stay the
 * server's decimal strings (a client would parse them; equality is all the tests need, and the
 * server writes one spelling per amount).
 */
export class ClientBook {
  seq = -1n
  lastTradePrice: string | null = null
  private readonly bids = new Map<string, string>()
  private readonly asks = new Map<string, string>()

  /** Applies `message`; false (and nothing applied) when its number is not the next one: a gap. */
  apply(message: BookStreamResponse): boolean {
    const update = message.update
    if (update.case === 'snapshot') {
      this.bids.clear()
      this.asks.clear()
      for (const level of update.value.bids) this.bids.set(level.price, level.size)
      for (const level of update.value.asks) this.asks.set(level.price, level.size)
      this.lastTradePrice = update.value.lastTradePrice ?? null
      this.seq = message.seq
      return true
    }
    if (message.seq !== this.seq + 1n) return false
    this.seq = message.seq
    if (update.case === 'levels') {
      for (const change of update.value.changes) {
        const levels = change.side === Side.BUY ? this.bids : this.asks
        if (change.size === '0') levels.delete(change.price)
        else levels.set(change.price, change.size)
      }
    } else if (update.case === 'trade') {
      this.lastTradePrice = update.value.price
    }
    return true
  }

  /** As REST's /book writes them: bids ascending, asks descending (best last). */
  levels(): { bids: RestLevel[]; asks: RestLevel[] } {
    const sorted = (levels: Map<string, string>, descending: boolean) => [...levels]
      .sort(([a], [b]) => (Number(a) - Number(b)) * (descending ? -1 : 1))
      .map(([price, size]) => ({ price, size }))
    return { bids: sorted(this.bids, false), asks: sorted(this.asks, true) }
  }
}

/** Places a GTC limit order over REST; returns its id (the test fails on a refusal). */
export async function place(server: TestServer, trader: Trader, market: MarketRecord,
  order: { outcome?: 'Yes' | 'No'; side: 'BUY' | 'SELL'; price: string; size: string }): Promise<string> {
  const reply = await placeLimit(server, trader, market, order)
  if (reply.status !== 200 || reply.body.success !== true) {
    throw new Error(`order refused: ${reply.status} ${JSON.stringify(reply.body)}`)
  }
  return reply.body.orderID as string
}

export async function cancel(server: TestServer, trader: Trader, orderId: string): Promise<void> {
  const reply = await l2(server, trader, 'DELETE', '/order', { orderID: orderId })
  if (reply.status !== 200 || !reply.body.canceled.includes(orderId)) {
    throw new Error(`cancel refused: ${reply.status} ${JSON.stringify(reply.body)}`)
  }
}

/** Gives `trader` `shares` of both tokens of `market` (a split of USDC it holds). */
export async function split(server: TestServer, trader: Trader, market: MarketRecord, shares: number): Promise<void> {
  await server.command({ kind: 'split', address: trader.address, marketId: market.marketId,
    amountMicros: shares * 1_000_000 })
}
