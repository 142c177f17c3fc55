/**
 * What the live gRPC fuzz (grpc-live.test.ts) asserts of each answer: a refusal's status is its
 * catalogue code's with google.rpc.Status details naming it, never INTERNAL; statuses without a code
 * only where grpc-js itself answers; answers decode as the method's output; a session answers each
 * frame it read, in order; nothing is placed or cancelled. Each check returns what is wrong, or null.
 */
import type { IncomingHttpHeaders } from 'node:http2'
import { Metadata, status as Status, type StatusObject } from '@grpc/grpc-js'
import { fromBinary, type DescMethod } from '@bufbuild/protobuf'
import { anyUnpack } from '@bufbuild/protobuf/wkt'
import { CATALOGUE, type ErrorCode } from '../../src/errors.js'
import { GRPC_RECEIVE_MESSAGE_BYTES_MAX } from '../../src/limits.js'
import { ErrorInfoSchema } from '../../src/gen/google/rpc/error_details_pb.js'
import { StatusSchema } from '../../src/gen/google/rpc/status_pb.js'
import type { ErrorDetail } from '../../src/gen/predex/v1/common_pb.js'
import { SessionRequestSchema, SessionResponseSchema, type SessionResponse } from '../../src/gen/predex/v1/order_entry_pb.js'
import { BookStreamResponseSchema, StreamService, UserStreamResponseSchema } from '../../src/gen/predex/v1/streams_pb.js'
import type { QuoteLevel } from '../../src/gen/predex/v1/trading_pb.js'
import { pathOf, type Auth, type Deadline, type FuzzCase } from './grpc-fuzz-cases.js'

export interface Tally {
  readonly problems: string[]
  /** Calls, streams, session frames and raw streams sent. */
  sent: number
  readonly codes: Map<string, number>
  /** Statuses grpc-js answered itself (no catalogue code), by status and message. */
  readonly transport: Map<string, number>
  /** Writes the server accepted (each would explain a changed state hash). */
  readonly accepted: string[]
}

export const count = (map: Map<string, number>, key: string): void => void map.set(key, (map.get(key) ?? 0) + 1)
export const describe = (value: unknown): string => {
  const text = JSON.stringify(value, (_key, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex').slice(0, 80)
    : v?.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString('hex').slice(0, 80)
      : typeof v === 'bigint' ? String(v) : v?.kind === 'rpc' ? pathOf(v as DescMethod) : v))
  return text.length > 400 ? `${text.slice(0, 400)}...` : text
}

/**
 * What is wrong with a call's end, or null. A status with a catalogue code must be that code's
 * (and never INTERNAL) and carry google.rpc.Status details naming it; one without is allowed only
 * when `transport` says grpc-js may answer it itself.
 */
