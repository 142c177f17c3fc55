/**
 * libsecp256k1 (src/crypto/native-recovery.ts) against noble, the reference: 2 000 seeded random
 * signed orders (EIP-712 digests of random orders, each signed with a random key) recover the
 * same public key from both; so do 500 signatures that nobody made (random r and s in range, either
 * recovery bit), including those for which no signer exists (both say null). Then the choice of
 * backend: auto takes the binding on this platform (Linux x64, where CI runs), native or noble by
 * name, and the verification pool's threads verify with the backend they are told.
 */
import t from 'tap'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { orderDigest, type OrderStruct } from '../../../src/crypto/eip712.js'
import { fromHex, toHex } from '../../../src/crypto/hex.js'
import { Random } from '../../simulation/random.js'
import { nobleRecoverPublicKey, parseSignature, recoverAddress, signDigest, type ParsedSignature }
  from '../../../src/crypto/signature.js'
import { loadNativeRecoverer } from '../../../src/crypto/native-recovery.js'
import { installSigBackend } from '../../../src/crypto/sig-backend.js'
import { addressOfPublicKey } from '../../../src/crypto/address.js'
import { VerifierPool } from '../../../src/crypto/verifier-pool.js'

const SEED = Number(process.env.NATIVE_SEED ?? Date.now() % 2 ** 31)
const ORDERS = 2_000
const UNSIGNED = 500
const N = secp256k1.Point.Fn.ORDER

/** Seeded random bytes and integers below `max` (the simulation's generator). */
function generator(seed: number): { bytes: (n: number) => Uint8Array; int: (max: number) => number } {
  const random = new Random(seed)
  return { bytes: (n) => fromHex('0x' + random.hex(n)), int: (max) => random.int(0, max - 1) }
}

const native = loadNativeRecoverer()
if (typeof native === 'string') throw new Error(`the native binding must load here (Linux x64): ${native}`)
const hex = (bytes: Uint8Array | null): string => (bytes === null ? 'null' : toHex(bytes))

function randomOrder(random: ReturnType<typeof generator>, signer: string): OrderStruct {
  const uint = (bytes: number): string => BigInt(toHex(random.bytes(bytes))).toString()
  return { salt: uint(8), maker: signer, signer, taker: '0x' + '00'.repeat(20), tokenId: uint(32),
    makerAmount: uint(6), takerAmount: uint(6), expiration: '0', nonce: '0', feeRateBps: '0',
    side: random.int(2) as 0 | 1, signatureType: 0 }
}

t.test(`${ORDERS} random signed orders: libsecp256k1 recovers what noble recovers`, async (t) => {
  t.comment(`seed ${SEED} (NATIVE_SEED)`)
  const random = generator(SEED)
  const mismatches: string[] = []
  for (let i = 0; i < ORDERS; i++) {
    const key = random.bytes(32)
    key[0] = (key[0]! % 0xfe) + 1 // below the curve order
    const signer = addressOfPublicKey(secp256k1.getPublicKey(key, false))
    const digest = orderDigest(randomOrder(random, signer), random.int(2) === 0 ? 137 : 80002, random.int(2) === 0)
    const signature = parseSignature(signDigest(digest, key)) as ParsedSignature
    const [fromNoble, fromNative] = [nobleRecoverPublicKey(digest, signature), native(digest, signature)]
    if (hex(fromNative) !== hex(fromNoble) || addressOfPublicKey(fromNative!) !== signer) {
      mismatches.push(`order ${i}: native ${hex(fromNative)}, noble ${hex(fromNoble)}`)
    }
  }
  t.same(mismatches.slice(0, 5), [], 'every signer recovered alike')
})

t.test(`${UNSIGNED} signatures nobody made: both agree, null included`, async (t) => {
  t.comment(`seed ${SEED + 1} (NATIVE_SEED + 1)`)
  const random = generator(SEED + 1)
  let nulls = 0
  const mismatches: string[] = []
  for (let i = 0; i < UNSIGNED; i++) {
    const scalar = (): bigint => (BigInt(toHex(random.bytes(32))) % (N - 1n)) + 1n
    const signature: ParsedSignature = { r: scalar(), s: scalar() >> 1n, recovery: random.int(2) as 0 | 1 }
    const digest = random.bytes(32)
    const [fromNoble, fromNative] = [nobleRecoverPublicKey(digest, signature), native(digest, signature)]
    if (fromNoble === null) nulls++
    if (hex(fromNative) !== hex(fromNoble)) mismatches.push(`${i}: native ${hex(fromNative)}, noble ${hex(fromNoble)}`)
  }
  t.same(mismatches.slice(0, 5), [], 'the same key or the same null')
  t.ok(nulls > UNSIGNED / 5, `some had no signer at all (${nulls}): the null path was crossed`)
})

t.test('the backend: auto takes the binding here, and each is chosen by name', async (t) => {
  t.same(installSigBackend('auto'), { backend: 'native', fallbackReason: null }, 'auto, first: the binding')
  t.equal(installSigBackend('noble').backend, 'noble')
  t.equal(installSigBackend('auto').backend, 'noble', 'auto keeps what was installed')
  t.equal(installSigBackend('native').backend, 'native')
  const key = new Uint8Array(32).fill(7)
  const digest = new Uint8Array(32).fill(9)
  const signature = parseSignature(signDigest(digest, key)) as ParsedSignature
  t.equal(recoverAddress(digest, signature), addressOfPublicKey(secp256k1.getPublicKey(key, false)),
    'recoverAddress runs through the installed backend')
  t.equal(installSigBackend('noble').backend, 'noble', 'and back')
})

t.test("the pool's threads verify with the backend they are told", async (t) => {
  for (const backend of ['native', 'noble'] as const) {
    const pool = new VerifierPool({ chainId: 137, threads: 1, backend })
    t.teardown(() => pool.close())
    const key = new Uint8Array(32).fill(3)
    const signer = addressOfPublicKey(secp256k1.getPublicKey(key, false))
    const order = randomOrder(generator(SEED + 2), signer)
    const signature = signDigest(orderDigest(order, 137, false), key)
    const good = await pool.verify({ order, signature, negRisk: false }, 'key')
    t.ok(good.ok, `${backend}: a signed order passes`)
    const flipped = signature.slice(0, -2) + (signature.endsWith('1b') ? '1c' : '1b')
    const bad = await pool.verify({ order, signature: flipped, negRisk: false }, 'key')
    t.notOk(bad.ok, `${backend}: the other recovery bit names another signer`)
  }
})
