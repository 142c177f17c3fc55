/**
 * A signed order of the SDK (orders.ts: signLimitOrder, signMarketOrder) as the gRPC API takes
 * it: the EIP-712 fields exactly as signed (uint256 as decimal strings, side 0 buy / 1 sell as in
 * the signature), plus what the REST body carries beside the order (owner, time in force,
 * post-only) and the optional client order id and order group. Nothing is recomputed: the server checks the
 * signature over these very values.
 */
import { create, type MessageInitShape } from '@bufbuild/protobuf'
import { SelfTradePrevention, SignedOrderSchema, TimeInForce, type SignedOrder as SignedOrderMessage }
  from '../../gen/predex/v1/common_pb.js'
import type { SelfTradePreventionText } from '../../api/shapes/vocabulary.js'
import { OrderRequestSchema, type MassQuoteRequestSchema, type OrderRequest } from '../../gen/predex/v1/trading_pb.js'
import type { OrderType, SignedOrder } from '../orders.js'

export interface OrderRequestOptions {
  /** GTC unless given (GTD for an order with an expiration is the caller's choice, as on REST). */
  readonly orderType?: OrderType
  readonly postOnly?: boolean
  /** Up to 64 printable ASCII characters, unique per API key among its live orders. */
  readonly clientOrderId?: string
  /** The API key the order claims; "" (the default): the caller's key. */
  readonly owner?: string
  /** On meeting a resting order of the same wallet: CANCEL_MAKER (the default), CANCEL_TAKER or CANCEL_BOTH. */
  readonly selfTradePrevention?: SelfTradePreventionText
  /** One of the key's order groups (createOrderGroup) the order joins; absent or "": none. */
  readonly orderGroupId?: string
}

const SELF_TRADE_PREVENTION: Readonly<Record<SelfTradePreventionText, SelfTradePrevention>> = {
  CANCEL_MAKER: SelfTradePrevention.CANCEL_MAKER,
  CANCEL_TAKER: SelfTradePrevention.CANCEL_TAKER,
  CANCEL_BOTH: SelfTradePrevention.CANCEL_BOTH,
}

const TIME_IN_FORCE: Readonly<Record<OrderType, TimeInForce>> = {
  GTC: TimeInForce.GTC,
  GTD: TimeInForce.GTD,
  FOK: TimeInForce.FOK,
  FAK: TimeInForce.FAK,
}

/** The proto SignedOrder of a signed order, field for field. */
export function signedOrderMessage(signed: SignedOrder): SignedOrderMessage {
  const o = signed.order
  return create(SignedOrderSchema, {
    salt: o.salt, maker: o.maker, signer: o.signer, taker: o.taker, tokenId: o.tokenId,
    makerAmount: o.makerAmount, takerAmount: o.takerAmount, expiration: o.expiration, nonce: o.nonce,
    feeRateBps: o.feeRateBps, side: o.side, signatureType: o.signatureType, signature: signed.signature,
  })
}

/** An OrderRequest (for PlaceOrder, PlaceOrders, VerifyOrder and a session's place). */
export function orderRequestOf(signed: SignedOrder, options: OrderRequestOptions = {}): OrderRequest {
  return create(OrderRequestSchema, orderRequestInit(signed, options))
}

/** The same as an init shape, for callers that build the enclosing request themselves. */
export function orderRequestInit(signed: SignedOrder, options: OrderRequestOptions = {}):
  MessageInitShape<typeof OrderRequestSchema> {
  return {
    order: signedOrderMessage(signed),
    owner: options.owner ?? '',
    orderType: TIME_IN_FORCE[options.orderType ?? 'GTC'],
    postOnly: options.postOnly ?? false,
    clientOrderId: options.clientOrderId ?? '',
    selfTradePrevention: options.selfTradePrevention === undefined ? SelfTradePrevention.UNSPECIFIED
      : SELF_TRADE_PREVENTION[options.selfTradePrevention],
    orderGroupId: options.orderGroupId ?? '',
  }
}

/** A level of a mass quote: a signed order, or one with what travels beside it (as a batch's order). */
export type QuoteOrder = SignedOrder | (OrderRequestOptions & { readonly signed: SignedOrder })

/** A mass quote's request (for MassQuote and a session's mass_quote): the market, each level in order. */
export function quoteRequestInit(market: string, orders: readonly QuoteOrder[]):
  MessageInitShape<typeof MassQuoteRequestSchema> {
  return { market, orders: orders.map((order) => ('signed' in order
    ? orderRequestInit(order.signed, order) : orderRequestInit(order))) }
}
