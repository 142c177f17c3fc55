/**
 * The one error catalogue (src/errors.ts): every code of every source (the engine's
 * rejections, the service's conditions, authentication failures, the API's own input errors) is
 * in it exactly once, with an HTTP status api.md allows and a gRPC status that says the same
 * thing; an error's body is `{error, code, ...context}`; and the statuses api.md fixes hold.
 */
import t from 'tap'
import { ALL_CODES, ApiCode, PredexError, CATALOGUE, Grpc, engineError, type ErrorCode } from '../../../src/errors.js'
import { errorReply } from '../../../src/api/rest/server.js'
import { Code, CODE_MESSAGES } from '../../../src/engine/codes.js'
import { AuthCode, ServiceCode } from '../../../src/errors.js'
import { lineLog } from '../../../src/log.js'

const HTTP_ALLOWED = new Set([400, 401, 403, 404, 405, 409, 413, 414, 415, 429, 431, 500, 503])
const GRPC_STATUSES = new Set<number>(Object.values(Grpc))

/** Which gRPC statuses may stand for an HTTP status: the two faces must say the same thing. */
const GRPC_FOR_HTTP: Readonly<Record<number, readonly number[]>> = {
  400: [Grpc.INVALID_ARGUMENT, Grpc.FAILED_PRECONDITION, Grpc.ALREADY_EXISTS],
  401: [Grpc.UNAUTHENTICATED],
  403: [Grpc.PERMISSION_DENIED],
  404: [Grpc.NOT_FOUND],
  405: [Grpc.UNIMPLEMENTED],
  409: [Grpc.ALREADY_EXISTS],
  413: [Grpc.RESOURCE_EXHAUSTED],
  414: [Grpc.INVALID_ARGUMENT],
  415: [Grpc.INVALID_ARGUMENT],
  429: [Grpc.RESOURCE_EXHAUSTED],
  431: [Grpc.RESOURCE_EXHAUSTED],
  500: [Grpc.INTERNAL],
  503: [Grpc.UNAVAILABLE],
}

t.test('every code has an allowed HTTP status and a gRPC status that agrees with it', async (t) => {
  t.ok(ALL_CODES.length > 60, `${ALL_CODES.length} codes`)
  for (const code of ALL_CODES) {
    const entry = CATALOGUE[code]
    t.ok(entry !== undefined, `${code} is in the catalogue`)
    if (entry === undefined) continue
    t.ok(HTTP_ALLOWED.has(entry.http), `${code}: HTTP ${entry.http} is one api.md allows`)
    t.ok(GRPC_STATUSES.has(entry.grpc), `${code}: gRPC ${entry.grpc} is a known status`)
    t.ok(Number.isInteger(entry.grpc) && entry.grpc > 0 && entry.grpc <= 16, `${code}: gRPC ${entry.grpc} is not OK and in range`)
    t.ok((GRPC_FOR_HTTP[entry.http] ?? []).includes(entry.grpc), `${code}: gRPC ${entry.grpc} agrees with HTTP ${entry.http}`)
  }
})

t.test('only INTERNAL is a 500 (never a rejection); no code maps to gRPC UNKNOWN', async (t) => {
  const internal = ALL_CODES.filter((code) => CATALOGUE[code].http === 500 || CATALOGUE[code].grpc === Grpc.INTERNAL)
  t.same(internal, ['INTERNAL'])
  t.notOk(ALL_CODES.some((code) => CATALOGUE[code].grpc === 2), 'no gRPC UNKNOWN')
})

t.test('codes are unique, stable UPPER_SNAKE strings, and the catalogue holds exactly them', async (t) => {
  t.equal(new Set(ALL_CODES).size, ALL_CODES.length, 'no code appears twice across the sources')
  for (const code of ALL_CODES) t.match(code, /^[A-Z][A-Z0-9_]*$/, `${code} is UPPER_SNAKE`)
  t.same(Object.keys(CATALOGUE).sort(), [...ALL_CODES].sort(), 'no catalogue entry without a source, none missing')
  for (const source of [Code, ServiceCode, AuthCode, ApiCode]) {
    for (const [name, value] of Object.entries(source)) t.equal(value, name, `${name}: the value is the name`)
  }
})

t.test('the engine\'s codes, ServiceCode and AuthCode are all in the catalogue', async (t) => {
  const all = new Set<string>(ALL_CODES)
  for (const [source, codes] of [['engine', Code], ['service', ServiceCode], ['auth', AuthCode], ['api', ApiCode]] as const) {
    for (const code of Object.values(codes)) {
      t.ok(all.has(code), `${source} ${code} is in ALL_CODES`)
      t.ok(Object.hasOwn(CATALOGUE, code), `${source} ${code} is mapped`)
    }
  }
  for (const code of Object.values(Code)) t.type(CODE_MESSAGES[code], 'string', `${code} has a message`)
})

t.test('a catalogue error\'s body is {error, code, ...context} and its status is the catalogue\'s', async (t) => {
  const error = new PredexError(Code.INVALID_ORDER_NOT_ENOUGH_BALANCE, 'not enough balance / allowance',
    { asset: 'USDC', requiredMicros: 5, availableMicros: 1, heldMicros: 0 })
  t.equal(error.status, 400)
  t.same(error.body(), { error: 'not enough balance / allowance', code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', asset: 'USDC',
    requiredMicros: 5, availableMicros: 1, heldMicros: 0 })
  t.same(Object.keys(error.body()).slice(0, 2), ['error', 'code'], 'error and code come first')
  t.same(new PredexError(ApiCode.NOT_FOUND, 'no such endpoint').body(), { error: 'no such endpoint', code: 'NOT_FOUND' }, 'no context: two fields')
  const sneaky = new PredexError(ApiCode.BAD_REQUEST, 'the message', { code: 'OK', error: 'nothing', field: 'x' })
  t.same(sneaky.body(), { error: 'the message', code: 'BAD_REQUEST', field: 'x' }, 'a context cannot replace error or code')
  t.same(engineError(Code.TOKEN_NOT_FOUND).body(), { error: CODE_MESSAGES.TOKEN_NOT_FOUND, code: 'TOKEN_NOT_FOUND' },
    'engine errors default to the engine\'s message')
  t.equal(engineError(Code.TOKEN_NOT_FOUND).status, 404)
})

