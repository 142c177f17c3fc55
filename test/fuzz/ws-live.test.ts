/**
 * A time-boxed live fuzz of the WebSocket face (issue 14, "Fuzzing"): generated malformed and
 * adversarial input to `/ws/market` and `/ws/user` of one real server, as test/fuzz/rest-live.test.ts
 * does for REST. With the `ws` client: text frames of garbage, invalid JSON, JSON of any type,
 * subscriptions with fields of the wrong type, unknown channels and operations, assets_ids and
 * markets of garbage or by the thousand, auth objects of garbage (and a real key's with a wrong
 * secret), JSON nested thousands deep, binary frames, text frames of invalid UTF-8, frames over
 * the size limit, floods of subscribes and of pings (text and control, within the limits), close
 * codes and reasons of every valid kind, abrupt disconnects. With a raw client (ws-raw.ts), what
 * `ws` will not send: reserved bits, unknown opcodes, unmasked and fragmented control frames,
 * oversized pings, orphan continuations, invalid close codes and reasons, lengths the payload never
 * reaches, fragmented messages, disconnects in the middle of a frame or of the handshake.
 *
 * Asserted: every message is answered (a PING sent after it gets its PONG) or the socket is
 * closed within ANSWER_MS_MAX (no hang); every frame the server sends is a PONG, a book snapshot
 * of a known asset or an error event with a catalogue code (src/errors.ts); a socket is closed
 * only where the protocol says so (a frame over the limit, invalid UTF-8 or a protocol error,
 * a user channel's failed authentication with 1008); a refused message changes nothing on its
 * socket (an empty unsubscribe and a PING after it get just the PONG); the server alive after (GET
 * /health 200, a market subscribe answered with its snapshot, a user channel authenticated); and
 * the engine's state hash and seq unchanged.
 *
 * Seeded (printed): FUZZ_SEED replays the generated cases; FUZZ_SECONDS sets the time box (6 s).
 */
import t, { type Test } from 'tap'
import fc from 'fast-check'
import WebSocket from 'ws'
import { CATALOGUE } from '../../src/errors.js'
import { WS_MESSAGE_BYTES_MAX } from '../../src/limits.js'
import { USDC, placeLimit, startServer, type TestServer } from '../support/rest-harness.js'
import { Opcode, RawWebSocket, closePayload, frameBytes, handshake } from './ws-raw.js'
import { Waker } from '../support/waker.js'

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 6)
const ANSWER_MS_MAX = 5_000

type Channel = 'market' | 'user'

const server = await startServer()
t.teardown(() => server.stop())
const port = server.predex.port
const urlOf = (channel: Channel): string => `ws://127.0.0.1:${port}/ws/${channel}`
const markets = [await server.createMarket({ minOrderSizeMicros: 1 * USDC }), await server.createMarket()]
const maker = await server.trader(100 * USDC)
const RESTING = [{ side: 'BUY', price: '0.40', size: '10' },
  { outcome: 'No', side: 'BUY', price: '0.50', size: '5' }] as const
for (const order of RESTING) {
  if ((await placeLimit(server, maker, markets[0]!, order)).status !== 200) throw new Error('the book did not fill')
}
const TOKENS = markets.flatMap((m) => [m.yesTokenId, m.noTokenId])
const CONDITIONS = markets.map((m) => m.conditionId)
/** The key the fuzz authenticates with, always with its own secret: never blocked, so the end can use it. */
const fuzzer = await server.trader()
/** A key the fuzz presents with wrong secrets and passphrases. */
const victim = await server.trader()

// ---- generated input ---------------------------------------------------------------------------

const junk = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 20 }),
  fc.stringMatching(/^0x[0-9a-f]{0,66}$/), fc.bigInt({ min: 0n, max: 2n ** 256n }).map(String),
  fc.constantFrom('', '0', '-1', '1e309', 'NaN', '__proto__', 'constructor', 'toString', '\u0000', '\ud800',
    'é'.repeat(50)))
