/**
 * The test network's faucet: new test USDC for any address, and test gas the first time, with a
 * cooldown per address (429 FAUCET_COOLDOWN with Retry-After inside it) and a cap per request.
 * A credit is a journaled engine command like any other; its answer carries the transaction.
 */
import { transactionOf } from '../../../chain/transaction.js'
import { FAUCET_GAS_MICROS, REST_SMALL_BODY_BYTES_MAX } from '../../../limits.js'
import type { ServiceContext } from '../../../service/context.js'
import { ApiCode, PredexError } from '../../../errors.js'
import { addressOf, decimalOfMicros, microsOfDecimal, parseJsonBody, requireObject } from '../../wire.js'
import type { Route } from '../route.js'
import { accountOf, rejectionError, submitCommand } from './common.js'

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

/** Milliseconds until `address` may use the faucet again (0: now), from its last credit in the ledger. */
function cooldownLeftMs(context: ServiceContext, address: string): number {
  const ledger = context.read.ledgerByAddress.get(address) ?? []
  for (let i = ledger.length - 1; i >= 0; i--) {
    const record = ledger[i]!
    if (record.action === 'credit') return Math.max(0, record.timeMs + context.faucet.cooldownMs - context.nowMs())
  }
  return 0
}

function amountOf(value: unknown, context: ServiceContext): number {
  const max = context.faucet.amountMicrosMax
  if (value === undefined || value === null) return max
  const micros = microsOfDecimal(value, 'amount')
  if (micros === 0 || micros > max) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `amount must be more than 0 and at most ${decimalOfMicros(max)} USDC`,
      { field: 'amount', max: decimalOfMicros(max) })
  }
  return micros
}

async function faucet(context: ServiceContext, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const address = addressOf(body.address, 'address')
  const usdcMicros = amountOf(body.amount, context)
  const inFlight = inFlightOf(context)
  const waitMs = inFlight.has(address) ? context.faucet.cooldownMs : cooldownLeftMs(context, address)
  if (waitMs > 0) {
    const retryAfterSeconds = Math.ceil(waitMs / 1000)
    throw new PredexError(ApiCode.FAUCET_COOLDOWN, `this address used the faucet recently: try again in ${retryAfterSeconds} s`,
      { address, retryAfterSeconds })
  }
  inFlight.add(address)
  try {
    const account = await accountOf(context, address)
    // Gas once, for an address that has none: enough for a new wallet, not a second source of it.
    const gasMicros = (account?.gasMicros ?? 0) === 0 ? FAUCET_GAS_MICROS : 0
    const { result, seq } = await submitCommand(context, { kind: 'credit', address, usdcMicros, gasMicros })
    if (!result.ok) throw rejectionError(result as never)
    const { transactionHash, blockNumber } = transactionOf(context.chainId, seq)
    return { address, usdc_credited: decimalOfMicros(usdcMicros), eth_credited: decimalOfMicros(gasMicros),
      transaction_hash: transactionHash, block_number: blockNumber }
  } finally {
    inFlight.delete(address)
  }
}

export const faucetRoutes: Route<ServiceContext>[] = [
  { method: 'POST', path: '/faucet', auth: 'none', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'testnet', surface: 'native',
    openapi: { tag: 'faucet', summary: 'Test USDC (and test gas for a new address); one request per address per cooldown',
      body: '{address, amount?: "1000" (USDC, at most the configured faucet amount)}',
      response: '{address, usdc_credited, eth_credited, transaction_hash, block_number}; 429 FAUCET_COOLDOWN with Retry-After' },
    handler: async (request, _identity, context) => ({ body: await faucet(context, requireObject(parseJsonBody(request.body), 'body')) }) },
]
