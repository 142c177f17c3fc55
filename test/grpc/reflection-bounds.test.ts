/**
 * Server reflection is bounded like every other stream (issue 27, finding 4, and finding 10's
 * malformed request): a client that asks and never reads is ended with SLOW_CONSUMER
 * (RESOURCE_EXHAUSTED) instead of growing the server's memory; a request past
 * GRPC_REFLECTION_REQUEST_BYTES_MAX (a 200 KB `host`) ends the stream with BODY_TOO_LARGE; an
 * address past GRPC_REFLECTION_RULE with RATE_LIMITED; bytes that are not a request with
 * INVALID_ARGUMENT (it was INTERNAL); more than GRPC_REFLECTION_STREAMS_PER_ADDRESS_MAX streams at
 * once with TOO_MANY_STREAMS. And reflection still answers as before, on v1 and v1alpha.
 *
 * The requests are written as protobuf bytes by hand (ServerReflectionRequest: host = 1,
 * file_containing_symbol = 4, list_services = 7), so malformed ones can be sent too. Every test
 * here draws on 127.0.0.1's one request budget: they are ordered so that only the last exhausts it.
 */
import t from 'tap'
import { connect as connectHttp2, type IncomingHttpHeaders } from 'node:http2'
import { Client, credentials, status, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js'
import { callErrorOf, type GrpcCallError } from '../../src/client/grpc/transport.js'
import {
  GRPC_REFLECTION_BACKLOG_ANSWERS_MAX, GRPC_REFLECTION_REQUEST_BYTES_MAX, GRPC_REFLECTION_RULE,
  GRPC_REFLECTION_STREAMS_PER_ADDRESS_MAX,
} from '../../src/limits.js'
import { startServer } from '../support/rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())
const target = `127.0.0.1:${server.predex.grpcPort}`
const V1 = '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo'
const V1ALPHA = '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo'
const WAIT_MS = 10_000

function varint(value: number): Buffer {
  const bytes: number[] = []
  while (value > 0x7f) {
    bytes.push((value & 0x7f) | 0x80)
    value >>>= 7
  }
  bytes.push(value)
  return Buffer.from(bytes)
}

/** A length-delimited field. */
function field(number: number, value: string): Buffer {
  const bytes = Buffer.from(value)
  return Buffer.concat([varint((number << 3) | 2), varint(bytes.length), bytes])
}

/** A gRPC message: uncompressed, its length, its bytes. */
function framed(message: Buffer): Buffer {
  const header = Buffer.alloc(5)
  header.writeUInt32BE(message.length, 1)
  return Buffer.concat([header, message])
}

const listServices = (host = ''): Buffer => Buffer.concat([field(1, host), field(7, '*')])
const fileContainingSymbol = (symbol: string): Buffer => field(4, symbol)

/** A reflection stream of raw bytes, on a connection of its own (HTTP/2 flow control is per connection too). */
class Reflector {
  readonly answers: Buffer[] = []
  error: GrpcCallError | null = null
  ended = false
  private readonly client: Client
  readonly stream: ClientDuplexStream<Buffer, Buffer>

  constructor(path = V1, reading = true) {
    this.client = new Client(target, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 })
    this.stream = this.client.makeBidiStreamRequest(path, (bytes: Buffer) => bytes, (bytes: Buffer) => bytes)
    this.stream.on('error', (error: ServiceError) => {
      this.error = callErrorOf(error)
      this.ended = true
    })
    this.stream.on('end', () => (this.ended = true))
    if (reading) this.read()
  }

  read(): void {
    this.stream.on('data', (answer: Buffer) => this.answers.push(answer))
  }

  /** Resolves once `check` holds, or fails after WAIT_MS. */
  async until(check: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + WAIT_MS
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  /** The error the stream ended with. */
  async failure(): Promise<GrpcCallError> {
    await this.until(() => this.ended, 'the stream did not end')
    if (this.error === null) throw new Error('the stream ended OK')
    return this.error
  }

  close(): void {
    this.stream.cancel()
    this.client.close()
  }
}

t.test('reflection answers as before, v1 and v1alpha, and ends OK on half-close', async (t) => {
  for (const path of [V1, V1ALPHA]) {
    const reflector = new Reflector(path)
    t.teardown(() => reflector.close())
    reflector.stream.write(listServices())
    reflector.stream.write(fileContainingSymbol('predex.v1.TradingService'))
    reflector.stream.end()
    await reflector.until(() => reflector.ended, 'the stream did not end')
    t.equal(reflector.error, null, `${path}: ended OK`)
    t.equal(reflector.answers.length, 2, 'two answers')
    t.ok(reflector.answers[0]!.includes('predex.v1.TradingService'), 'the list names the services')
    t.ok(reflector.answers[1]!.includes('trading.proto'), 'and the descriptor is served')
  }
})

t.test('a request that is not a ServerReflectionRequest is INVALID_ARGUMENT, not INTERNAL', async (t) => {
  const reflector = new Reflector()
  t.teardown(() => reflector.close())
  reflector.stream.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x0a]))
  const error = await reflector.failure()
  t.equal(error.grpcCode, status.INVALID_ARGUMENT)
  t.equal(error.code, 'BAD_REQUEST')
})