const anyJson = fc.jsonValue({ maxDepth: 2 })
const tokenish = fc.oneof(fc.constantFrom(...TOKENS), fc.constantFrom(...TOKENS).map((id) => ` ${id}`), junk)
const assetsIds = fc.oneof(fc.array(tokenish, { maxLength: 6 }),
  fc.array(fc.constantFrom(...TOKENS), { minLength: 20, maxLength: 150 }), anyJson)
/** Many markets: short names by the thousand, a message up to the size limit. */
const manyMarkets = fc.integer({ min: 300, max: 2_600 }).map((n) => Array.from({ length: n }, (_, i) => i.toString(36)))
const marketsArb = fc.oneof(fc.array(fc.oneof(fc.constantFrom(...CONDITIONS), junk), { maxLength: 6 }), manyMarkets,
  anyJson)
const authArb = fc.oneof(
  fc.record({ apiKey: fc.constant(victim.credentials.apiKey), secret: fc.oneof(junk, anyJson),
    passphrase: fc.oneof(fc.constant(victim.credentials.passphrase), junk, anyJson) }, { requiredKeys: ['apiKey'] }),
  fc.record({ apiKey: fc.oneof(fc.uuid(), junk, anyJson), secret: fc.oneof(junk, anyJson),
    passphrase: fc.oneof(junk, anyJson) }, { requiredKeys: [] }),
  fc.record({ extra: anyJson }).map((extra) => ({ ...fuzzer.credentials, ...extra })),
  anyJson)
const operation = fc.oneof(fc.constantFrom('subscribe', 'unsubscribe', 'SUBSCRIBE', 'Unsubscribe', 'resubscribe'),
  anyJson)
const marketMessage = fc.record({
  type: fc.oneof(fc.constantFrom('market', 'MARKET', 'Market', 'user', ''), anyJson), operation, assets_ids: assetsIds,
  initial_dump: fc.oneof(fc.boolean(), anyJson),
  custom_feature_enabled: fc.oneof(fc.boolean(), fc.constant(null), anyJson),
  auth: authArb, markets: marketsArb,
}, { requiredKeys: [] })
const userMessage = fc.record({
  type: fc.oneof(fc.constantFrom('user', 'USER', 'market'), anyJson), operation, auth: authArb, markets: marketsArb,
  assets_ids: assetsIds,
}, { requiredKeys: [] })
const deep = fc.tuple(fc.integer({ min: 17, max: 3_000 }), fc.nat(2)).map(([n, shape]) =>
  [`${'['.repeat(n)}${']'.repeat(n)}`, `${'{"a":'.repeat(n)}0${'}'.repeat(n)}`, '['.repeat(n)][shape]!)
const oddText = fc.constantFrom('PING', 'ping', 'PONG', '', ' ', 'null', 'true', '1e309', '"market"', '[]', '{}',
  '{"__proto__": {"type": "market"}}', '{"constructor": {"prototype": {"x": 1}}}', '{"assets_ids": {"length": 1e9}}',
  '{"type": "market", "assets_ids": [], "assets_ids": 7}', '{"type": "user", "auth": {"apiKey": {"toString": 1}}}')

type Frame =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'binary'; readonly bytes: Uint8Array }
  /** A text frame whose bytes are not UTF-8: the server must close. */
  | { readonly kind: 'invalidUtf8'; readonly bytes: Uint8Array }
  /** A frame over WS_MESSAGE_BYTES_MAX: the server must close. */
  | { readonly kind: 'huge'; readonly size: number }

function frameArb(channel: Channel): fc.Arbitrary<Frame> {
  const message = channel === 'market' ? marketMessage : userMessage
  const text = fc.oneof({ weight: 6, arbitrary: message.map((m) => JSON.stringify(m)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 100 }) },
    { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: deep }, { weight: 1, arbitrary: oddText })
  return fc.oneof(
    { weight: 12, arbitrary: text.map((s) => ({ kind: 'text' as const, text: s })) },
    { weight: 2, arbitrary: fc.oneof(fc.uint8Array({ maxLength: 300 }), text.map((s) => Buffer.from(s)))
      .map((bytes) => ({ kind: 'binary' as const, bytes })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 60 })
      .map((bytes) => ({ kind: 'invalidUtf8' as const, bytes: Buffer.concat([bytes, Buffer.from([0xc3, 0x28])]) })) },
    { weight: 1, arbitrary: fc.integer({ min: WS_MESSAGE_BYTES_MAX + 1, max: 256 * 1024 })
      .map((size) => ({ kind: 'huge' as const, size })) })
}

