/**
 * Property-based fuzzing of the wire parsers every face shares (issue 14, "Fuzzing"): JSON
 * bodies, exact decimals, uint256 values, addresses and ids, cursors and page limits, and signed
 * orders V1 and V2 with any field replaced by anything. The property: each parser either answers
 * a well-formed value or throws a catalogue PredexError, never another exception (another
 * exception would reach a face as a 500); and valid inputs round-trip exactly.
 *
 * Seeded: the seed is printed; FUZZ_SEED=<seed> replays a run, FUZZ_RUNS sets the runs per
 * property (200 by default; FUZZ_RUNS=100000 for a long run).
 */
import t, { type Test } from 'tap'
import fc from 'fast-check'
import { PredexError } from '../../src/errors.js'
import {
  addressOf, integerOf, limitOf, microsOfDecimal, offsetOfCursor, orderIdOf, parseJsonBody, tokenIdOf, uint256Of,
} from '../../src/api/wire.js'
import { parseWireOrder } from '../../src/api/order-wire.js'
import { decimalOfMicros } from '../../src/stdx/decimal.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { orderBody, orderBodyV2, signLimitOrder, signLimitOrderV2, type MarketTerms } from '../../src/client/orders.js'

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const RUNS = Number(process.env.FUZZ_RUNS ?? 200)
t.comment(`fuzz seed ${SEED} (replay: FUZZ_SEED=${SEED} npx tap test/fuzz/wire-parsers.test.ts), ${RUNS} runs each`)

/** Runs `parse`; true when it answered or threw a catalogue error. */
function answersOrRefuses(parse: () => unknown): boolean {
  try {
    parse()
    return true
  } catch (error) {
    if (error instanceof PredexError) return true
    throw error
  }
}

function check<T>(t: Test, name: string, property: fc.IProperty<T>): void {
  const details = fc.check(property, { seed: SEED, numRuns: RUNS })
  t.notOk(details.failed, `${name}${details.failed ? `: counterexample ${fc.stringify(details.counterexample)} `
    + `(${String(details.errorInstance)})` : ''}`)
}

t.test('JSON bodies: any bytes are parsed or refused with BAD_JSON / FORBIDDEN_KEY', (t) => {
  check(t, 'random bytes', fc.property(fc.uint8Array({ maxLength: 512 }),
    (bytes) => answersOrRefuses(() => parseJsonBody(bytes))))
  check(t, 'JSON values round-trip unless they carry a prototype key or nest too deep',
    fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
      const text = JSON.stringify(value)
      try {
        return JSON.stringify(parseJsonBody(Buffer.from(text))) === JSON.stringify(JSON.parse(text))
      } catch (error) {
        return error instanceof PredexError && ['FORBIDDEN_KEY', 'BAD_JSON'].includes(error.code)
          && /__proto__|constructor|prototype/.test(text)
      }
    }))
  t.end()
})

t.test('decimals: exact, never rounded, never a float on the way', (t) => {
  check(t, 'anything is a number of micro-units or INVALID_PARAMETER', fc.property(fc.anything(), (value) => {
    try {
      const micros = microsOfDecimal(value, 'price')
      return Number.isSafeInteger(micros) && micros >= 0
    } catch (error) {
      return error instanceof PredexError && error.code === 'INVALID_PARAMETER'
    }
  }))
  const decimal = fc.tuple(fc.bigInt({ min: 0n, max: 999_999_999n }), fc.bigInt({ min: 0n, max: 999_999n }))
  check(t, 'valid decimals round-trip through micro-units', fc.property(decimal, ([whole, fraction]) => {
    const micros = whole * 1_000_000n + fraction
    const text = decimalOfMicros(Number(micros))
    return BigInt(microsOfDecimal(text, 'size')) === micros && decimalOfMicros(microsOfDecimal(text, 'size')) === text
  }))
  check(t, 'a seventh decimal is refused, not rounded', fc.property(decimal, fc.integer({ min: 1, max: 9 }),
    ([whole, fraction], seventh) => {
      const text = `${whole}.${fraction.toString().padStart(6, '0')}${seventh}`
      return isRefused(() => microsOfDecimal(text, 'price'))
    }))
  t.end()
})

function isRefused(parse: () => unknown): boolean {
  try {
    parse()
    return false
  } catch (error) {
    return error instanceof PredexError
  }
}

t.test('ids, addresses, uint256, cursors and limits: answered or refused, never thrown otherwise', (t) => {
  const input = fc.oneof(fc.anything(), fc.string(), fc.stringMatching(/^0x[0-9a-fA-F]{0,70}$/),
    fc.stringMatching(/^[0-9]{0,90}$/))
  check(t, 'uint256Of', fc.property(input, (value) => {
    const parsed = uint256Of(value)
    return parsed === null || (parsed >= 0n && parsed < 2n ** 256n)
  }))
  check(t, 'addressOf', fc.property(input, (value) => answersOrRefuses(() => addressOf(value, 'address'))))
  check(t, 'orderIdOf', fc.property(input, (value) => answersOrRefuses(() => orderIdOf(value))))
  check(t, 'tokenIdOf', fc.property(input, (value) => answersOrRefuses(() => tokenIdOf(value))))
  check(t, 'integerOf', fc.property(input, (value) => answersOrRefuses(() => integerOf(value, 'n'))))
  check(t, 'cursors', fc.property(fc.string(), (text) => answersOrRefuses(() => offsetOfCursor(text))))
  check(t, 'limits', fc.property(fc.string(), (text) => {
    try {
      const limit = limitOf(text)
      return Number.isSafeInteger(limit) && limit >= 1
    } catch (error) {
      return error instanceof PredexError
    }
  }))
  t.end()
})

t.test('signed orders V1 and V2: any field replaced by anything is parsed or refused', (t) => {
  const wallet = new Wallet('0x' + '42'.repeat(32))
  const terms: MarketTerms = { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: 80002 }
  const limit = { tokenId: '1234', side: 'BUY' as const, price: '0.55', size: '10' }
  const bodies = [
    JSON.parse(orderBody(signLimitOrder(wallet, terms, limit), 'key', 'GTC')) as Record<string, unknown>,
    JSON.parse(orderBodyV2(signLimitOrderV2(wallet, terms, limit), 'key', 'GTC')) as Record<string, unknown>,
  ]
  for (const body of bodies) t.ok(answersOrRefuses(() => parseWireOrder(body)) && !isRefused(() => parseWireOrder(body)),
    'the unmutated body parses')
  const fields = [...new Set(bodies.flatMap((b) => Object.keys(b.order as object)))]
  check(t, 'one order field replaced', fc.property(fc.integer({ min: 0, max: 1 }), fc.constantFrom(...fields),
    fc.anything(), (which, field, value) => {
      const body = structuredClone(bodies[which]!)
      ;(body.order as Record<string, unknown>)[field] = value
      return answersOrRefuses(() => parseWireOrder(body))
    }))
  check(t, 'one top-level field replaced', fc.property(fc.integer({ min: 0, max: 1 }),
    fc.constantFrom('order', 'owner', 'orderType', 'postOnly', 'extra'), fc.anything(), (which, field, value) => {
      const body = { ...bodies[which]!, [field]: value }
      return answersOrRefuses(() => parseWireOrder(body))
    }))
  check(t, 'any value as the body', fc.property(fc.anything(), (value) => answersOrRefuses(() => parseWireOrder(value))))
  t.end()
})
