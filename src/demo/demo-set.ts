/**
 * The demo set: a few markets and a demo account whose signed orders rest on both outcomes, so a
 * new user sees a real book at once (testnet.md, "The demo"), and a second demo account that
 * trades now and then (trader.ts), so prices, candles and the trades feed move. Everything
 * goes through engine commands (journaled like any other); the demo wallets' keys live in the
 * data directory so the same accounts are used on every start. Markets already present (by slug)
 * are not created again. The demo quoter (quoter.ts) keeps the quotes on the book, centred
 * on the last trade, as users and the demo trader take them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { OrderInput, UnstampedCommand } from '../engine/command.js'
import type { MarketRecord } from '../engine/event.js'
import type { ServiceContext } from '../service/context.js'
import { createMarket } from '../service/admin/admin.js'
import { signLimitOrder, type MarketTerms } from '../client/orders.js'
import { Wallet } from '../crypto/wallet.js'
import { toHex } from '../crypto/hex.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import type { Log } from '../log.js'
import { Code } from '../engine/codes.js'
import type { PlaceResult } from '../engine/result.js'
import { DEMO_TOP_UP_MICROS } from '../limits.js'
import { decimalOfMicros } from '../stdx/decimal.js'

const MICROS_PER_USDC = 1_000_000
const DEMO_CREDIT_MICROS = 100_000 * MICROS_PER_USDC
/** The demo trader's first credit: it buys as often as it sells, and a shortfall is topped up. */
const DEMO_TRADER_CREDIT_MICROS = 10_000 * MICROS_PER_USDC
/** Outcome-token pairs minted per market so the demo account can offer both outcomes. */
const DEMO_SPLIT_MICROS = 1_000 * MICROS_PER_USDC
const LEVEL_SIZE_SHARES = 100
const MICROS_PER_CENT = 10_000
const TICK_SIZE_MICROS = MICROS_PER_CENT
const MIN_ORDER_SIZE_MICROS = 5 * MICROS_PER_USDC

/** The demo account's key (the quotes), and the demo trader's, in the data directory. */
const MAKER_KEY_FILE = 'demo-wallet.key'
const TAKER_KEY_FILE = 'demo-trader-wallet.key'

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

/** A demo account as the quoter and the trader need it: its key, its address and its API key (the orders' owner). */
export interface DemoAccount {
  readonly wallet: Wallet
  readonly address: string
  readonly apiKey: string
}

/** The demo's two accounts: the one that quotes, and the one that trades against the quotes. */
export interface DemoAccounts {
  readonly maker: DemoAccount
  /** Another account, so that its orders meet the maker's (one account's own orders never trade). */
  readonly taker: DemoAccount
}

/**
 * Creates the demo markets that are missing (`create`), and answers the demo accounts when the
 * maker's key is in the data directory (null otherwise: a data directory that never had the
 * demo). The taker is made and funded on the first start that needs it, a data directory made
 * before it existed included.
 */
export async function openDemo(context: ServiceContext, dataDir: string, create: boolean,
  log: Log): Promise<DemoAccounts | null> {
  if (create) await createDemo(context, dataDir, log)
  if (!existsSync(join(dataDir, MAKER_KEY_FILE))) return null
  const maker = await accountOf(context, demoWallet(dataDir, MAKER_KEY_FILE))
  const takerKey = demoKey(dataDir, TAKER_KEY_FILE)
  const taker = await accountOf(context, takerKey.wallet)
  if (takerKey.isNew) {
    // Its key is kept once it is funded: a start that fails in between funds a new one next time.
    await fundTaker(context, taker, log)
    takerKey.save()
  }
  return { maker, taker }
}

async function accountOf(context: ServiceContext, wallet: Wallet): Promise<DemoAccount> {
  const address = wallet.address.toLowerCase()
  return { wallet, address, apiKey: (await context.credentials.create(address, 0)).apiKey }
}