type Step =
  | { readonly kind: 'frames'; readonly frames: readonly Frame[] }
  /** `control`: WebSocket ping frames (answered by pong frames); else text PINGs. */
  | { readonly kind: 'pings'; readonly count: number; readonly control: boolean }
  | { readonly kind: 'subscribes'; readonly count: number; readonly initialDump: boolean }

type Ending =
  | { readonly kind: 'close'; readonly code: number; readonly reason: string }
  /** The TCP connection destroyed at once, after a frame of `size` bytes (0: none) was handed to the socket. */
  | { readonly kind: 'terminate'; readonly size: number }

interface WsCase {
  readonly kind: 'ws'
  readonly channel: Channel
  /**
   * The user channel's first message: a valid authentication (the socket is then probed after each
   * step), one with generated credentials (answered with an error and a close, unless they are the
   * key's own), or none (the first step's first frame is the first message).
   */
  readonly opening: 'valid' | 'fuzzed' | 'none'
  readonly auth: unknown
  readonly steps: readonly Step[]
  readonly ending: Ending
}

const CLOSE_CODES = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 4000, 4999]
const ending: fc.Arbitrary<Ending> = fc.oneof(
  fc.record({ kind: fc.constant('close' as const),
    code: fc.oneof(fc.constantFrom(...CLOSE_CODES), fc.integer({ min: 3000, max: 4999 })),
    reason: fc.string({ maxLength: 30 }).filter((s) => Buffer.byteLength(s) <= 123) }),
  fc.record({ kind: fc.constant('terminate' as const), size: fc.constantFrom(0, 100, 15_000, 200_000) }))

function wsCaseArb(channel: Channel): fc.Arbitrary<WsCase> {
  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 8, arbitrary: fc.array(frameArb(channel), { minLength: 1, maxLength: 5 })
      .map((frames) => ({ kind: 'frames' as const, frames })) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('pings' as const), count: fc.integer({ min: 1, max: 300 }),
      control: fc.boolean() }) },
    { weight: channel === 'market' ? 1 : 0, arbitrary: fc.record({ kind: fc.constant('subscribes' as const),
      count: fc.integer({ min: 2, max: 300 }), initialDump: fc.boolean() }) })
  return fc.record({ kind: fc.constant('ws' as const), channel: fc.constant(channel),
    opening: channel === 'market' ? fc.constant('none' as const)
      : fc.constantFrom('valid' as const, 'fuzzed' as const, 'none' as const),
    auth: authArb,
    steps: fc.array(step, { minLength: 1, maxLength: 4 }), ending })
}

type RawAttack =
  | { readonly kind: 'close'; readonly payload: Uint8Array }
  | { readonly kind: 'rsv'; readonly rsv: number; readonly opcode: number }
  | { readonly kind: 'opcode'; readonly opcode: number }
  | { readonly kind: 'unmasked' }
  | { readonly kind: 'fragmentedControl'; readonly opcode: number }
  | { readonly kind: 'bigControl'; readonly opcode: number; readonly size: number }
  | { readonly kind: 'orphanContinuation' }
  | { readonly kind: 'dataInsideFragments' }
  | { readonly kind: 'declaredLength'; readonly length: number }
  /** A valid message cut in fragments, pings between them: answered like the whole. */
  | { readonly kind: 'fragmented'; readonly message: 'ping' | 'valid'; readonly parts: number; readonly pings: boolean }
  /** A prefix of a frame, then the connection destroyed. */
  | { readonly kind: 'midFrame'; readonly size: number; readonly cut: number }
  | { readonly kind: 'garbage'; readonly bytes: Uint8Array }
  | { readonly kind: 'handshake'; readonly request: string }

interface RawCase {
  readonly kind: 'raw'
  readonly channel: Channel
  readonly attack: RawAttack
}