export function statusProblem(end: Pick<StatusObject, 'code' | 'details' | 'metadata'>, transport: ReadonlySet<number>,
  tally: Tally): string | null {
  if (end.code === Status.OK) return null
  const code = end.metadata?.get('predex-code')[0]
  if (code === undefined) {
    const what = end.details.replace(/ (after|method) .*$|[,(].*$/, '').replace(/\d+/g, '#').slice(0, 60)
    count(tally.transport, `${Status[end.code]} ${what}`)
    return transport.has(end.code) ? null : `${Status[end.code]} without a catalogue code: ${end.details}`
  }
  const entry = CATALOGUE[String(code) as ErrorCode]
  if (entry === undefined) return `${Status[end.code]} with an unknown code ${String(code)}`
  count(tally.codes, String(code))
  if (end.code === Status.INTERNAL) return `INTERNAL (${String(code)}): ${end.details}`
  if (entry.grpc !== end.code) {
    return `${Status[end.code]} for ${String(code)}, whose catalogue status is ${Status[entry.grpc]}`
  }
  const bin = end.metadata.get('grpc-status-details-bin')[0]
  if (!(bin instanceof Buffer)) return `${String(code)} without grpc-status-details-bin`
  let details
  try {
    details = fromBinary(StatusSchema, bin)
  } catch (error) {
    return `${String(code)}: grpc-status-details-bin does not decode: ${String(error)}`
  }
  const info = details.details.map((any) => anyUnpack(any, ErrorInfoSchema)).find((i) => i !== undefined)
  if (details.code !== end.code || info?.reason !== code || info.domain !== 'predex') {
    return `${String(code)}: details ${describe({ code: details.code, info })} do not match the status`
  }
  const badContext = Object.entries(info.metadata).find(([, v]) => {
    try {
      JSON.parse(v)
      return false
    } catch {
      return true
    }
  })
  return badContext === undefined ? null : `${String(code)}: context ${badContext[0]} is not JSON: ${badContext[1]}`
}

/** The refusal inside an answer (a session's error, an ack's, a batch item's): a catalogue code. */
export function detailProblem(detail: ErrorDetail | undefined, what: string, tally: Tally): string | null {
  if (detail === undefined) return `${what} without an error: something was done`
  count(tally.codes, detail.code)
  if (!(detail.code in CATALOGUE)) return `${what}: unknown code ${detail.code}`
  return detail.code === 'INTERNAL' ? `${what}: INTERNAL ${detail.message}` : null
}

const GROUP_WRITES = ['createOrderGroup', 'updateOrderGroup', 'triggerOrderGroup', 'resetOrderGroup',
  'deleteOrderGroup']
const WRITES = new Set(['placeOrder', 'placeOrders', 'cancelOrder', 'cancelOrders', 'cancelAll', 'cancelMarketOrders',
  'cancelByClientOrderIds', 'amendOrder', 'cancelReplace', 'massQuote', ...GROUP_WRITES])
/**
 * The writes whose every OK answer did something (an amend lowered an order, a cancel-replace
 * cancelled one, an order-group call changed a group).
 */
const ALWAYS_WRITES = new Set(['placeOrder', 'amendOrder', 'cancelReplace', ...GROUP_WRITES])

/** A successful answer must decode as the method's output; a write that did something is recorded. */
export function answerProblem(method: DescMethod | null, answer: Buffer, tally: Tally): string | null {
  if (method === null) return 'an unknown method answered OK'
  let decoded: any
  try {
    decoded = fromBinary(method.output, answer)
  } catch (error) {
    return `the answer does not decode as ${method.output.typeName}: ${String(error)}`
  }
  if (!WRITES.has(method.localName)) return null
  const did = decoded.placement !== undefined || (decoded.totalSuccessful ?? 0) > 0 ||
    (decoded.result?.canceled?.length ?? 0) > 0 || quoteDid(decoded)
  if (did || ALWAYS_WRITES.has(method.localName)) tally.accepted.push(`${method.localName}: ${describe(decoded)}`)
  return null
}

/** Whether a mass quote's answer says it did something: an order cancelled, or a level not refused. */
export function quoteDid(answer: { canceled?: unknown[]; levels?: QuoteLevel[] }): boolean {
  return (answer.canceled?.length ?? 0) > 0 ||
    (answer.levels ?? []).some((l) => l.outcome.case !== 'placement' || l.outcome.value.result.case !== 'refused')
}

/** The statuses grpc-js may answer itself for a call like this one. */
export function transportStatuses(call: { method: DescMethod | null; body: Uint8Array; deadline: Deadline; auth: Auth },
  cancelled: boolean): Set<number> {
  const allowed = new Set<number>()
  if (call.method === null) allowed.add(Status.UNIMPLEMENTED)
  if (call.deadline.kind !== 'none') allowed.add(Status.DEADLINE_EXCEEDED)
  if (cancelled) allowed.add(Status.CANCELLED)
  const headerBytes = call.auth.kind === 'garbage'
    ? call.auth.headers.reduce((n, [k, v]) => n + k.length + v.length, 0) : 0
  if (call.body.length > GRPC_RECEIVE_MESSAGE_BYTES_MAX - 1024 || headerBytes > 8_000) {
    allowed.add(Status.RESOURCE_EXHAUSTED)
  }
  return allowed
}


export function streamMessageProblem(method: DescMethod, message: Buffer, tokens: readonly string[]): string | null {
  try {
    if (method === StreamService.method.bookStream) {
      const update = fromBinary(BookStreamResponseSchema, message)
      // Nothing changes during the fuzz: a book stream only ever sends the snapshots of known tokens.
      const known = update.update.case === 'snapshot' && tokens.includes(update.tokenId)
      return known ? null : `book stream sent ${describe(update)}`
    }
    const update = fromBinary(UserStreamResponseSchema, message).update
    const empty = update.case === 'gap' || (update.case === 'snapshot' && update.value.orders.length === 0)
    return empty ? null : `user stream sent ${describe(update)}`
  } catch (error) {
    return `a stream message does not decode: ${String(error)}`
  }
}

/** The request ids the server must answer, in order: every frame it reads, up to and including a close. */
export function expectedAnswers(frames: readonly Uint8Array[]): { ids: string[]; closed: boolean } {
  const ids: string[] = []
  for (const frame of frames) {
    let request
    try {
      request = fromBinary(SessionRequestSchema, frame)
    } catch {
      ids.push('')
      continue
    }
    ids.push(request.requestId)
    if (request.action.case === 'close') return { ids, closed: true }
  }
  return { ids, closed: false }
}

export function sessionAnswerProblem(bytes: Buffer, requestId: string | undefined, tally: Tally): string | null {
  let answer: SessionResponse
  try {
    answer = fromBinary(SessionResponseSchema, bytes)
  } catch (error) {
    return `does not decode: ${String(error)}`
  }
  if (requestId === undefined) return `one answer too many: ${describe(answer)}`
  if (answer.requestId !== requestId) return `answers request "${answer.requestId}" where "${requestId}" was next`
  const result = answer.result
  switch (result.case) {
    case 'error': return detailProblem(result.value, 'a refusal', tally)
    case 'order': return detailProblem(result.value.error, 'an order ack', tally)
    case 'batch': {
      const problems = result.value.orders.map((ack) => detailProblem(ack.error, 'a batch ack', tally))
      return problems.find((p) => p !== null) ?? null
    }
    case 'canceled': return result.value.canceled.length === 0 ? null : `cancelled ${describe(result.value)}`
    case 'amended': return `amended ${describe(result.value)}`
    case 'replaced': return `replaced ${describe(result.value)}`
    case 'quoted': {
      if (quoteDid(result.value)) return `quoted ${describe(result.value)}`
      const problems = result.value.levels.map(({ outcome }) => detailProblem(outcome.case === 'placement' &&
        outcome.value.result.case === 'refused' ? outcome.value.result.value : undefined, 'a quote level', tally))
      return problems.find((p) => p !== null) ?? null
    }
    case 'opened': case 'pong': case 'closed': return null
    default: return `an answer without a result: ${describe(answer)}`
  }
}

export function rawProblem(c: Extract<FuzzCase, { kind: 'raw' }>, headers: IncomingHttpHeaders, data: boolean,
  tally: Tally): string | null {
  const httpStatus = Number(headers[':status'])
  if (httpStatus >= 500) return `HTTP ${httpStatus}`
  if (httpStatus !== 200) return c.headers['content-type']!.startsWith('application/grpc') ? `HTTP ${httpStatus}` : null
  const grpcStatus = headers['grpc-status']
  if (grpcStatus === undefined) return data ? null : 'HTTP 200 without a grpc-status or a message'
  const metadata = new Metadata()
  for (const name of ['predex-code', 'grpc-status-details-bin']) {
    const value = headers[name]
    if (typeof value === 'string') metadata.set(name, name.endsWith('-bin') ? Buffer.from(value, 'base64') : value)
  }
  // grpc-js answers broken framing itself: no message or two, a length past the limit, a payload it
  // cannot decompress, an encoding it does not know, a grpc-timeout it cannot read (INTERNAL, as gRPC
  // specifies for those two), an unknown method.
  const transport = new Set([Status.UNIMPLEMENTED, Status.RESOURCE_EXHAUSTED, Status.DEADLINE_EXCEEDED,
    ...(c.headers['grpc-encoding'] !== undefined || c.headers['grpc-timeout'] !== undefined ? [Status.INTERNAL] : [])])
  const details = decodeURIComponent(String(headers['grpc-message'] ?? ''))
  return statusProblem({ code: Number(grpcStatus), details, metadata }, transport, tally)
}
