/**
 * The order intake: what a signed order goes through before it becomes an engine command, for
 * every face. Ownership (Polymarket's rules: the order's owner is the API key used, its signer the
 * key's address), its market, the signature type and the signature (on the verification pool),
 * then the engine's own placement rules (the rulebook), so that an order that can only be refused
 * costs no journaled command. The engine checks again and stays the authority.
 */
import type { OrderInput } from '../../engine/command.js'
import { PredexError } from '../../errors.js'
import { checkOrderRules, checkOwnership, orderInputOf, verifySignature, type SignedOrder } from './signed-order.js'
import type { ServiceContext } from '../context.js'
import { marketOfToken } from '../market-data/markets.js'
import type { Trader } from './trading.js'

export type { SignedOrder } from './signed-order.js'

/** The engine's input for a signed order that passed every intake check. */
export async function checkedOrder(context: ServiceContext, order: SignedOrder, trader: Trader): Promise<OrderInput> {
  checkOwnership(order, trader.apiKey, trader.address)
  const market = marketOfToken(context, order.struct.tokenId)
  const orderId = await verifySignature(order, market, context.pool, context.isLinked, trader.address)
  const input = orderInputOf(order, orderId, trader.apiKey)
  try {
    checkOrderRules(input, market, context.nowMs())
    context.settlement?.checkBacklog()
  } catch (error) {
    // An order the engine knows already is its to answer (INVALID_ORDER_DUPLICATED with the
    // order's status), whatever its market's rules are now; so is a client order id that names a
    // live order of this key (CLIENT_ORDER_ID_DUPLICATED with that order), so that a retry learns
    // which order it placed even once the market has stopped taking orders. Asked only of an
    // order the rules refuse: for a new order, the lookup is a read of the read store's disk.
    if (!isKnown(context, orderId, input)) throw error
  }
  // On a real chain its trades settle against what its maker signed: kept before the engine has it.
  await context.settlement?.keepOrder(orderId, order.struct, order.signature, market.negRisk)
  return input
}

function isKnown(context: ServiceContext, orderId: string, input: OrderInput): boolean {
  return context.read.order(orderId) !== undefined ||
    context.read.liveOrderOfClient(input.owner, input.clientOrderId) !== undefined
}

export interface IntakeStep {
  readonly check: 'shape' | 'ownership' | 'market' | 'signature' | 'rules'
  readonly ok: boolean
  readonly message: string
  readonly code?: string
}

/**
 * Every intake check of one order in turn, each with its verdict, for a dry run: a check that
 * cannot run (its input failed) is left out. `order` is the face's parse, or its parse error.
 */
export async function intakeSteps(context: ServiceContext, order: SignedOrder | PredexError,
  trader: Trader): Promise<{ checks: IntakeStep[]; orderId: string | null }> {
  const checks: IntakeStep[] = []
  const step = async <T>(check: IntakeStep['check'], run: () => Promise<T> | T): Promise<T | null> => {
    try {
      const value = await run()
      checks.push({ check, ok: true, message: 'ok' })
      return value
    } catch (error) {
      const code = (error as { code?: unknown }).code
      checks.push({ check, ok: false, message: (error as Error).message,
        ...(typeof code === 'string' ? { code } : {}) })
      return null
    }
  }
  const wire = await step('shape', () => {
    if (order instanceof PredexError) throw order
    return order
  })
  if (wire === null) return { checks, orderId: null }
  await step('ownership', () => checkOwnership(wire, trader.apiKey, trader.address))
  const market = await step('market', () => marketOfToken(context, wire.struct.tokenId))
  if (market === null) return { checks, orderId: null }
  const orderId = await step('signature', () => verifySignature(wire, market, context.pool, context.isLinked,
    trader.address))
  if (orderId !== null) {
    await step('rules', () => checkOrderRules(orderInputOf(wire, orderId, trader.apiKey), market, context.nowMs()))
  }
  return { checks, orderId }
}