const UPGRADE = 'Upgrade: websocket\r\nConnection: Upgrade\r\n'
const KEY = 'Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\n'
const badHandshakes = fc.constantFrom(
  `GET /ws/market HTTP/1.1\r\nHost: x\r\n${UPGRADE}`,
  `GET /ws/market HTTP/1.1\r\nHost: x\r\n${UPGRADE}Sec-WebSocket-Version: 13\r\n\r\n`,
  `GET /ws/user HTTP/1.1\r\n${UPGRADE}Sec-WebSocket-Key: !!\r\nSec-WebSocket-Version: 99\r\n\r\n`,
  `GET /ws/nowhere HTTP/1.1\r\n${UPGRADE}${KEY}\r\n`,
  `GET /ws/market?x=%00 HTTP/1.1\r\n${UPGRADE}Sec-WebSocket-Key: ${'A'.repeat(10_000)}\r\n` +
    'Sec-WebSocket-Version: 13\r\n\r\n',
  `GET /ws/market HTTP/1.1\r\n${UPGRADE}${KEY}Sec-WebSocket-Version: 13\r\n` +
    'Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n\u0081\u0084')
const controlOpcode = fc.constantFrom(Opcode.ping, Opcode.pong, Opcode.close)
const rawAttack: fc.Arbitrary<RawAttack> = fc.oneof(
  fc.oneof(fc.tuple(fc.integer({ min: 0, max: 65_535 }), fc.uint8Array({ maxLength: 40 }))
    .map(([code, reason]) => closePayload(code, reason)), fc.uint8Array({ maxLength: 1 }),
  fc.uint8Array({ minLength: 124, maxLength: 200 }),
  fc.constantFrom(0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000).map((code) => closePayload(code)))
    .map((payload) => ({ kind: 'close' as const, payload })),
  fc.record({ kind: fc.constant('rsv' as const), rsv: fc.integer({ min: 1, max: 7 }),
    opcode: fc.constantFrom(Opcode.text, Opcode.binary, Opcode.ping) }),
  fc.record({ kind: fc.constant('opcode' as const), opcode: fc.constantFrom(3, 4, 5, 6, 7, 0xb, 0xc, 0xd, 0xe, 0xf) }),
  fc.constant({ kind: 'unmasked' as const }),
  fc.record({ kind: fc.constant('fragmentedControl' as const), opcode: controlOpcode }),
  fc.record({ kind: fc.constant('bigControl' as const), opcode: controlOpcode,
    size: fc.integer({ min: 126, max: 2_000 }) }),
  fc.constant({ kind: 'orphanContinuation' as const }),
  fc.constant({ kind: 'dataInsideFragments' as const }),
  fc.record({ kind: fc.constant('declaredLength' as const),
    length: fc.integer({ min: WS_MESSAGE_BYTES_MAX + 1, max: 2 ** 53 - 1 }) }),
  fc.record({ kind: fc.constant('fragmented' as const),
    message: fc.constantFrom<'ping' | 'valid'>('ping', 'valid'),
    parts: fc.integer({ min: 2, max: 20 }), pings: fc.boolean() }),
  fc.record({ kind: fc.constant('midFrame' as const), size: fc.integer({ min: 10, max: WS_MESSAGE_BYTES_MAX }),
    cut: fc.nat() }),
  fc.record({ kind: fc.constant('garbage' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 200 }) }),
  fc.record({ kind: fc.constant('handshake' as const),
    request: fc.oneof(badHandshakes, fc.string({ maxLength: 200 })) }))

const fuzzCase: fc.Arbitrary<WsCase | RawCase> = fc.oneof(
  { weight: 5, arbitrary: wsCaseArb('market') },
  { weight: 4, arbitrary: wsCaseArb('user') },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('raw' as const),
    channel: fc.constantFrom<Channel>('market', 'user'), attack: rawAttack }) })

// ---- checking what the server sends ------------------------------------------------------------

/** What went wrong, and counts for the report. */
interface Tally {
  readonly problems: string[]
  /** Messages and frames sent. */
  sent: number
  readonly codes: Map<string, number>
}