t.test('a 200 KB host ends the stream with BODY_TOO_LARGE; nothing echoes it', async (t) => {
  const reflector = new Reflector()
  t.teardown(() => reflector.close())
  reflector.stream.write(listServices('h'.repeat(200_000)))
  const error = await reflector.failure()
  t.equal(error.grpcCode, status.RESOURCE_EXHAUSTED)
  t.equal(error.code, 'BODY_TOO_LARGE')
  t.equal(reflector.answers.length, 0, 'no answer')
  t.ok(GRPC_REFLECTION_REQUEST_BYTES_MAX < 200_000)
})

t.test(`at most ${GRPC_REFLECTION_STREAMS_PER_ADDRESS_MAX} streams per address`, async (t) => {
  const open = Array.from({ length: GRPC_REFLECTION_STREAMS_PER_ADDRESS_MAX }, () => new Reflector())
  for (const reflector of open) {
    t.teardown(() => reflector.close())
    reflector.stream.write(listServices())
    await reflector.until(() => reflector.answers.length === 1, 'no answer')
  }
  const refused = new Reflector()
  t.teardown(() => refused.close())
  const error = await refused.failure()
  t.equal(error.grpcCode, status.RESOURCE_EXHAUSTED)
  t.equal(error.code, 'TOO_MANY_STREAMS')
  for (const reflector of open) reflector.close()
  // The slots come back once the calls are over.
  await new Promise((resolve) => setTimeout(resolve, 200))
  const again = new Reflector()
  t.teardown(() => again.close())
  again.stream.write(listServices())
  await again.until(() => again.answers.length === 1, 'a new stream is served again')
  t.pass('a new stream is served once the others ended')
})

t.test('a client that asks and never reads is ended with SLOW_CONSUMER', async (t) => {
  // Raw HTTP/2, as an attacker writes it: Node's client stream, never read, gives the server no
  // flow-control window back (grpc-js's client reads ahead into a queue of its own).
  const session = connectHttp2(`http://${target}`)
  session.on('error', () => undefined)
  t.teardown(() => session.destroy())
  const stream = session.request({ ':method': 'POST', ':path': V1, 'content-type': 'application/grpc', te: 'trailers' })
  stream.on('error', () => undefined)
  let trailers: IncomingHttpHeaders = {}
  stream.on('trailers', (headers) => (trailers = headers))
  stream.on('response', (headers) => (trailers = { ...trailers, ...headers }))
  const closed = new Promise<void>((resolve) => stream.on('close', resolve))
  // Descriptor answers of about 7 KB each: more than the backlog, grpc-js's buffer and the HTTP/2 window hold.
  const requests = GRPC_REFLECTION_BACKLOG_ANSWERS_MAX * 3
  for (let i = 0; i < requests; i++) stream.write(framed(fileContainingSymbol('predex.v1.TradingService')))
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  let answerBytes = 0
  stream.on('data', (chunk: Buffer) => (answerBytes += chunk.length)) // now read: what was sent, then the status
  const deadline = Date.now() + WAIT_MS
  while (trailers['grpc-status'] === undefined && Date.now() < deadline) {
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 10))])
  }
  t.equal(trailers['grpc-status'], String(status.RESOURCE_EXHAUSTED), 'RESOURCE_EXHAUSTED')
  t.equal(trailers['predex-code'], 'SLOW_CONSUMER')
  t.ok(answerBytes < requests * 7_000, `${answerBytes} bytes of answers were sent for ${requests} requests`)
})

t.test('an address past its request budget is RATE_LIMITED', async (t) => {
  const reflector = new Reflector()
  t.teardown(() => reflector.close())
  const requests = GRPC_REFLECTION_RULE.burst * 2
  for (let i = 0; i < requests; i++) reflector.stream.write(listServices())
  const error = await reflector.failure()
  t.equal(error.grpcCode, status.RESOURCE_EXHAUSTED)
  t.equal(error.code, 'RATE_LIMITED')
  t.ok(reflector.answers.length <= GRPC_REFLECTION_RULE.burst * 1.1, `${reflector.answers.length} answered of ${requests}`)
})