/** The taker's USDC, and Yes and No shares of each demo market so it can sell from its first trade. */
async function fundTaker(context: ServiceContext, taker: DemoAccount, log: Log): Promise<void> {
  const { address } = taker
  await must(context, { kind: 'credit', address, usdcMicros: DEMO_TRADER_CREDIT_MICROS, gasMicros: MICROS_PER_USDC })
  await must(context, { kind: 'approve', address, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER })
  for (const demo of DEMO_MARKETS) {
    const market = context.read.marketsBySlug.get(demo.slug)
    if (market === undefined || market.status !== 'Active') continue
    await must(context, { kind: 'split', address, marketId: market.marketId, amountMicros: DEMO_SPLIT_MICROS })
  }
  log.info('demo: the demo trader account is funded; it takes some liquidity now and then', { address })
}

async function createDemo(context: ServiceContext, dataDir: string, log: Log): Promise<void> {
  const wallet = demoWallet(dataDir, MAKER_KEY_FILE)
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
  return signedOrder(context, account, market, { outcome: quote.outcome, side: quote.side,
    priceMicros: quote.cents * MICROS_PER_CENT, shares: LEVEL_SIZE_SHARES, timeInForce: 'GTC', postOnly: true })
}

/** What a demo order is: the demo market's terms and the account fill in the rest. */
export interface DemoOrderTerms {
  readonly outcome: 'Yes' | 'No'
  readonly side: 'BUY' | 'SELL'
  /** On a 0.01 tick. */
  readonly priceMicros: number
  /** Whole shares. */
  readonly shares: number
  readonly timeInForce: 'GTC' | 'FAK'
  readonly postOnly: boolean
}

/** A demo order signed by `account`'s key, as the engine takes it (as a verified order would reach it). */
export function signedOrder(context: ServiceContext, account: DemoAccount, market: MarketRecord,
  order: DemoOrderTerms): OrderInput {
  const terms: MarketTerms = { tickSize: '0.01', negRisk: market.negRisk, feeRateBps: market.feeRateBps,
    chainId: context.chainId }
  const tokenId = order.outcome === 'Yes' ? market.yesTokenId : market.noTokenId
  const signed = signLimitOrder(account.wallet, terms,
    { tokenId, side: order.side, price: decimalOfMicros(order.priceMicros), size: order.shares })
  return {
    orderId: signed.orderId, owner: account.apiKey, maker: account.address, signer: account.address, tokenId,
    side: order.side, makerAmountMicros: Number(signed.order.makerAmount),
    takerAmountMicros: Number(signed.order.takerAmount), expirationSec: 0, feeRateBps: market.feeRateBps,
    timeInForce: order.timeInForce, postOnly: order.postOnly, clientOrderId: '',
  }
}

/**
 * Tops up what the refusals in `results` lacked, once each: a credit when USDC was short, a split
 * of `market` when shares were (DEMO_TOP_UP_MICROS each). The demo's orders then pass next time.
 */
export async function topUpShortfalls(context: ServiceContext, account: DemoAccount, market: MarketRecord,
  results: readonly PlaceResult[]): Promise<void> {
  const short = results.filter((r) => !r.ok && r.code === Code.INVALID_ORDER_NOT_ENOUGH_BALANCE)
  const asset = (r: PlaceResult): unknown => (r.ok ? undefined : r.context?.['asset'])
  if (short.some((r) => asset(r) === 'USDC')) {
    await context.host.submit({ kind: 'credit', address: account.address, usdcMicros: DEMO_TOP_UP_MICROS,
      gasMicros: 0 })
  }
  if (short.some((r) => asset(r) !== 'USDC')) {
    await context.host.submit({ kind: 'split', address: account.address, marketId: market.marketId,
      amountMicros: DEMO_TOP_UP_MICROS })
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

/** A demo account's key, stored in the data directory at once (it is a test-network key, nothing more). */
function demoWallet(dataDir: string, name: string): Wallet {
  const key = demoKey(dataDir, name)
  if (key.isNew) key.save()
  return key.wallet
}

/** A demo account's key from the data directory, or a new one that `save` writes there. */
function demoKey(dataDir: string, name: string): { wallet: Wallet; isNew: boolean; save: () => void } {
  const file = join(dataDir, name)
  if (existsSync(file)) return { wallet: new Wallet(readFileSync(file, 'utf8').trim()), isNew: false, save: () => {} }
  const key = toHex(secp256k1.utils.randomSecretKey())
  return { wallet: new Wallet(key), isNew: true, save: () => writeFileSync(file, key + '\n', { mode: 0o600 }) }
}
