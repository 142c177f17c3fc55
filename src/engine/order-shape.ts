/**
 * Step 1 of placement: the order's fields have the right types and ranges. The faces validate
 * the wire format first; this is the engine's own guard, so that no command can put a value in
 * its state that it was not designed for. The predicates of the shape live here, and the
 * rulebook (rules.ts) builds on them: it imports this file, never the other way round.
 */
import { Code } from './codes.js'
import type { OrderInput, SelfTradePrevention, TimeInForce } from './command.js'
import { CLIENT_ORDER_ID_LENGTH_MAX, ID_LENGTH_MAX } from './limits.js'
import { rejection } from './rejection.js'
import type { Rejection } from './result.js'

export const TIME_IN_FORCE: readonly TimeInForce[] = ['GTC', 'GTD', 'FOK', 'FAK']

export function isTimeInForce(value: unknown): value is TimeInForce {
  return (TIME_IN_FORCE as readonly unknown[]).includes(value)
}

export const SELF_TRADE_PREVENTION: readonly SelfTradePrevention[] = ['cancel-maker', 'cancel-taker', 'cancel-both']

/** A self-trade prevention mode, or absent (the default, 'cancel-maker'). Part of the order's shape (step 1). */
export function isSelfTradePrevention(value: unknown): value is SelfTradePrevention | undefined {
  return value === undefined || (SELF_TRADE_PREVENTION as readonly unknown[]).includes(value)
}

const PRINTABLE_ASCII_FIRST = 0x20
const PRINTABLE_ASCII_LAST = 0x7e

/**
 * A client order id, the trader's own name for an order: '' (none), or up to
 * CLIENT_ORDER_ID_LENGTH_MAX printable ASCII characters (space to '~'), so that it can travel in
 * any header, log line or protobuf string unchanged. Part of the order's shape (step 1).
 */
export function isClientOrderId(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > CLIENT_ORDER_ID_LENGTH_MAX) return false
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (code < PRINTABLE_ASCII_FIRST || code > PRINTABLE_ASCII_LAST) return false
  }
  return true
}

export function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= ID_LENGTH_MAX
}

export function isSafeCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

export function isSafePositive(value: unknown): value is number {
  return isSafeCount(value) && value > 0
}

/** The first field (in the documented order) that is not acceptable, or null. */
export function checkOrderShape(input: OrderInput): Rejection | null {
  const field = firstBadField(input)
  return field === null ? null : rejection(Code.INVALID_ORDER_PAYLOAD, { field })
}

function firstBadField(input: OrderInput): string | null {
  if (!isId(input.orderId)) return 'orderId'
  if (!isId(input.owner)) return 'owner'
  if (!isId(input.maker)) return 'maker'
  if (!isId(input.signer)) return 'signer'
  if (!isId(input.tokenId)) return 'tokenId'
  if (input.side !== 'BUY' && input.side !== 'SELL') return 'side'
  if (!isTimeInForce(input.timeInForce)) return 'timeInForce'
  if (!isSafePositive(input.makerAmountMicros)) return 'makerAmountMicros'
  if (!isSafePositive(input.takerAmountMicros)) return 'takerAmountMicros'
  if (!isSafeCount(input.expirationSec)) return 'expirationSec'
  if (input.feeRateBps !== null && !isSafeCount(input.feeRateBps)) return 'feeRateBps'
  if (typeof input.postOnly !== 'boolean') return 'postOnly'
  if (!isClientOrderId(input.clientOrderId)) return 'clientOrderId'
  if (!isSelfTradePrevention(input.selfTradePrevention)) return 'selfTradePrevention'
  if (input.orderGroupId !== undefined && !isClientOrderId(input.orderGroupId)) return 'orderGroupId'
  return null
}
