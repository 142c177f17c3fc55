/**
 * A time-boxed live fuzz of the gRPC face (issue 14, "Fuzzing"): generated malformed and
 * adversarial calls to every method of every service in proto/predex/v1 (listed from the
 * generated descriptors the server registers, src/api/grpc/server.ts SERVICES) on one real
 * server, as test/fuzz/rest-live.test.ts does for REST:
 *
 * - unary calls whose bodies are random bytes, messages of the method's schema with fields of
 *   garbage (strings of anything, huge strings, ids of the wrong kind, extreme numbers, enum values
 *   the proto does not name, lists past every bound), valid messages with a few fields replaced
 *   so, and encodings damaged below the schema (proto-arbitrary.ts); with metadata that is absent,
 *   a valid L2 signature of a real (unfunded) key over the exact bytes (so the call reaches its
 *   handler), a real key's with one flaw (signature, timestamp, passphrase, address, body), or
 *   headers of garbage; deadlines already passed, of 0, or of a few milliseconds; cancels in flight;
 *   bursts of up to 100 calls at once; a few unknown methods;
 * - the book and user streams with the same bodies and metadata, cancelled at once or after their
 *   first message;
 * - the order-entry session: frames of garbage and of damaged requests of every action, pipelined,
 *   then a close, a half-close, a cancel once answered, a cancel mid-stream or a short deadline;
 * - raw HTTP/2 (node:http2): gRPC frames with wrong lengths, compressed flags and encodings,
 *   two messages or none, bad content types and timeouts, streams reset or connections destroyed
 *   in the middle of a frame.
 *
 * Asserted: every call ends within ANSWER_MS_MAX (no hang; a stream sends its first message or
 * ends; a session answers each frame it read, in order, echoing its request_id); a refusal's status
 * is its catalogue code's (src/errors.ts) with `predex-code` and a google.rpc.Status whose
 * ErrorInfo names the code (docs/grpc.md, "Errors"), never INTERNAL; statuses without a code only
 * where grpc-js itself answers (deadline, cancel, size limit, unknown method, broken framing in the
 * raw cases); answers decode as the method's output; nothing placed or cancelled; the server alive
 * after (GET /health, grpc.health.v1 SERVING, ListMarkets, a book stream's snapshot, a session's
 * pong); and the engine's state hash and seq unchanged.
 *
 * The cases are generated in grpc-fuzz-cases.ts over this server's ids; the answers' checks are in
 * grpc-fuzz-checks.ts; this file runs them.
 *
 * Seeded (printed): FUZZ_SEED replays the generated cases; FUZZ_SECONDS sets the time box (6 s).
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { connect as connectHttp2, constants as http2, type IncomingHttpHeaders } from 'node:http2'
import {
  Client, credentials as channelCredentials, loadPackageDefinition, Metadata, status as Status, type CallOptions,
  type ServiceError, type StatusObject,
} from '@grpc/grpc-js'
import { loadSync } from '@grpc/proto-loader'
import { protoPath as healthProtoPath } from 'grpc-health-check'
import { fromBinary, type DescMessage, type DescMethod } from '@bufbuild/protobuf'
import { ORDER_GROUPS_PER_KEY_MAX } from '../../src/engine/limits.js'
import { MarketDataService } from '../../src/gen/predex/v1/market_data_pb.js'
import { OrderEntryService, SessionRequestSchema, SessionResponseSchema }
  from '../../src/gen/predex/v1/order_entry_pb.js'
import { BookStreamResponseSchema, StreamService } from '../../src/gen/predex/v1/streams_pb.js'
import { l2Metadata, type GrpcSigner } from '../../src/client/grpc/transport.js'
import { USDC, l2, placeLimit, startServer } from '../support/rest-harness.js'
import { encode, type Pools } from './proto-arbitrary.js'
import { grpcFuzzCases, pathOf, type Auth, type Deadline, type FuzzCase, type UnaryCall } from './grpc-fuzz-cases.js'
import {
  answerProblem, describe, expectedAnswers, rawProblem, sessionAnswerProblem, statusProblem, streamMessageProblem,
  transportStatuses, type Tally,
} from './grpc-fuzz-checks.js'

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 6)
const ANSWER_MS_MAX = 5_000

const server = await startServer()
t.teardown(() => server.stop())
const target = `127.0.0.1:${server.predex.grpcPort}`
const markets = [await server.createMarket({ minOrderSizeMicros: 1 * USDC }), await server.createMarket()]
const maker = await server.trader(100 * USDC)
const makerOrders: string[] = []
const RESTING = [{ side: 'BUY', price: '0.40', size: '10' },
  { outcome: 'No', side: 'BUY', price: '0.50', size: '5' }] as const
for (const order of RESTING) {
  const placed = await placeLimit(server, maker, markets[0]!, order)
  if (placed.status !== 200) throw new Error('the book did not fill')
  makerOrders.push(placed.signed.orderId)
}
const TOKENS = markets.flatMap((m) => [m.yesTokenId, m.noTokenId])
/** The key whose calls are signed right (it has no funds, so nothing it sends can trade): never blocked. */
const fuzzer = await server.trader()
/** A key presented with flawed signatures, timestamps, passphrases. */
const victim = await server.trader()
const signerOf = (trader: typeof fuzzer): GrpcSigner => ({ credentials: trader.credentials, address: trader.address })
/**
 * The fuzzer's key holds as many order groups as a key may, under ids no generated string meets:
 * a create is refused (ORDER_GROUPS_FULL) and a change names no group of the key
 * (ORDER_GROUP_NOT_FOUND), so the order-group calls reach their handlers and change nothing.
 */
