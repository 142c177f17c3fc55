/**
 * The soak's traders: market makers quoting both outcomes below the middle and cancelling their
 * oldest quotes, takers crossing them (mints and normal trades, FAK and GTC), a faucet client and a
 * reader, each a loop of real REST requests through the SDK. Every success is written down in the
 * ledger (the acknowledged orders and cancels the end of the run checks against a restarted
 * server); every refusal is counted by its catalogue code; requests that find the server down
 * (killed, restarting) are counted and retried later, never acknowledged.
 */
import { createHash } from 'node:crypto'
import { PredexClient } from '../../src/client/predex-client.js'
import { PredexApiError } from '../../src/client/rest-transport.js'
import { Wallet } from '../../src/crypto/wallet.js'

export type Rng = () => number

/** mulberry32: the soak's only source of variety, so a seed replays the same choices. */
export function rngOf(seed: number): Rng {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export interface Trader {
  readonly index: number
  readonly role: 'maker' | 'taker'
  readonly client: PredexClient
  readonly address: string
  readonly credentials: { apiKey: string; secret: string; passphrase: string }
  /** Its orders that may still rest, oldest first (the makers cancel from the front). */
  readonly resting: string[]
}

export interface AckedOrder {
  readonly trader: number
  readonly status: 'live' | 'matched' | 'unmatched'
}

export class Ledger {
  readonly orders = new Map<string, AckedOrder>()
  readonly canceled = new Set<string>()
  readonly refusals = new Map<string, number>()
  /** 5xx other than a 503 that sheds: each one a failure of the run. */
  readonly serverErrors: string[] = []
  faucetCredits = 0
  reads = 0
  /** Requests that found no server (killed or starting): never acknowledged, so never checked. */
  unreachable = 0
  /** 503 with Retry-After: shedding, allowed. */
  shed = 0

  refused(code: string): void {
    this.refusals.set(code, (this.refusals.get(code) ?? 0) + 1)
  }
}

/** A wallet whose key is derived from the seed: a seed gives the same traders. */
export function walletOf(seed: number, index: number): Wallet {
  return new Wallet(createHash('sha256').update(`predex-soak/${seed}/${index}`).digest('hex'))
}

/** A trader with USDC, the allowance and an API key, on `base`. */
export async function traderOf(base: string, seed: number, index: number, role: Trader['role']): Promise<Trader> {
  const wallet = walletOf(seed, index)
  const client = new PredexClient({ baseUrl: base, wallet })
  await client.faucet('1000000')
  await client.approve(Number.MAX_SAFE_INTEGER)
  const credentials = await client.createApiKey()
  return { index, role, client, address: wallet.address.toLowerCase(), credentials, resting: [] }
}

/**
 * Runs `step` and sorts what happened into the ledger: the server refused (4xx: counted by code),
 * shed (503), failed (other 5xx: recorded as a failure) or was not there (counted).
 */
export async function attempt(ledger: Ledger, step: () => Promise<void>): Promise<void> {
  try {
    await step()
  } catch (error) {
    if (error instanceof PredexApiError) {
      if (error.status === 503) ledger.shed += 1
      else if (error.status >= 500) ledger.serverErrors.push(`${error.status} ${error.code}: ${error.message}`)
      else ledger.refused(error.code)
      return
    }
    ledger.unreachable += 1
    await pause(100)
  }
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function priceText(cents: number): string {
  return (cents / 100).toFixed(2)
}

/** A maker's move: a new bid on either outcome (0.30-0.49) or, with a full book or by chance, a cancel. */
export async function makerStep(trader: Trader, tokens: readonly string[], rng: Rng, ledger: Ledger): Promise<void> {
  if (trader.resting.length >= 40 || (trader.resting.length > 0 && rng() < 0.35)) {
    const orderId = trader.resting.shift()!
    await attempt(ledger, async () => {
      const result = await trader.client.cancelOrder(orderId)
      for (const id of result.canceled) ledger.canceled.add(id)
    })
    return
  }
  const tokenId = tokens[Math.floor(rng() * tokens.length)]!
  const price = priceText(30 + Math.floor(rng() * 20))
  const size = 5 + Math.floor(rng() * 16)
  await attempt(ledger, async () => {
    const placed = await trader.client.placeLimitOrder({ tokenId, side: 'BUY', price, size })
    ledger.orders.set(placed.order_id, { trader: trader.index, status: placed.status })
    if (placed.status === 'live') trader.resting.push(placed.order_id)
  })
}

/**
 * A taker's move: a bid at 0.55-0.70 that crosses the makers' bids on the other outcome (a mint),
 * or a sale at 0.20 of shares it may hold (a normal trade, or a refusal when it holds none); FAK
 * mostly, GTC sometimes, and now and then a cancel of everything it has resting.
 */
export async function takerStep(trader: Trader, tokens: readonly string[], rng: Rng, ledger: Ledger): Promise<void> {
  const roll = rng()
  if (roll < 0.05) {
    await attempt(ledger, async () => {
      const result = await trader.client.cancelAll()
      for (const id of result.canceled) ledger.canceled.add(id)
      trader.resting.length = 0
    })
    return
  }
  const tokenId = tokens[Math.floor(rng() * tokens.length)]!
  const selling = roll < 0.35
  const price = selling ? '0.20' : priceText(55 + Math.floor(rng() * 16))
  const orderType = rng() < 0.8 ? 'FAK' : 'GTC'
  await attempt(ledger, async () => {
    const placed = await trader.client.placeLimitOrder({ tokenId, side: selling ? 'SELL' : 'BUY', price, size: 5,
      orderType })
    ledger.orders.set(placed.order_id, { trader: trader.index, status: placed.status })
  })
}

/** Test USDC for a trader now and then, as users of the test network ask for it. */
export async function faucetStep(traders: readonly Trader[], rng: Rng, ledger: Ledger): Promise<void> {
  const trader = traders[Math.floor(rng() * traders.length)]!
  await attempt(ledger, async () => {
    await trader.client.faucet('100')
    ledger.faucetCredits += 1
  })
}

/** Public and private reads: the book, the midpoint, the trader's trades and open orders. */
export async function readStep(traders: readonly Trader[], tokens: readonly string[], rng: Rng, ledger: Ledger):
  Promise<void> {
  const trader = traders[Math.floor(rng() * traders.length)]!
  const tokenId = tokens[Math.floor(rng() * tokens.length)]!
  await attempt(ledger, async () => {
    await trader.client.book(tokenId)
    await trader.client.midpoint(tokenId)
    await trader.client.trades({ limit: 20 })
    await trader.client.openOrders({ limit: 20 })
    ledger.reads += 4
  })
}
