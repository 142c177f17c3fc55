/**
 * The fast hashing path against the reference, byte for byte: the WebAssembly keccak (keccak.ts,
 * keccak-wasm.ts) against @noble/hashes on seeded random messages of every length up to four
 * blocks and some longer; order digests written straight into the module's memory (eip712.ts)
 * against the field-by-field reference encoding hashed with noble, on thousands of seeded random
 * V1 and V2 orders under every domain (both chains, neg-risk or not, exchange versions 1 to 3),
 * including the spellings the reference accepts (leading zeros, upper-case hex, 0X or no prefix
 * on a bytes32); orders the reference refuses are refused the same way; addresses of random
 * public keys, and a signer's known key (recoversTo) standing in for its address only when it is
 * the key recovered; and signatures parsed into the bytes libsecp256k1 takes. The seed is printed
 * (KECCAK_SEED replays it).
 */
import t from 'tap'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { Random } from '../../simulation/random.js'
import { KECCAK_BACKEND, keccak256, nobleKeccak256 } from '../../../src/crypto/keccak.js'
import { keccakModuleBytes, roundConstants } from '../../../src/crypto/keccak-wasm.js'
import {
  type AnyOrderStruct,
  type ExchangeVersion,
  orderDigest,
  orderExchangeOf,
  orderStructHash,
  orderStructHashReference,
  type OrderStruct,
  type OrderStructV2,
} from '../../../src/crypto/eip712.js'
import { addressOfPublicKey } from '../../../src/crypto/address.js'
import { parseSignature, recoversTo, signDigest, type ParsedSignature } from '../../../src/crypto/signature.js'
import { concatBytes, fromHex, wordOfAddress, wordOfBigInt } from '../../../src/crypto/hex.js'

const SEED = Number(process.env.KECCAK_SEED ?? Date.now() % 2 ** 31)
const MESSAGES = 3_000
const ORDERS = 6_000
const KEYS = 500
const hex = (bytes: Uint8Array): string => bytesToHex(bytes)

const text = (value: string): Uint8Array => nobleKeccak256(new TextEncoder().encode(value))

/** The order domain's separator, computed here with noble (not through eip712.ts's caches). */
function referenceSeparator(chainId: number, negRisk: boolean, version: ExchangeVersion): Uint8Array {
  const domainType = 'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'
  return nobleKeccak256(concatBytes([text(domainType), text('Polymarket CTF Exchange'), text(String(version)),
    wordOfBigInt(BigInt(chainId)), wordOfAddress(orderExchangeOf(chainId, negRisk, version))]))
}

/** The reference digest: noble's keccak over the reference encoding and 0x1901 ‖ separator ‖ struct hash. */
function referenceDigest(order: AnyOrderStruct, chainId: number, negRisk: boolean, version: ExchangeVersion): string {
  const separator = referenceSeparator(chainId, negRisk, version)
  const structHash = orderStructHashReference(order, nobleKeccak256)
  return hex(nobleKeccak256(Uint8Array.from([0x19, 0x01, ...separator, ...structHash])))
}

/** A uint256 as the API may spell it: small, large, the extremes, sometimes with leading zeros. */
function decimal(random: Random): string {
  const kind = random.int(0, 5)
  let value: bigint
  if (kind === 0) value = BigInt(random.int(0, 9))
  else if (kind === 1) value = BigInt(random.int(0, Number.MAX_SAFE_INTEGER))
  else if (kind === 2) value = (1n << 256n) - 1n - BigInt(random.int(0, 3))
  else value = BigInt('0x' + random.hex(random.int(1, 32)))
  const digits = value.toString()
  return random.chance(0.1) ? '0'.repeat(Math.min(78 - digits.length, random.int(1, 3))) + digits : digits
}

function address(random: Random): string {
  const body = random.hex(20)
  return '0x' + (random.chance(0.3) ? body.toUpperCase() : body)
}

function bytes32(random: Random): string {
  const body = random.chance(0.2) ? random.hex(32).toUpperCase() : random.hex(32)
  return random.pick(['0x', '0x', '0x', '0X', '']) + body
}

function randomOrder(random: Random): AnyOrderStruct {
  return random.chance(0.5) ? randomOrderV1(random) : randomOrderV2(random)
}