const totalRefusals = (tally: Tally): number => [...tally.codes.values()].reduce((a, b) => a + b, 0)

/** null if `text` is a frame the server may send on `channel` (besides PONG), else what is wrong with it. */
function frameProblem(channel: Channel, text: string, tally: Tally): string | null {
  let value: any
  try {
    value = JSON.parse(text)
  } catch {
    return `not JSON: ${text.slice(0, 200)}`
  }
  if (channel === 'market' && Array.isArray(value)) {
    const bad = value.find((book) => book?.event_type !== 'book' || !TOKENS.includes(book.asset_id) ||
      typeof book.seq !== 'number')
    return bad === undefined && value.length > 0 ? null : `not a snapshot of known assets: ${text.slice(0, 200)}`
  }
  if (value?.event_type === 'error') {
    if (typeof value.error !== 'string' || !(value.code in CATALOGUE)) return `error without a catalogue code: ${text}`
    tally.codes.set(value.code, (tally.codes.get(value.code) ?? 0) + 1)
    return null
  }
  // An order or trade event, a price change: something changed, or the server sent what it should not.
  return `unexpected event: ${text.slice(0, 200)}`
}

/** A `ws` client that keeps what the server sends: text frames, pong frames, the close. */
class Client {
  readonly frames: string[] = []
  pongs = 0
  closeCode: number | null = null
  private readonly waker = new Waker()

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.poke(() => this.frames.push(String(data))))
    socket.on('pong', () => this.poke(() => this.pongs++))
    socket.on('close', (code) => this.poke(() => (this.closeCode = code)))
    socket.on('error', () => undefined)
  }

  static open(url: string): Promise<Client> {
    const socket = new WebSocket(url, { maxPayload: 8 * 1024 * 1024 })
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new Client(socket)))
      socket.once('error', reject)
    })
  }

  get closed(): boolean {
    return this.closeCode !== null
  }

  /** Waits until `check` holds; false if it does not within `timeoutMs`. */
  async until(check: () => boolean, timeoutMs = ANSWER_MS_MAX): Promise<boolean> {
    const deadline = performance.now() + timeoutMs
    while (!check()) {
      const left = deadline - performance.now()
      if (left <= 0) return false
      await this.waker.sleep(left)
    }
    return true
  }

  send(data: string | Uint8Array, binary = false): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(data, { binary })
  }

  private poke(record: () => void): void {
    record()
    this.waker.wake()
  }
}

/** How a step may end its socket. */
interface Expectation {
  /** The server must close (a frame over the limit, invalid UTF-8). */
  readonly mustClose: boolean
  /** The server may close with 1008 after an error event (the user channel, not authenticated). */
  readonly mayCloseAfterError: boolean
}

/**
 * Sends a PING after what was sent and reads until `pongs` PONGs have come (the server answers in
 * order, so everything before the last PONG answered what was sent) or the socket closed; checks
 * each frame on the way. Returns whether the socket is still open.
 */
async function settle(client: Client, channel: Channel, pongs: number, expect: Expectation, tally: Tally,
  what: () => string): Promise<boolean> {
  client.send('PING')
  tally.sent++
  let seen = 0
  let errors = 0
  const done = await client.until(() => {
    while (client.frames.length > 0 && seen < pongs) {
      const text = client.frames.shift()!
      if (text === 'PONG') seen++
      else {
        const problem = frameProblem(channel, text, tally)
        if (problem !== null) tally.problems.push(`${problem} (after ${what()})`)
        else if (text.includes('"event_type":"error"')) errors++
      }
    }
    return seen === pongs || client.closed
  })
  if (!done) tally.problems.push(`no answer and no close within ${ANSWER_MS_MAX} ms after ${what()}`)
  else if (client.closed) {
    const allowed = expect.mustClose || (expect.mayCloseAfterError && errors > 0 && client.closeCode === 1008)
    if (!allowed) tally.problems.push(`socket closed (${client.closeCode}) after ${what()}`)
  } else if (expect.mustClose) tally.problems.push(`socket left open after ${what()}`)
  return done && !client.closed
}

