/**
 * Step 1 of placement: the order's fields have the right types and ranges. The faces validate
 * the wire format first; this is the engine's own guard, so that no command can put a value in
 * its state that it was not designed for.
 */
import { Code } from './codes.js'
import type { OrderInput } from './command.js'
import { ID_LENGTH_MAX } from './limits.js'
import { rejection } from './rejection.js'
import { isClientOrderId, isSelfTradePrevention, isTimeInForce } from './rules.js'
import type { Rejection } from './result.js'

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