t.test('errorReply: catalogue errors as themselves, coded errors from other layers mapped, anything else a bare 500', async (t) => {
  const logged: string[] = []
  const log = lineLog((line) => logged.push(line))
  const apiReply = errorReply(new PredexError(ApiCode.RATE_LIMITED, 'slow down', { retryAfterSeconds: 7 }), log)
  t.equal(apiReply.status, 429)
  t.same(apiReply.body, { error: 'slow down', code: 'RATE_LIMITED', retryAfterSeconds: 7 })
  t.equal(apiReply.headers?.['retry-after'], '7', '429 carries Retry-After')

  const service = errorReply(new PredexError(ServiceCode.ENGINE_UNAVAILABLE, 'the engine is stopping'), log)
  t.equal(service.status, 503)
  t.same(service.body, { error: 'the engine is stopping', code: 'ENGINE_UNAVAILABLE' })
  const busy = errorReply(new PredexError(ServiceCode.SIGNATURE_POOL_BUSY, 'busy', { queued: 64 }), log)
  t.equal(busy.status, 503)
  t.same(busy.body, { error: 'busy', code: 'SIGNATURE_POOL_BUSY', queued: 64 })
  const shed = errorReply(new PredexError(ServiceCode.SIGNATURE_POOL_BUSY, 'busy', { retryAfterSeconds: 1 }), log)
  t.equal(shed.headers?.['retry-after'], '1', '503 carries Retry-After when the error says when to retry')
  t.same(logged, [], 'known errors are not logged as internal')

  const internal = errorReply(new TypeError('cannot read x of undefined at /work/main/src/secret.ts:12'), log)
  t.equal(internal.status, 500)
  t.same(internal.body, { error: 'internal error', code: 'INTERNAL' }, 'no internals leak into the body')
  t.equal(logged.length, 1, 'an internal error is logged')
  t.match(logged[0], /cannot read x of undefined/)
  const unknownCode = errorReply(Object.assign(new Error('odd'), { code: 'ENOENT' }), log)
  t.equal(unknownCode.status, 500, 'a code that is not in the catalogue is internal')
  t.same(unknownCode.body, { error: 'internal error', code: 'INTERNAL' })
})

t.test('statuses api.md fixes', async (t) => {
  const expect = (codes: readonly ErrorCode[], http: number, why: string): void => {
    for (const code of codes) t.equal(CATALOGUE[code].http, http, `${code}: ${http} (${why})`)
  }
  expect(Object.values(AuthCode), 401, 'authentication')
  expect([ApiCode.NOT_OWNER], 403, 'a valid key acting on what it does not own')
  expect([ApiCode.NOT_FOUND, ApiCode.ORDER_UNKNOWN, Code.TOKEN_NOT_FOUND, Code.MARKET_NOT_FOUND, Code.ORDER_NOT_FOUND, Code.API_KEY_NOT_FOUND],
    404, 'not found')
  expect([Code.INVALID_ORDER_DUPLICATED, Code.MARKET_EXISTS], 409, 'duplicate')
  expect([ApiCode.BODY_TOO_LARGE], 413, 'body too large')
  expect([ApiCode.RATE_LIMITED], 429, 'rate limited')
  expect([ServiceCode.ENGINE_UNAVAILABLE, ServiceCode.ENGINE_BUSY, ServiceCode.SIGNATURE_POOL_BUSY, ApiCode.NOT_READY],
    503, 'engine unavailable')
  expect([Code.MARKET_CANCEL_ONLY], 503, 'market in cancel-only')
  expect([ApiCode.METHOD_NOT_ALLOWED], 405, 'wrong method')
  expect([ApiCode.QUERY_TOO_LONG], 414, 'query too long')
  expect([ApiCode.HEADERS_TOO_LARGE], 431, 'headers too large')
  expect([ApiCode.BAD_JSON, ApiCode.INVALID_PARAMETER, ApiCode.FORBIDDEN_KEY, ApiCode.INVALID_SIGNATURE, Code.INVALID_ORDER_PAYLOAD,
    Code.INVALID_ORDER_MIN_TICK_SIZE, Code.INVALID_ORDER_EXPIRATION, Code.INVALID_ORDER_NOT_ENOUGH_BALANCE, Code.BATCH_TOO_LARGE],
  400, 'bad input or a business rule')
  t.equal(CATALOGUE.INVALID_ORDER_DUPLICATED.grpc, Grpc.ALREADY_EXISTS)
  t.equal(CATALOGUE.AUTH_SIGNATURE.grpc, Grpc.UNAUTHENTICATED)
  t.equal(CATALOGUE.NOT_OWNER.grpc, Grpc.PERMISSION_DENIED)
  t.equal(CATALOGUE.ENGINE_UNAVAILABLE.grpc, Grpc.UNAVAILABLE)
  t.equal(CATALOGUE.RATE_LIMITED.grpc, Grpc.RESOURCE_EXHAUSTED)
})
