/**
 * The SDK's public face, `@predex/client` once packed (scripts/pack-sdk.mjs): what another project
 * imports. The modules behind it stay as they are, so the repository's own tests and scripts keep
 * their deep imports; this list is the contract the package's `exports` promise. The gRPC client
 * is the separate entry `@predex/client/grpc` (grpc/index.ts), so a REST-only user never loads
 * grpc-js or the generated schemas.
 */
export * from './predex-client.js'
export { Wallet } from '../crypto/wallet.js'
export { PredexApiError, RestTransport, type Auth, type TransportOptions } from './rest-transport.js'
export { l1Headers, l2Headers, type HeaderFamily } from '../crypto/request-headers.js'
export {
  orderBody, orderBodyV2, signLimitOrder, signLimitOrderV2, signMarketOrder, signMarketOrderV2, type LimitOrder,
  type MarketOrder, type MarketTerms, type OrderOptions, type OrderOptionsV2, type OrderType, type SignedOrder,
  type SignedOrderV2,
} from './orders.js'
// The shapes already export a `TickSize` (the body of GET /tick-size); the tick itself gets its own name here.
export {
  limitOrderAmounts, marketOrderAmounts, ROUNDING, type Amounts, type Side, type TickSize as TickSizeValue,
} from './order-amounts.js'
