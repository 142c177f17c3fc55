/**
 * The gRPC half of the SDK, `@predex/client/grpc` once packed (scripts/pack-sdk.mjs): the client,
 * its order-entry session and streams, and the errors they reject with. Kept apart from the REST
 * entry (../index.ts) because it loads @grpc/grpc-js and the generated protobuf schemas.
 */
export { PredexGrpcClient, type GrpcClientOptions, type RequestOf, type ResponseOf } from './predex-grpc-client.js'
export {
  OrderEntrySession, SessionRequestError, type AmendSize, type BatchOrder, type CancelOnDisconnectMode,
  type SessionOptions, type SessionReply,
} from './order-entry-session.js'
export { BookStream, type BookStreamOptions, type BookUpdate } from './book-stream.js'
export { UserStream, type UserCursor, type UserStreamOptions } from './user-stream.js'
export { LocalBook, type Level } from './local-book.js'
export { GrpcCallError, GrpcTransport, type GrpcSigner } from './transport.js'
export { orderRequestOf, type OrderRequestOptions, type QuoteOrder } from './order-request.js'
export type { BackoffOptions } from './backoff.js'