for (let i = 0; i < ORDER_GROUPS_PER_KEY_MAX; i++) {
  const held = await l2(server, fuzzer, 'POST', '/order-groups', { group_id: `held-${randomUUID()}`,
    contracts_limit: '5', window_ms: 15_000 })
  if (held.status !== 201) throw new Error(`the fuzzer's groups: ${held.status}`)
}

const pools: Pools = {
  strings: [...TOKENS, ...markets.flatMap((m) => [m.conditionId, m.marketId, m.slug]), ...makerOrders,
    maker.address, fuzzer.address, victim.address, victim.credentials.apiKey, '0.4', '10', 'LIVE', 'MATCHED', 'MA==',
    'LTE=', 'OTk5OTk5OTk5OQ==', TOKENS[0]!.toUpperCase(), ` ${TOKENS[0]}`],
}

function* prepend<T>(head: T, rest: Iterator<T>): Generator<T> {
  yield head
  for (let next = rest.next(); next.done !== true; next = rest.next()) yield next.value
}

// ---- running the cases -------------------------------------------------------------------------

/**
 * The fuzz's gRPC channel, replaced after CALLS_PER_CHANNEL calls: Node's HTTP/2 server (nghttp2's
 * defence against "rapid reset" and other glitches) closes a connection whose client resets about
 * 1 000 streams in a burst, with GOAWAY INTERNAL_ERROR, failing every call on it. A client that
 * cancels half its calls is the fuzz's own doing, not a fault of the server's (docs/operations.md,
 * "Fuzzing").
 */
const CALLS_PER_CHANNEL = 300
/** A channel of its own connection (grpc-js shares connections between channels to one target unless told not to). */
const newClient = (): Client =>
  new Client(target, channelCredentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 })
const clients = [newClient()]
t.teardown(() => clients.forEach((c) => c.close()))
let calls = 0
function clientFor(): Client {
  if (++calls >= CALLS_PER_CHANNEL) {
    calls = 0
    const old = clients.at(-1)!
    setTimeout(() => old.close(), 2 * ANSWER_MS_MAX).unref() // once its calls are over
    clients.push(newClient())
  }
  return clients.at(-1)!
}
const identity = (bytes: Uint8Array): Buffer => Buffer.from(bytes)

function metadataOf(given: Auth, method: DescMethod | null, bytes: Uint8Array): Metadata {
  if (given.kind === 'none' || method === null) return new Metadata()
  if (given.kind === 'signed') return l2Metadata(signerOf(fuzzer), method, bytes)
  if (given.kind === 'flawed') {
    const now = Math.floor(Date.now() / 1000)
    const signed = given.flaw === 'timestamp' ? l2Metadata(signerOf(victim), method, bytes, now - 86_400)
      : l2Metadata(signerOf(victim), method, given.flaw === 'body' ? Buffer.concat([bytes, Buffer.of(0)]) : bytes)
    if (given.flaw === 'signature') signed.set('exchange-signature', Buffer.alloc(32, 7).toString('base64url'))
    if (given.flaw === 'passphrase') signed.set('exchange-passphrase', 'f'.repeat(64))
    if (given.flaw === 'address') signed.set('exchange-address', fuzzer.address)
    return signed
  }
  const metadata = new Metadata()
  for (const [name, value] of given.headers) {
    if (name.endsWith('-bin')) metadata.add(name, Buffer.from(value))
    else metadata.add(name, value)
  }
  return metadata
}

function optionsOf(given: Deadline): CallOptions {
  return given.kind === 'none' ? {} : { deadline: Date.now() + given.ms }
}