function randomOrderV1(random: Random): OrderStruct {
  const order: OrderStruct = { salt: decimal(random), maker: address(random), signer: address(random),
    taker: address(random), tokenId: decimal(random), makerAmount: decimal(random), takerAmount: decimal(random),
    expiration: decimal(random), nonce: decimal(random), feeRateBps: decimal(random),
    side: random.int(0, 1) as 0 | 1, signatureType: random.int(0, 2) as 0 | 1 | 2 }
  return random.chance(0.5) ? { ...order, version: 1 } : order
}

function randomOrderV2(random: Random): OrderStructV2 {
  return { version: 2, salt: decimal(random), maker: address(random), signer: address(random),
    tokenId: decimal(random), makerAmount: decimal(random), takerAmount: decimal(random),
    side: random.int(0, 1) as 0 | 1, signatureType: random.int(0, 3) as 0 | 1 | 2 | 3,
    timestamp: decimal(random), metadata: bytes32(random), builder: bytes32(random) }
}

t.test('the WebAssembly module runs here, so the comparisons below are not noble against noble', (t) => {
  t.equal(KECCAK_BACKEND, 'wasm')
  t.ok(keccakModuleBytes().length < 32_768, 'a small module')
  t.equal(roundConstants()[23]!.toString(16), '8000000080008008', 'the last round constant')
  t.end()
})

t.test(`${MESSAGES} random messages: the same hash as noble's`, (t) => {
  t.comment(`seed ${SEED} (KECCAK_SEED)`)
  const random = new Random(SEED)
  const lengths = [0, 1, 135, 136, 137, 271, 272, 65_000, 70_000]
  const mismatches: string[] = []
  for (let i = 0; i < MESSAGES + lengths.length; i++) {
    const length = i < lengths.length ? lengths[i]! : random.int(0, 4 * 136 + 8)
    const message = fromHex('0x' + random.hex(length))
    if (hex(keccak256(message)) !== hex(nobleKeccak256(message))) mismatches.push(`length ${length}`)
  }
  t.same(mismatches.slice(0, 5), [], 'every length')
  t.end()
})

t.test(`${ORDERS} random V1 and V2 orders: the same digests as the reference in every domain`, (t) => {
  t.comment(`seed ${SEED + 1} (KECCAK_SEED + 1)`)
  const random = new Random(SEED + 1)
  const mismatches: string[] = []
  const versions = { 1: 0, 2: 0 }
  for (let i = 0; i < ORDERS; i++) {
    const order = randomOrder(random)
    const chainId = random.pick([137, 80002])
    const negRisk = random.chance(0.5)
    const version = random.pick([order.version === 2 ? 2 : 1, 1, 2, 3] as const)
    versions[order.version === 2 ? 2 : 1]++
    const fast = hex(orderDigest(order, chainId, negRisk, version))
    if (fast !== referenceDigest(order, chainId, negRisk, version)) mismatches.push(JSON.stringify(order))
    if (hex(orderStructHash(order)) !== hex(orderStructHashReference(order, nobleKeccak256))) {
      mismatches.push(`struct hash of ${JSON.stringify(order)}`)
    }
  }
  t.same(mismatches.slice(0, 3), [], 'every order')
  t.ok(versions[1] > ORDERS / 3 && versions[2] > ORDERS / 3, `both shapes: ${JSON.stringify(versions)}`)
  t.end()
})

t.test('orders the reference refuses are refused; odd spellings it takes are hashed alike', (t) => {
  const random = new Random(SEED + 2)
  const base = randomOrder(new Random(SEED + 3))
  const refused: [string, Partial<Record<string, unknown>>][] = [
    ['a signed decimal', { salt: '+1' }], ['79 digits', { salt: '1'.repeat(79) }],
    ['2^256', { makerAmount: (1n << 256n).toString() }], ['an empty decimal', { tokenId: '' }],
    ['an address without 0x', { maker: random.hex(21) }], ['an address with 0X', { signer: '0X' + random.hex(20) }],
    ['a short address', { maker: '0x' + random.hex(19) }], ['a non-hex address', { maker: '0x' + 'g'.repeat(40) }],
    ['a non-ASCII digit', { salt: '1\u0661' }], ['a side of 1.5', { side: 1.5 }], ['a side of -1', { side: -1 }],
  ]
  for (const [what, change] of refused) {
    const order = { ...base, ...change } as AnyOrderStruct
    t.throws(() => orderStructHashReference(order), `the reference refuses ${what}`)
    t.throws(() => orderDigest(order, 137, false), `and so does the fast path: ${what}`)
  }
  const v2 = randomOrderV2(new Random(SEED + 4))
  const taken: [string, Partial<Record<string, unknown>>][] = [
    ['a side as a string', { side: '1' }], ['a large signature type', { signatureType: 200 }],
    ['a bare metadata', { metadata: random.hex(32) }], ['a 0X builder', { builder: '0X' + random.hex(32) }],
  ]
  for (const [what, change] of taken) {
    const order = { ...v2, ...change } as AnyOrderStruct
    t.equal(hex(orderDigest(order, 80002, true)), referenceDigest(order, 80002, true, 2), what)
  }
  t.throws(() => orderDigest({ ...v2, metadata: '0x' + random.hex(31) }, 137, false), 'a 31-byte metadata')
  t.end()
})