function sendFrame(client: Client, frame: Frame): void {
  switch (frame.kind) {
    case 'text': return client.send(frame.text)
    case 'binary': return client.send(frame.bytes, true)
    case 'invalidUtf8': return client.send(frame.bytes, false)
    case 'huge': return client.send('x'.repeat(frame.size))
  }
}

const isPing = (frame: Frame): boolean => (frame.kind === 'text' && frame.text === 'PING') ||
  (frame.kind === 'binary' && Buffer.from(frame.bytes).toString('utf8') === 'PING')
const describe = (value: unknown): string => {
  const text = JSON.stringify(value, (_key, v) => (v instanceof Uint8Array ? `<${v.length} bytes>` : v))
  return text.length > 300 ? `${text.slice(0, 300)}...` : text
}

/** One step on an open socket; returns whether the socket is still open. */
async function runStep(client: Client, c: WsCase, step: Step, authenticated: boolean, tally: Tally): Promise<boolean> {
  const expect = { mustClose: false, mayCloseAfterError: c.channel === 'user' && !authenticated }
  const what = (): string => `${c.channel}: ${describe(step)}`
  switch (step.kind) {
    case 'frames': {
      for (const frame of step.frames) sendFrame(client, frame)
      tally.sent += step.frames.length
      const mustClose = step.frames.some((frame) => frame.kind === 'huge' || frame.kind === 'invalidUtf8' ||
        (frame.kind === 'text' ? Buffer.byteLength(frame.text) : frame.bytes.length) > WS_MESSAGE_BYTES_MAX)
      return settle(client, c.channel, 1 + step.frames.filter(isPing).length, { ...expect, mustClose }, tally, what)
    }
    case 'pings': {
      const before = client.pongs
      for (let i = 0; i < step.count; i++) {
        if (step.control) client.socket.ping()
        else client.send('PING')
      }
      tally.sent += step.count
      if (step.control && !(await client.until(() => client.pongs - before === step.count || client.closed))) {
        tally.problems.push(`${step.count} pings: ${client.pongs - before} pongs within ${ANSWER_MS_MAX} ms`)
      }
      return settle(client, c.channel, 1 + (step.control ? 0 : step.count), expect, tally, what)
    }
    case 'subscribes': {
      for (let i = 0; i < step.count; i++) {
        client.send(JSON.stringify({ type: 'market', assets_ids: TOKENS, initial_dump: step.initialDump }))
      }
      tally.sent += step.count
      return settle(client, c.channel, 1, expect, tally, what)
    }
  }
}

/**
 * After a step on a socket that should be unchanged by refusals: an empty unsubscribe, which
 * changes nothing and is valid on an authenticated socket of either channel, must be answered by
 * nothing but the PONG after it.
 */
async function probe(client: Client, c: WsCase, step: Step, tally: Tally): Promise<boolean> {
  const field = c.channel === 'market' ? 'assets_ids' : 'markets'
  client.send(JSON.stringify({ operation: 'unsubscribe', [field]: [] }))
  tally.sent++
  const before = totalRefusals(tally)
  const what = (): string => `an empty unsubscribe after ${c.channel}: ${describe(step)}`
  const open = await settle(client, c.channel, 1, { mustClose: false, mayCloseAfterError: false }, tally, what)
  if (totalRefusals(tally) !== before) tally.problems.push(`${what()} was refused: the refused step changed the socket`)
  return open
}

/** The user channel's first message, if the case has one; returns whether the socket is open and authenticated. */
async function open(client: Client, c: WsCase, tally: Tally): Promise<boolean> {
  if (c.opening === 'none') return false
  const auth = c.opening === 'valid' ? fuzzer.credentials : c.auth
  client.send(JSON.stringify({ type: 'user', auth, markets: CONDITIONS.slice(0, 1) }))
  tally.sent++
  const refusals = totalRefusals(tally)
  const expect = { mustClose: false, mayCloseAfterError: c.opening === 'fuzzed' }
  const what = (): string => `the user channel's first message, auth ${describe(auth)}`
  const open = await settle(client, c.channel, 1, expect, tally, what)
  return open && totalRefusals(tally) === refusals
}

