/**
 * The demo set: a few markets and a demo account whose signed orders rest on both outcomes, so a
 * new user sees a real book at once (operations.md). Everything goes through engine commands
 * (journaled like any other); the demo wallet's key lives in the data directory so the same
 * account is used on every start. Markets already present (by slug) are not created again. The
 * demo quoter (demo-quoter.ts) keeps these quotes on the book as users take them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { OrderInput, UnstampedCommand } from '../engine/command.js'
import type { MarketRecord } from '../engine/event.js'
import type { ServiceContext } from './context.js'
import { createMarket } from './admin.js'
import { signLimitOrder, type MarketTerms } from '../client/orders.js'
import { Wallet } from '../client/wallet.js'
import { toHex } from '../crypto/hex.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import type { Log } from '../log.js'

const MICROS_PER_USDC = 1_000_000
const DEMO_CREDIT_MICROS = 100_000 * MICROS_PER_USDC
/** Outcome-token pairs minted per market so the demo account can offer both outcomes. */
const DEMO_SPLIT_MICROS = 1_000 * MICROS_PER_USDC
const LEVEL_SIZE_SHARES = 100
const TICK_SIZE_MICROS = 10_000
const MIN_ORDER_SIZE_MICROS = 5 * MICROS_PER_USDC

interface DemoMarket {
  readonly slug: string
  readonly question: string
  readonly description: string
  /** Where the demo quotes are centred, in cents of the Yes price. */
  readonly midCents: number
}

export const DEMO_MARKETS: readonly DemoMarket[] = [
  { slug: 'demo-rain-in-lisbon-tomorrow', question: 'Will it rain in Lisbon tomorrow?', midCents: 35,
    description: 'Demo market. Resolves Yes if any rain is recorded. Created by Predex on first start.' },
  { slug: 'demo-coin-lands-heads', question: 'Will the next coin toss land heads?', midCents: 50,
    description: 'Demo market. Resolves by the admin. Created by Predex on first start.' },
  { slug: 'demo-launch-on-schedule', question: 'Will the launch happen on schedule?', midCents: 72,
    description: 'Demo market. Resolves by the admin. Created by Predex on first start.' },
]

/**
 * The demo quotes, in cents: Yes bids below the centre and asks above it, No bids and asks
 * around the complement, one cent wider so the account never crosses its own orders (mint:
 * Yes bid + No bid < 100; merge: Yes ask + No ask > 100).
 */
export interface Quote {
  readonly outcome: 'Yes' | 'No'
  readonly side: 'BUY' | 'SELL'
  readonly cents: number
}

export function quotes(midCents: number): Quote[] {
  const complement = 100 - midCents
  return [
    ...[5, 6, 7].map((d) => ({ outcome: 'Yes' as const, side: 'BUY' as const, cents: midCents - d })),
    ...[5, 6, 7].map((d) => ({ outcome: 'Yes' as const, side: 'SELL' as const, cents: midCents + d })),
    ...[6, 7].map((d) => ({ outcome: 'No' as const, side: 'BUY' as const, cents: complement - d })),
    ...[6, 7].map((d) => ({ outcome: 'No' as const, side: 'SELL' as const, cents: complement + d })),
  ]
}

/** The demo account as the quoter needs it: its key, its address and its API key (the orders' owner). */
export interface DemoAccount {
  readonly wallet: Wallet
  readonly address: string
  readonly apiKey: string
}

/**
 * Creates the demo markets that are missing (`create`), and answers the demo account when its key
 * is in the data directory (null otherwise: a data directory that never had the demo).
 */
export async function openDemo(context: ServiceContext, dataDir: string, create: boolean,
  log: Log): Promise<DemoAccount | null> {
  if (create) await createDemo(context, dataDir, log)
  if (!existsSync(demoKeyFile(dataDir))) return null
  const wallet = demoWallet(dataDir)
  const address = wallet.address.toLowerCase()
  return { wallet, address, apiKey: (await context.credentials.create(address, 0)).apiKey }
}

async function createDemo(context: ServiceContext, dataDir: string, log: Log): Promise<void> {
  const wallet = demoWallet(dataDir)
  const address = wallet.address.toLowerCase()
  const missing = DEMO_MARKETS.filter((demo) => !context.read.marketsBySlug.has(demo.slug))
  if (missing.length === 0) return
  const credential = await context.credentials.create(address, 0)
  await must(context, { kind: 'credit', address, usdcMicros: DEMO_CREDIT_MICROS, gasMicros: MICROS_PER_USDC })
  await must(context, { kind: 'approve', address, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER })
  const account: DemoAccount = { wallet, address, apiKey: credential.apiKey }
  for (const demo of missing) {
    const market = await createMarket(context, {
      question: demo.question, slug: demo.slug, description: demo.description, tickSizeMicros: TICK_SIZE_MICROS,
      minOrderSizeMicros: MIN_ORDER_SIZE_MICROS, feeRateBps: 0, negRisk: false, endDateMs: 0, status: 'Active',
    })
    await must(context, { kind: 'split', address, marketId: market.marketId, amountMicros: DEMO_SPLIT_MICROS })
    const orders = quotes(demo.midCents).map((quote) => demoOrder(context, account, market, quote))
    // Batches hold at most ten orders, each standing alone.
    for (let i = 0; i < orders.length; i += 10) {
      await must(context, { kind: 'placeOrders', orders: orders.slice(i, i + 10) })
    }
  }
  log.info('demo: markets created; the demo account quotes both outcomes of each',
    { markets: missing.length, address: wallet.address })
}

/** One demo quote as a signed, post-only GTC order of the demo account. */
export function demoOrder(context: ServiceContext, account: DemoAccount, market: MarketRecord,
  quote: Quote): OrderInput {
  const terms: MarketTerms = { tickSize: '0.01', negRisk: market.negRisk, feeRateBps: market.feeRateBps,
    chainId: context.chainId }
  const tokenId = quote.outcome === 'Yes' ? market.yesTokenId : market.noTokenId
  const price = (quote.cents / 100).toFixed(2)
  const signed = signLimitOrder(account.wallet, terms, { tokenId, side: quote.side, price, size: LEVEL_SIZE_SHARES })
  return {
    orderId: signed.orderId, owner: account.apiKey, maker: account.address, signer: account.address, tokenId,
    side: quote.side, makerAmountMicros: Number(signed.order.makerAmount),
    takerAmountMicros: Number(signed.order.takerAmount), expirationSec: 0, feeRateBps: market.feeRateBps,
    timeInForce: 'GTC', postOnly: true, clientOrderId: '',
  }
}

/** Submits a demo command; the demo set is all or nothing, so any refusal stops the start. */
async function must(context: ServiceContext, command: UnstampedCommand): Promise<void> {
  const { result } = await context.host.submit(command)
  if (!result.ok) throw new Error(`demo: the engine refused ${command.kind}: ${JSON.stringify(result)}`)
  if ('results' in result) {
    const refused = result.results.find((r) => !r.ok)
    if (refused !== undefined) throw new Error(`demo: the engine refused a demo order: ${JSON.stringify(refused)}`)
  }
}

/** The demo account's key, stored in the data directory (it is a test-network key, nothing more). */
function demoWallet(dataDir: string): Wallet {
  const file = demoKeyFile(dataDir)
  if (existsSync(file)) return new Wallet(readFileSync(file, 'utf8').trim())
  const key = toHex(secp256k1.utils.randomSecretKey())
  writeFileSync(file, key + '\n', { mode: 0o600 })
  return new Wallet(key)
}

function demoKeyFile(dataDir: string): string {
  return join(dataDir, 'demo-wallet.key')
}
