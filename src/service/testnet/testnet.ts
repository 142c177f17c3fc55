/**
 * The built-in test network's use cases (docs/testnet.md), for every face: the faucet (new test
 * USDC, test gas the first time, a cooldown per address and a cap per request), a wallet's
 * balances, and the gasless relay of a wallet-signed approve, split, merge or redeem. Each change
 * is one journaled engine command, answered with its transaction (src/chain/transaction.ts).
 */
import { transactionOf, type Transaction } from '../../chain/transaction.js'
import { relayDigest, type RelayStruct } from '../../crypto/eip712.js'
import { parseSignature, recoverAddress } from '../../crypto/signature.js'
import { Code } from '../../engine/codes.js'
import type { RelayAction } from '../../engine/command.js'
import { availableUsdcMicros, checkRelayTiming } from '../../engine/rules.js'
import { decimalOfMicros } from '../../stdx/decimal.js'
import { ApiCode, PredexError } from '../../errors.js'
import { FAUCET_CREDITS_PER_HOUR_MAX, FAUCET_GAS_MICROS } from '../../limits.js'
import { RateLimiter } from '../../auth/rate-limit.js'
import { accountOf } from '../account/account.js'
import { accepted, submit } from '../commands.js'
import { faucetOnChain, gasOnChain } from './chain-faucet.js'
import { relayNonceOnChainOf, relayOnChain } from './chain-relay.js'
import type { ServiceContext } from '../context.js'

// ---- Faucet -----------------------------------------------------------------------------------------

export interface FaucetRequest {
  readonly address: string
  /** USDC asked for; null asks for the most one request may have. */
  readonly usdcMicros: number | null
}

export interface FaucetReceipt extends Transaction {
  readonly address: string
  readonly usdcMicros: number
  readonly gasMicros: number
}

/** Per server: addresses with a faucet request in flight (a second one waits out the cooldown like any other). */
const inFlightByServer = new WeakMap<ServiceContext, Set<string>>()

function inFlightOf(context: ServiceContext): Set<string> {
  let inFlight = inFlightByServer.get(context)
  if (inFlight === undefined) {
    inFlight = new Set()
    inFlightByServer.set(context, inFlight)
  }
  return inFlight
}

/** Ledger records read at a time, newest first, looking for the last credit. */
const LEDGER_CHUNK = 64

/** Milliseconds until `address` may use the faucet again (0: now), from its last credit in the ledger. */
function cooldownLeftMs(context: ServiceContext, address: string): number {
  // Newest first, a chunk at a time: the last credit is near the end of the list.
  for (let end = context.read.count('ledgerByAddress', address); end > 0; end -= LEDGER_CHUNK) {
    const chunk = context.read.range('ledgerByAddress', address, end - LEDGER_CHUNK, end)
    const record = [...chunk].reverse().find((r) => r.action === 'credit')
    if (record !== undefined) return Math.max(0, record.timeMs + context.faucet.cooldownMs - context.nowMs())
  }
  return 0
}

function faucetAmountOf(context: ServiceContext, usdcMicros: number | null): number {
  const max = context.faucet.amountMicrosMax
  if (usdcMicros === null) return max
  if (usdcMicros === 0 || usdcMicros > max) {
    const maxText = decimalOfMicros(max)
    throw new PredexError(ApiCode.INVALID_PARAMETER, `amount must be more than 0 and at most ${maxText} USDC`,
      { field: 'amount', max: maxText })
  }
  return usdcMicros
}

/** Per server: the faucet's credits per hour for every client together. */
const budgetByServer = new WeakMap<ServiceContext, RateLimiter>()