async function runWsCase(c: WsCase, tally: Tally): Promise<void> {
  const client = await Client.open(urlOf(c.channel))
  try {
    const authenticated = c.channel === 'user' && (await open(client, c, tally))
    if (client.closed) return
    for (const step of c.steps) {
      if (!(await runStep(client, c, step, authenticated, tally))) return
      if ((c.channel === 'market' || authenticated) && !(await probe(client, c, step, tally))) return
    }
    await end(client, c.ending, tally)
  } finally {
    client.socket.terminate()
  }
}

async function end(client: Client, ending: Ending, tally: Tally): Promise<void> {
  if (ending.kind === 'terminate') {
    if (ending.size > 0) client.send('x'.repeat(ending.size))
    client.socket.terminate()
    return
  }
  client.socket.close(ending.code, ending.reason)
  tally.sent++
  if (!(await client.until(() => client.closed))) {
    tally.problems.push(`close ${ending.code}: the server did not close within ${ANSWER_MS_MAX} ms`)
  }
}

// ---- raw attacks -------------------------------------------------------------------------------

/** Writes the attack; returns what must follow: an answer to a PING, the connection's end, or nothing to wait for. */
function writeAttack(ws: RawWebSocket, channel: Channel, attack: RawAttack): 'answer' | 'end' | 'none' {
  const ping = Buffer.from('PING')
  switch (attack.kind) {
    case 'close': ws.send(Opcode.close, attack.payload); return 'end'
    case 'rsv': ws.send(attack.opcode, ping, { rsv: attack.rsv }); return 'end'
    case 'opcode': ws.send(attack.opcode, ping); return 'end'
    case 'unmasked': ws.send(Opcode.text, ping, { mask: false }); return 'end'
    case 'fragmentedControl': ws.send(attack.opcode, ping, { fin: false }); return 'end'
    case 'bigControl': ws.send(attack.opcode, Buffer.alloc(attack.size, 0x61)); return 'end'
    case 'orphanContinuation': ws.send(Opcode.continuation, ping); return 'end'
    case 'dataInsideFragments':
      ws.send(Opcode.text, Buffer.from('PI'), { fin: false })
      ws.send(Opcode.text, Buffer.from('NG'))
      return 'end'
    case 'declaredLength': ws.send(Opcode.text, ping, { declaredLength: attack.length }); return 'end'
    case 'fragmented': {
      // A valid message: the market channel's subscribe (answered with snapshots), the user channel's authentication.
      const valid = channel === 'market' ? { type: 'market', assets_ids: TOKENS }
        : { type: 'user', auth: fuzzer.credentials }
      const bytes = Buffer.from(attack.message === 'ping' ? 'PING' : JSON.stringify(valid))
      const size = Math.ceil(bytes.length / attack.parts)
      for (let i = 0; i * size < bytes.length; i++) {
        const last = (i + 1) * size >= bytes.length
        ws.send(i === 0 ? Opcode.text : Opcode.continuation, bytes.subarray(i * size, (i + 1) * size), { fin: last })
        if (attack.pings && !last) ws.send(Opcode.ping, Buffer.from(String(i)))
      }
      return 'answer'
    }
    case 'midFrame': {
      const frame = frameBytes(Opcode.text, Buffer.alloc(attack.size, 0x61))
      ws.write(frame.subarray(0, 1 + (attack.cut % (frame.length - 1))))
      ws.destroy()
      return 'none'
    }
    case 'garbage': ws.write(attack.bytes); return 'none'
    case 'handshake': return 'none'
  }
}