t.test(`${KEYS} random public keys: the same address as noble's keccak gives`, (t) => {
  const random = new Random(SEED + 5)
  const mismatches: string[] = []
  for (let i = 0; i < KEYS; i++) {
    const publicKey = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(fromHex('0x' + random.hex(48))), false)
    const expected = '0x' + hex(nobleKeccak256(publicKey.subarray(1)).subarray(12))
    if (addressOfPublicKey(publicKey) !== expected) mismatches.push(hex(publicKey))
  }
  t.same(mismatches, [], 'every key')
  t.end()
})

t.test('a parsed signature carries r ‖ s as bytes; any non-hex character is refused', (t) => {
  const random = new Random(SEED + 6)
  const signature = signDigest(fromHex('0x' + random.hex(32)), fromHex('0x01' + random.hex(31)))
  const parsed = parseSignature(signature) as ParsedSignature
  t.equal(hex(parsed.compact!), parsed.r.toString(16).padStart(64, '0') + parsed.s.toString(16).padStart(64, '0'))
  const upper = parseSignature(signature.toUpperCase().replace('0X', '0x')) as ParsedSignature
  t.same([upper.r, upper.s, upper.recovery, hex(upper.compact!)], [parsed.r, parsed.s, parsed.recovery,
    hex(parsed.compact!)], 'upper-case hex')
  // The range checks compare bytes: their edges against the curve order's.
  const N = secp256k1.Point.Fn.ORDER
  const word = (value: bigint): string => value.toString(16).padStart(64, '0')
  const edges: [bigint, bigint, string | null][] = [[N - 1n, 1n, null], [N, 1n, 'signature-range'],
    [1n, N >> 1n, null], [1n, (N >> 1n) + 1n, 'signature-high-s'], [1n, N, 'signature-range'],
    [0n, 1n, 'signature-zero'], [1n, 0n, 'signature-zero'], [(1n << 256n) - 1n, 1n, 'signature-range']]
  for (const [r, s, fault] of edges) {
    const result = parseSignature('0x' + word(r) + word(s) + '1b')
    t.same(typeof result === 'string' ? result : [result.r, result.s], fault ?? [r, s], `r ${r}, s ${s}`)
  }
  for (const bad of ['g', ' ', '\u0130', '\u0661']) {
    const at = random.int(2, signature.length - 1)
    t.equal(parseSignature(signature.slice(0, at) + bad + signature.slice(at + 1)), 'signature-length', JSON.stringify(bad))
  }
  t.equal(parseSignature('0X' + signature.slice(2)), 'signature-length', '0X is not 0x')
  t.end()
})

t.test('recoversTo: a signer\'s known key stands in for its address, and only that key', (t) => {
  const random = new Random(SEED + 7)
  const [alice, bob] = [fromHex('0x01' + random.hex(31)), fromHex('0x02' + random.hex(31))]
  const addressOf = (key: Uint8Array): string => addressOfPublicKey(secp256k1.getPublicKey(key, false))
  const signedBy = (key: Uint8Array): [Uint8Array, ParsedSignature] => {
    const digest = fromHex('0x' + random.hex(32))
    return [digest, parseSignature(signDigest(digest, key)) as ParsedSignature]
  }
  for (let i = 0; i < 3; i++) t.ok(recoversTo(...signedBy(alice), addressOf(alice)), `alice, order ${i + 1}`)
  t.notOk(recoversTo(...signedBy(bob), addressOf(alice)), 'bob\'s signature for alice\'s address (her key is known)')
  t.notOk(recoversTo(...signedBy(alice), addressOf(bob)), 'alice\'s signature for bob\'s address (unknown)')
  t.ok(recoversTo(...signedBy(bob), addressOf(bob)), 'bob for bob')
  t.notOk(recoversTo(...signedBy(bob), addressOf(alice)), 'and bob still not for alice')
  t.end()
})