async function runUnary(call: UnaryCall, tally: Tally): Promise<void> {
  tally.sent++
  const what = `${call.path} ${describe({ body: call.body, auth: call.auth, deadline: call.deadline,
    cancel: call.cancelAfterMs })}`
  let metadata: Metadata
  try {
    metadata = metadataOf(call.auth, call.method, call.body)
  } catch {
    return // grpc-js refused the header (a name or value it does not send): nothing went out
  }
  const outcome = await new Promise<{ error: ServiceError | null; answer: Buffer | null } | null>((resolve) => {
    const waitMs = ANSWER_MS_MAX + (call.deadline.kind === 'in' ? Math.max(call.deadline.ms, 0) : 0)
    const timer = setTimeout(() => resolve(null), waitMs)
    const options = optionsOf(call.deadline)
    const pending = clientFor().makeUnaryRequest(call.path, identity, identity, call.body, metadata, options,
      (error, answer) => {
        clearTimeout(timer)
        resolve({ error, answer: answer ?? null })
      })
    if (call.cancelAfterMs !== null) setTimeout(() => pending.cancel(), call.cancelAfterMs)
  })
  if (outcome === null) return void tally.problems.push(`no answer within ${ANSWER_MS_MAX} ms: ${what}`)
  const problem = outcome.error !== null
    ? statusProblem(outcome.error, transportStatuses(call, call.cancelAfterMs !== null), tally)
    : answerProblem(call.method, outcome.answer!, tally)
  if (problem !== null) tally.problems.push(`${problem}: ${what}`)
}

/** A book or user stream: its first message or its end in time, each message what the stream sends, then cancelled. */
async function runStream(c: Extract<FuzzCase, { kind: 'stream' }>, tally: Tally): Promise<void> {
  tally.sent++
  const what = `${pathOf(c.method)} ${describe({ body: c.body, auth: c.auth, deadline: c.deadline,
    cancelNow: c.cancelNow })}`
  const call = clientFor().makeServerStreamRequest(pathOf(c.method), identity, identity, c.body,
    metadataOf(c.auth, c.method, c.body), optionsOf(c.deadline))
  const messages: Buffer[] = []
  let end = null as StatusObject | null
  const ended = new Promise<void>((resolve) => call.on('status', (s: StatusObject) => {
    end = s
    resolve()
  }))
  call.on('data', (message: Buffer) => messages.push(message))
  call.on('error', () => undefined)
  if (c.cancelNow) call.cancel()
  const first = await within(Promise.race([ended, new Promise<void>((resolve) => call.once('data', () => resolve()))]))
  if (!first) tally.problems.push(`neither a message nor the end within ${ANSWER_MS_MAX} ms: ${what}`)
  call.cancel()
  if (!(await within(ended))) {
    tally.problems.push(`the stream did not end within ${ANSWER_MS_MAX} ms of its cancel: ${what}`)
  }
  for (const message of messages) {
    const problem = streamMessageProblem(c.method, message, TOKENS)
    if (problem !== null) tally.problems.push(`${problem}: ${what}`)
  }
  const problem = end === null ? null : statusProblem(end, transportStatuses({ ...c, method: c.method }, true), tally)
  if (problem !== null) tally.problems.push(`${problem}: ${what}`)
}

/** Resolves true when `promise` settles within ANSWER_MS_MAX, false otherwise. */
function within(promise: Promise<unknown>, ms = ANSWER_MS_MAX): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    void promise.then(() => {
      clearTimeout(timer)
      resolve(true)
    })
  })
}