async function runRawCase(c: RawCase, tally: Tally): Promise<void> {
  const what = `raw ${c.channel}: ${describe(c.attack)}`
  tally.sent++
  if (c.attack.kind === 'handshake') {
    // A whole request must be answered (or the connection closed); the server may wait for the rest of a partial one.
    const whole = c.attack.request.startsWith('GET ') && c.attack.request.endsWith('\r\n\r\n')
    const answer = await handshake(port, Buffer.from(c.attack.request), whole ? ANSWER_MS_MAX : 50).catch(() => null)
    if (whole && answer === null) tally.problems.push(`${what}: no answer within ${ANSWER_MS_MAX} ms`)
    answer?.socket.destroy()
    return
  }
  const ws = await RawWebSocket.open(port, `/ws/${c.channel}`, ANSWER_MS_MAX)
  try {
    const after = writeAttack(ws, c.channel, c.attack)
    if (after === 'none') return
    ws.send(Opcode.text, Buffer.from('PING'))
    const pong = (): boolean => ws.frames.some((f) => f.opcode === Opcode.text && f.payload.toString() === 'PONG')
    const answered = await ws.until(() => (after === 'answer' ? pong() : false), ANSWER_MS_MAX)
    if (!answered && !ws.isEnded) tally.problems.push(`${what}: neither answered nor closed within ${ANSWER_MS_MAX} ms`)
    else if (after === 'answer' && !pong()) tally.problems.push(`${what}: closed (${ws.closeCode}), not answered`)
    for (const frame of ws.frames) {
      if (frame.opcode !== Opcode.text || frame.payload.toString() === 'PONG') continue
      const problem = frameProblem(c.channel, frame.payload.toString(), tally)
      if (problem !== null) tally.problems.push(`${problem} (after ${what})`)
    }
  } finally {
    ws.destroy()
  }
}

// ---- the run -----------------------------------------------------------------------------------

/** The cases of `seed`, generated a batch at a time (generating them all first would eat the time box). */
function* casesOf(seed: number): Generator<WsCase | RawCase> {
  // Each batch its own seed, mixed so that the batches of two nearby seeds differ.
  const mixed = Math.imul(seed ^ 0x5bd1e995, 0x27d4eb2f)
  for (let batch = 0; ; batch++) yield* fc.sample(fuzzCase, { seed: mixed + batch, numRuns: 20 })
}

async function alive(t: Test, target: TestServer): Promise<void> {
  t.equal((await fetch(`${target.base}/health`)).status, 200, 'GET /health: 200')
  const market = await Client.open(urlOf('market'))
  market.send(JSON.stringify({ type: 'market', assets_ids: [TOKENS[0]] }))
  t.ok(await market.until(() => market.frames.length > 0), 'a market subscribe is answered')
  t.match(JSON.parse(market.frames[0] ?? 'null'), [{ event_type: 'book', asset_id: TOKENS[0] }], 'with its snapshot')
  market.socket.close()
  const user = await Client.open(urlOf('user'))
  user.send(JSON.stringify({ type: 'user', auth: fuzzer.credentials, markets: [] }))
  user.send('PING')
  t.ok(await user.until(() => user.frames.length > 0), 'a user channel authentication is answered')
  t.same(user.frames, ['PONG'], 'and accepted')
  user.socket.close()
}

t.test(`WebSocket input: answered or closed, catalogue codes, nothing changed (seed ${SEED})`, async (t) => {
  t.comment(`replay: FUZZ_SEED=${SEED} npx tap test/fuzz/ws-live.test.ts; FUZZ_SECONDS=${SECONDS}`)
  const stateHash = (): Promise<unknown> => server.predex.context.host.query({ kind: 'stateHash' })
  const before = await stateHash()
  const tally: Tally = { problems: [], sent: 0, codes: new Map() }
  const deadline = performance.now() + SECONDS * 1000
  let cases = 0
  for (const c of casesOf(SEED)) {
    if (performance.now() > deadline || tally.problems.length > 5) break
    cases++
    try {
      await (c.kind === 'ws' ? runWsCase(c, tally) : runRawCase(c, tally))
    } catch (error) {
      tally.problems.push(`${describe(c)}: ${String(error)}`)
    }
  }
  t.same(tally.problems, [], `${cases} cases, ${tally.sent} messages and frames: answered or closed as the protocol ` +
    'says, each refusal with a catalogue code')
  t.comment(`refusals: ${[...tally.codes].map(([code, n]) => `${code} ${n}`).join(', ')}`)
  t.ok(cases >= 30, `enough cases in the time box (${cases})`)
  await alive(t, server)
  t.same(await stateHash(), before, 'the state hash and seq are unchanged')
})
