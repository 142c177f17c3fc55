/**
 * What every gRPC call goes through before its use case: the general budget of the client
 * address, the request's decoding (a message that does not parse is INVALID_ARGUMENT, not
 * INTERNAL), the gate (the same L2 check as REST, over the full method name and the request
 * bytes, with the same budgets as the REST route of the same use case), and the catalogue's
 * status on failure. Handlers get the decoded request and the trader, and answer a message.
 */
import { type DescMessage, type DescMethod, type MessageInitShape, type MessageShape }
  from '@bufbuild/protobuf'
import { Metadata, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js'
import type { BudgetState } from '../../auth/rate-limit.js'
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2'
import type { Gate, Identity } from '../../auth/gate.js'
import { grpcL2Message } from '../../auth/l2.js'
import { ApiCode, PredexError } from '../../errors.js'
import type { RateClass } from '../../limits.js'
import type { ServiceContext } from '../../service/context.js'
import type { Trader } from '../../service/trading/trading.js'
import type { KeyRevocations } from '../../service/account/key-revocations.js'
import type { BookFeed } from '../../service/feeds/book-feed.js'
import type { UserFeed } from '../../service/feeds/user-feed.js'
import { pathOf } from './definition.js'
import type { StreamSlots } from './stream-slots.js'
import { messageDecoder } from './message-decoder.js'
import { asPredexError, setBudgetTrailers, statusOf } from './status.js'
import type { Log } from '../../log.js'
import type { LogBudget } from '../../log-budget.js'

/** What the gRPC handlers share: the services' context, the gate, the fan-out, the feeds (streams), the log. */
export interface GrpcFace {
  readonly context: ServiceContext
  readonly gate: Gate
  /** Order-entry sessions learn of their key's revocation here. */
  readonly revocations: KeyRevocations
  /** The feeds the streams render (made in app.ts, registered with the fan-out there). */
  readonly books: BookFeed
  readonly users: UserFeed
  readonly log: Log
  /** Refusal lines per second (src/log-budget.ts): a flood of refused calls is counted, not written. */
  readonly refusalLines: LogBudget
  /** Order-entry sessions and user streams per API key (GRPC_STREAMS_PER_KEY_MAX, both kinds together). */
  readonly keyStreams: StreamSlots
  /** Book streams per client address (GRPC_BOOK_STREAMS_PER_ADDRESS_MAX). */
  readonly addressStreams: StreamSlots
}

/** A use case's own budget: the REST route's bucket name, so both faces draw on one budget. */
export interface Rate {
  readonly bucket: string
  readonly rule: RateClass
}

export type Auth = 'none' | 'l2'

export interface UnaryHandler<I extends DescMessage, O extends DescMessage> {
  readonly auth: Auth
  readonly rate?: Rate
  /** `trader`: the L2 caller (null for auth 'none'). */
  handle(request: MessageShape<I>, trader: Trader | null): Promise<MessageInitShape<O>> | MessageInitShape<O>
}

/** The client's IP address from grpc-js's peer ("127.0.0.1:5000", "[::1]:5000", "ipv4:..."). */
export function remoteAddressOf(peer: string): string {
  const address = peer.replace(/^ipv[46]:/, '')
  const bracket = address.match(/^\[([^\]]+)\]/)
  if (bracket !== null) return bracket[1]!
  const colon = address.lastIndexOf(':')
  return colon > 0 && address.indexOf(':') === colon ? address.slice(0, colon) : address
}

/** The request's metadata as the gate's header getter (gRPC metadata keys are lower case). */
export function headerGetterOf(metadata: Metadata): (name: string) => string | undefined {
  return (name) => {
    const values = metadata.get(name)
    return values.length === 0 ? undefined : String(values[0])
  }
}

export interface Presented {
  readonly metadata: Metadata
  readonly peer: string
}

/** The gate's verdict on a call: its trader (null for auth 'none'), or a thrown catalogue error. */
export function admit(face: GrpcFace, call: Presented, method: DescMethod, requestBytes: Uint8Array, auth: Auth,
  rate: Rate | null): Trader | null {
  const remoteAddress = remoteAddressOf(call.peer)
  face.gate.admit(remoteAddress)
  const credentials = auth === 'none' ? { kind: 'none' as const }
    : { kind: 'l2' as const, headers: headerGetterOf(call.metadata),
      message: grpcL2Message(pathOf(method), requestBytes) }
  return traderOf(face.gate.pass({ credentials, remoteAddress, rate }))
}