async function runSession(c: Extract<FuzzCase, { kind: 'session' }>, tally: Tally): Promise<void> {
  const what = `session ${describe({ auth: c.auth, frames: c.frames, ending: c.ending })}`
  const method = OrderEntryService.method.session
  const call = clientFor().makeBidiStreamRequest(pathOf(method), identity, identity,
    metadataOf(c.auth, method, new Uint8Array(0)),
    c.ending.kind === 'deadline' ? { deadline: Date.now() + c.ending.ms } : {})
  const answers: Buffer[] = []
  let end = null as StatusObject | null
  const ended = new Promise<void>((resolve) => call.on('status', (s: StatusObject) => {
    end = s
    resolve()
  }))
  call.on('data', (answer: Buffer) => answers.push(answer))
  call.on('error', () => undefined)
  const close = encode(SessionRequestSchema, { requestId: 'fuzz-close', action: { case: 'close', value: {} } })
  const frames = c.ending.kind === 'close' ? [...c.frames, close] : c.frames
  for (const frame of frames) call.write(frame)
  tally.sent += frames.length + 1
  const expected = expectedAnswers(frames)
  if (c.ending.kind === 'halfClose') call.end()
  // Cancelled mid-stream, once the frames are handed to the transport: a grpc-js client call cancelled in the same
  // tick it was made may leave its HTTP/2 stream open (the server then sees a live, idle session holding a slot).
  if (c.ending.kind === 'cancelNow') setImmediate(() => call.cancel())
  if (c.ending.kind === 'cancel') {
    const answered = await within(Promise.race([ended, until(() => answers.length >= expected.ids.length)]))
    if (!answered) {
      tally.problems.push(`${answers.length} of ${expected.ids.length} frames answered in ${ANSWER_MS_MAX} ms: ${what}`)
    }
    call.cancel()
  }
  if (!(await within(ended))) {
    call.cancel()
    return void tally.problems.push(`the session did not end within ${ANSWER_MS_MAX} ms: ${what}`)
  }
  const cancelled = c.ending.kind === 'cancel' || c.ending.kind === 'cancelNow'
  const largest = frames.reduce((a, b) => (b.length > a.length ? b : a), new Uint8Array(0))
  const problem = statusProblem(end!, transportStatuses({ method, body: largest, auth: c.auth,
    deadline: c.ending.kind === 'deadline' ? { kind: 'in', ms: c.ending.ms } : { kind: 'none' } }, cancelled), tally)
  if (problem !== null) tally.problems.push(`${problem}: ${what}`)
  const finishedOk = end!.code === Status.OK &&
    (c.ending.kind === 'close' || c.ending.kind === 'halfClose' || expected.closed)
  if (finishedOk && answers.length !== expected.ids.length) {
    tally.problems.push(`ended OK with ${answers.length} answers to ${expected.ids.length} frames read: ${what}`)
  }
  answers.forEach((answer, i) => {
    const problem = sessionAnswerProblem(answer, expected.ids[i], tally)
    if (problem !== null) tally.problems.push(`answer ${i}: ${problem}: ${what}`)
  })
}


/** Resolves once `check` holds; stops looking after `ms` (and then never resolves). */
function until(check: () => boolean, ms = ANSWER_MS_MAX): Promise<void> {
  const deadline = performance.now() + ms
  return new Promise((resolve) => {
    const poll = (): void => {
      if (check()) resolve()
      else if (performance.now() < deadline) setTimeout(poll, 2)
    }
    poll()
  })
}

/** Raw HTTP/2: the server answers (headers, then data or the end) or resets, in time; statuses as for any call. */
async function runRaw(c: Extract<FuzzCase, { kind: 'raw' }>, tally: Tally): Promise<void> {
  tally.sent++
  const what = `raw ${c.path} ${describe({ headers: c.headers, chunks: c.chunks, end: c.end })}`
  const session = connectHttp2(`http://${target}`)
  session.on('error', () => undefined)
  try {
    const stream = session.request({ ':method': 'POST', ':path': c.path, ...c.headers })
    stream.on('error', () => undefined)
    let headers: IncomingHttpHeaders = {}
    let data = false
    stream.on('response', (h) => (headers = { ...headers, ...h }))
    stream.on('trailers', (h) => (headers = { ...headers, ...h }))
    stream.on('data', () => (data = true))
    const closed = new Promise<void>((resolve) => stream.on('close', resolve))
    for (const chunk of c.chunks) stream.write(chunk)
    if (c.end === 'reset') return void stream.close(http2.NGHTTP2_CANCEL)
    if (c.end === 'destroy') return void session.destroy()
    stream.end()
    if (!(await within(Promise.race([closed, until(() => data)])))) {
      return void tally.problems.push(`no answer within ${ANSWER_MS_MAX} ms: ${what}`)
    }
    const problem = rawProblem(c, headers, data, tally)
    if (problem !== null) tally.problems.push(`${problem}: ${what}`)
  } finally {
    session.destroy()
  }
}


// ---- the run -----------------------------------------------------------------------------------

async function runCase(c: FuzzCase, tally: Tally): Promise<void> {
  switch (c.kind) {
    case 'unary': return runUnary(c.call, tally)
    case 'burst': return void (await Promise.all(c.calls.map((call) => runUnary(call, tally))))
    case 'stream': return runStream(c, tally)
    case 'session': return runSession(c, tally)
    case 'raw': return runRaw(c, tally)
  }
}

function unary<O extends DescMessage>(method: DescMethod & { output: O }, init: Record<string, unknown>,
  signed: boolean): Promise<{ error: ServiceError | null; answer: Buffer | null }> {
  const body = encode(method.input, init)
  return new Promise((resolve) => clientFor().makeUnaryRequest(pathOf(method), identity, identity, body,
    signed ? l2Metadata(signerOf(fuzzer), method, body) : new Metadata(), {},
    (error, answer) => resolve({ error, answer: answer ?? null })))
}