/** Takes one credit from the server-wide budget, or throws FAUCET_BUDGET with the wait. */
function takeFromBudget(context: ServiceContext): void {
  const perHour = context.faucet.creditsPerHourMax === undefined ? FAUCET_CREDITS_PER_HOUR_MAX
    : context.faucet.creditsPerHourMax
  if (perHour === null) return
  let budget = budgetByServer.get(context)
  if (budget === undefined) budgetByServer.set(context, budget = new RateLimiter(1))
  const rule = { burst: Math.max(1, Math.ceil(perHour / 60)), burstWindowMs: 60_000,
    sustained: perHour, sustainedWindowMs: 3_600_000 }
  const retryAfterSeconds = budget.take('faucet', rule, context.nowMs())
  if (retryAfterSeconds !== null) {
    throw new PredexError(ApiCode.FAUCET_BUDGET,
      `the faucet has given all it may for now (${perHour} credits an hour for everyone): try again in `
      + `${retryAfterSeconds} s`, { retryAfterSeconds, creditsPerHour: perHour })
  }
}

/**
 * Credits test USDC, and test gas to an address that has none; FAUCET_COOLDOWN inside the
 * address's cooldown, FAUCET_BUDGET past the credits of the hour for everyone (the route's rate
 * class bounds each client: src/limits.ts RATE_RULES.faucet).
 */
export async function faucet(context: ServiceContext, request: FaucetRequest): Promise<FaucetReceipt> {
  const address = request.address
  const usdcMicros = faucetAmountOf(context, request.usdcMicros)
  const inFlight = inFlightOf(context)
  const waitMs = inFlight.has(address) ? context.faucet.cooldownMs : cooldownLeftMs(context, address)
  if (waitMs > 0) {
    const retryAfterSeconds = Math.ceil(waitMs / 1000)
    throw new PredexError(ApiCode.FAUCET_COOLDOWN,
      `this address used the faucet recently: try again in ${retryAfterSeconds} s`,
      { address, retryAfterSeconds })
  }
  takeFromBudget(context)
  inFlight.add(address)
  try {
    if (context.chain.clients !== null) return await faucetOnChain(context, context.chain.clients, address, usdcMicros)
    const account = await accountOf(context, address)
    // Gas once, for an address that has none: enough for a new wallet, not a second source of it.
    const gasMicros = (account?.gasMicros ?? 0) === 0 ? FAUCET_GAS_MICROS : 0
    const { result, seq } = await submit(context, { kind: 'credit', address, usdcMicros, gasMicros })
    accepted(result)
    return { address, usdcMicros, gasMicros, ...transactionOf(context.chainId, seq) }
  } finally {
    inFlight.delete(address)
  }
}

// ---- Wallet -----------------------------------------------------------------------------------------

export interface WalletBalances {
  readonly address: string
  readonly gasMicros: number
  readonly usdcMicros: number
  /** USDC a new order may still hold (the engine's rule). */
  readonly availableUsdcMicros: number
  readonly usdcAllowanceMicros: number
  readonly sharesApproved: boolean
  readonly relayNonce: number
}

/** A wallet's balances, public as a block explorer shows them; an unknown address has all zeros. */
export async function walletBalances(context: ServiceContext, address: string): Promise<WalletBalances> {
  const account = await accountOf(context, address)
  return {
    address,
    // On a real chain gas is the wallet's ETH there (the ledger does not follow it).
    gasMicros: context.chain.clients === null ? account?.gasMicros ?? 0
      : await gasOnChain(context.chain.clients, address),
    usdcMicros: account?.usdcMicros ?? 0,
    availableUsdcMicros: availableUsdcMicros(account),
    usdcAllowanceMicros: account?.usdcAllowanceMicros ?? 0,
    sharesApproved: account?.sharesApproved ?? false,
    relayNonce: context.chain.clients === null ? account?.relayNonce ?? 0
      : await relayNonceOnChainOf(context.chain.clients, address),
  }
}

// ---- Relay ------------------------------------------------------------------------------------------