function traderOf(identity: Identity | null): Trader | null {
  return identity === null || identity.apiKey === null ? null : { apiKey: identity.apiKey, address: identity.address }
}

/** Each request schema's compiled decoder (message-decoder.ts), made on its first request. */
const decoders = new Map<string, (bytes: Uint8Array) => unknown>()

/** Decodes a request; bytes that are not the message are the client's error. */
export function decode<I extends DescMessage>(schema: I, bytes: Uint8Array): MessageShape<I> {
  let decoder = decoders.get(schema.typeName)
  if (decoder === undefined) {
    decoder = messageDecoder(schema)
    decoders.set(schema.typeName, decoder)
  }
  try {
    return decoder(bytes) as MessageShape<I>
  } catch (error) {
    throw new PredexError(ApiCode.BAD_REQUEST, `the request is not a valid ${schema.typeName}: ` +
      (error instanceof Error ? error.message : String(error)))
  }
}

/** The grpc-js handler of a unary method. */
export function unaryCall<I extends DescMessage, O extends DescMessage>(face: GrpcFace, method: DescMethod,
  handler: UnaryHandler<I, O>) {
  return (call: ServerUnaryCall<Buffer, unknown>, callback: sendUnaryData<unknown>): void => {
    void (async () => {
      let budget: BudgetState | null = null
      try {
        const trader = admit(face, { metadata: call.metadata, peer: call.getPeer() }, method, call.request,
          handler.auth, handler.rate ?? null)
        if (handler.auth === 'l2' && trader === null) throw new PredexError(ApiCode.INTERNAL, 'no trader after L2')
        // The method's budget (its key's), else the client address's general one, which every call draws on.
        budget = handler.rate === undefined || trader === null
          ? face.gate.generalBudgetOf(remoteAddressOf(call.getPeer()))
          : face.gate.budgetOf(handler.rate, trader.apiKey)
        const request = decode(method.input as I, call.request)
        const answer = await handler.handle(request, trader)
        if (call.cancelled) return // the deadline passed or the client went away: nobody reads the answer
        // The init itself: the method's serializer writes it (definition.ts).
        callback(null, answer, budget === null ? undefined : budgetTrailers(budget))
        if (face.log.debugEnabled) face.log.debug('grpc call', { method: pathOf(method) })
      } catch (error) {
        const fields = { method: pathOf(method) }
        if (error instanceof PredexError) {
          if (face.refusalLines.take()) face.log.info('grpc call refused', { ...fields, code: error.code })
        } else face.log.error('grpc: internal error', { ...fields, err: error })
        const status = statusOf(asPredexError(error))
        // A refusal after the gate says where the budget stands too (a RATE_LIMITED one says it itself).
        if (budget !== null && status.metadata !== undefined) setBudgetTrailers(status.metadata, budget)
        callback(status)
      }
    })()
  }
}

function budgetTrailers(budget: BudgetState): Metadata {
  const trailers = new Metadata()
  setBudgetTrailers(trailers, budget)
  return trailers
}

/** A handler for every unary method of a service, by its local name (placeOrder, getBook...). */
export type UnaryHandlers<T extends GenServiceMethods> = {
  readonly [K in keyof T as T[K]['methodKind'] extends 'unary' ? K : never]: UnaryHandler<T[K]['input'], T[K]['output']>
}

/** The grpc-js implementation of `service`'s unary methods. */
export function unaryService<T extends GenServiceMethods>(face: GrpcFace, service: GenService<T>,
  handlers: UnaryHandlers<T>): UntypedServiceImplementation {
  const implementation: UntypedServiceImplementation = {}
  for (const method of service.methods) {
    const handler = (handlers as Record<string, UnaryHandler<DescMessage, DescMessage> | undefined>)[method.localName]
    if (handler !== undefined) implementation[method.localName] = unaryCall(face, method, handler)
  }
  return implementation
}