/** The server answers after the fuzz: health, a public call (after any rate limit's wait), a stream, a session. */
async function alive(t: Test): Promise<void> {
  t.equal((await fetch(`${server.base}/health`)).status, 200, 'GET /health: 200')
  const Health = (loadPackageDefinition(loadSync(healthProtoPath, { enums: String })) as any).grpc.health.v1.Health
  const health = new Health(target, channelCredentials.createInsecure())
  const check = await new Promise<any>((resolve) =>
    health.Check({ service: '' }, (e: unknown, a: unknown) => resolve(e ?? a)))
  health.close()
  t.equal(check.status, 'SERVING', 'grpc.health.v1: SERVING')
  const listMarkets = MarketDataService.method.listMarkets
  let listed = await unary(listMarkets, { page: { limit: 1 } }, false)
  for (let i = 0; i < 3 && listed.error?.code === Status.RESOURCE_EXHAUSTED; i++) {
    await new Promise((resolve) => setTimeout(resolve, 2_000)) // the fuzz may have spent this address's budget
    listed = await unary(listMarkets, { page: { limit: 1 } }, false)
  }
  t.equal(listed.error, null, 'ListMarkets answered')
  const book = clientFor().makeServerStreamRequest(pathOf(StreamService.method.bookStream), identity, identity,
    encode(StreamService.method.bookStream.input, { tokenIds: [TOKENS[0]] }), new Metadata(), {})
  book.on('error', () => undefined)
  const snapshot = await new Promise<Buffer | null>((resolve) => {
    book.once('data', resolve)
    setTimeout(() => resolve(null), ANSWER_MS_MAX)
  })
  book.cancel()
  t.equal(snapshot === null ? null : fromBinary(BookStreamResponseSchema, snapshot).update.case, 'snapshot',
    'a book stream sends its snapshot')
  const session = clientFor().makeBidiStreamRequest(pathOf(OrderEntryService.method.session), identity, identity,
    l2Metadata(signerOf(fuzzer), OrderEntryService.method.session, new Uint8Array(0)), {})
  session.on('error', () => undefined)
  session.write(encode(SessionRequestSchema, { requestId: 'alive', action: { case: 'ping', value: {} } }))
  const pong = await new Promise<Buffer | null>((resolve) => {
    session.once('data', resolve)
    setTimeout(() => resolve(null), ANSWER_MS_MAX)
  })
  session.cancel()
  t.equal(pong === null ? null : fromBinary(SessionResponseSchema, pong).result.case, 'pong',
    'a session answers a ping')
}

t.test(`gRPC input: answered in time, catalogue statuses, nothing changed (seed ${SEED})`, async (t) => {
  t.comment(`replay: FUZZ_SEED=${SEED} npx tap test/fuzz/grpc-live.test.ts; FUZZ_SECONDS=${SECONDS}`)
  const stateHash = (): Promise<unknown> => server.predex.context.host.query({ kind: 'stateHash' })
  const before = await stateHash()
  const tally: Tally = { problems: [], sent: 0, codes: new Map(), transport: new Map(), accepted: [] }
  const generated = grpcFuzzCases({ markets, makerOrders, tokens: TOKENS, fuzzer, victim, pools })(SEED)
  // The first batch builds and warms the generators (seconds on a loaded machine): not part of the time box.
  const first = generated.next()
  const deadlineMs = performance.now() + SECONDS * 1000
  let cases = 0
  for (const c of prepend(first.value as FuzzCase, generated)) {
    if (performance.now() > deadlineMs || tally.problems.length > 5) break
    cases++
    try {
      await runCase(c, tally)
    } catch (error) {
      tally.problems.push(`${describe(c)}: ${(error as Error).stack ?? String(error)}`)
    }
  }
  t.same(tally.problems, [], `${cases} cases, ${tally.sent} calls, streams and frames: answered in time, ` +
    'each refusal with its catalogue status')
  t.comment(`refusals: ${[...tally.codes].map(([code, n]) => `${code} ${n}`).join(', ')}`)
  t.comment(`answered by grpc-js itself: ${[...tally.transport].map(([what, n]) => `${what} (${n})`).join('; ')}`)
  t.ok(cases >= 30, `enough cases in the time box (${cases})`)
  await alive(t)
  const accepted = tally.accepted.slice(0, 3).join('; ') || 'none'
  t.same(await stateHash(), before, `the state hash and seq are unchanged (writes accepted: ${accepted})`)
})