/** The next relay nonce of an address (0 for a new one): the engine's, or on a real chain the exchange's. */
export async function relayNonceOf(context: ServiceContext, address: string): Promise<number> {
  const clients = context.chain.clients
  if (clients !== null) return relayNonceOnChainOf(clients, address)
  return (await accountOf(context, address))?.relayNonce ?? 0
}

/** A relay message that ran: its transaction, and whether the ledger has followed it yet. */
export interface RelayOutcome extends Transaction {
  /** Always on the builtin network; on a real chain, once the ledger mirrored it (else MINED). */
  readonly confirmed: boolean
}

/** A relay message as the face parsed it: the signed struct, and its values as numbers. */
export interface RelayRequest {
  /** What the wallet signed (EIP-712 `Relay`, domain "Predex Relay"), owner lower-case. */
  readonly struct: RelayStruct
  readonly action: RelayAction['kind']
  readonly amount: bigint
  readonly nonce: number
  readonly deadlineSec: number
  readonly signature: string
}

/**
 * Runs a wallet-signed action for its owner. Checks, in order: the signature (INVALID_SIGNATURE
 * naming the check), the deadline and nonce (the engine's rule, so that a stale message costs no
 * journaled command), the market (MARKET_NOT_FOUND); then the engine checks deadline and nonce
 * again atomically with the action, so a message runs at most once. On a real chain the settling
 * exchange runs it instead, and checks them again (chain-relay.ts).
 */
export async function relay(context: ServiceContext, request: RelayRequest): Promise<RelayOutcome> {
  checkRelaySignature(request, context.chainId)
  const expected = await relayNonceOf(context, request.struct.owner)
  const timing = checkRelayTiming(request.nonce, request.deadlineSec, context.nowMs(), expected)
  if (timing !== null) throw new PredexError(timing.code, timing.message, timing.context)
  const action = relayActionOf(context, request)
  const clients = context.chain.clients
  if (clients !== null) return relayOnChain(context, clients, request, action)
  const { nonce, deadlineSec } = request
  const { result, seq } = await submit(context, { kind: 'relay', nonce, deadlineSec, action })
  accepted(result)
  return { ...transactionOf(context.chainId, seq), confirmed: true }
}

/** The signer must be `owner`; the error names the failed check and, for another signer, who signed. */
function checkRelaySignature(request: RelayRequest, chainId: number): void {
  const parsed = parseSignature(request.signature)
  if (typeof parsed === 'string') {
    throw new PredexError(ApiCode.INVALID_SIGNATURE, `invalid relay signature: ${parsed}`, { check: parsed })
  }
  const signer = recoverAddress(relayDigest(request.struct, chainId), parsed)
  if (signer !== request.struct.owner) {
    throw new PredexError(ApiCode.INVALID_SIGNATURE,
      'invalid relay signature: not signed by owner (other message, domain or chain, or another wallet)',
      { check: 'signature-signer', owner: request.struct.owner, signer })
  }
}

/** The engine's action; amounts must fit its safe integers (an approval above them means "unlimited"). */
function relayActionOf(context: ServiceContext, request: RelayRequest): RelayAction {
  const address = request.struct.owner
  const safeMax = BigInt(Number.MAX_SAFE_INTEGER)
  if (request.action === 'approve') {
    const usdcAllowanceMicros = request.amount > safeMax ? Number.MAX_SAFE_INTEGER : Number(request.amount)
    return { kind: 'approve', address, usdcAllowanceMicros }
  }
  const conditionId = request.struct.conditionId
  const market = context.read.marketsByConditionId.get(conditionId)
  if (market === undefined) {
    throw new PredexError(Code.MARKET_NOT_FOUND, 'no market has this condition id', { conditionId })
  }
  if (request.action === 'redeem') return { kind: 'redeem', address, marketId: market.marketId }
  if (request.amount > safeMax) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'amount is too large', { field: 'amount' })
  }
  return { kind: request.action, address, marketId: market.marketId, amountMicros: Number(request.amount) }
}
