/**
 * Order verification verdicts: malformed signatures refused before curve work (each fault named),
 * the signature-type rule, and the diagnosis of a signature that does not verify (other exchange
 * domain, other chain, other signer). The signer cache gives the same answers as recovery,
 * including for a signature whose v byte was flipped.
 */
import t from 'tap'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { orderDigest, type OrderStruct } from '../../../src/crypto/eip712.js'
import { fromHex, toHex } from '../../../src/crypto/hex.js'
import { parseSignature, signDigest } from '../../../src/crypto/signature.js'
import { addressOfPublicKey } from '../../../src/crypto/address.js'
import { checkSignatureType, verifyOrder } from '../../../src/crypto/verify-order.js'
import { SignerCache } from '../../../src/crypto/signer-cache.js'

const N = secp256k1.Point.Fn.ORDER
const KEY = fromHex('0x' + '22'.repeat(32))
const OTHER_KEY = fromHex('0x' + '33'.repeat(32))
const ADDRESS = addressOfPublicKey(secp256k1.getPublicKey(KEY, false))

function orderOf(salt: number, signer = ADDRESS): OrderStruct {
  return { salt: String(salt), maker: signer, signer, taker: '0x' + '0'.repeat(40), tokenId: '777', makerAmount: '5000000',
    takerAmount: '10000000', expiration: '0', nonce: '0', feeRateBps: '0', side: 0, signatureType: 0 }
}

function signed(order: OrderStruct, chainId: number, negRisk: boolean, key = KEY): string {
  return signDigest(orderDigest(order, chainId, negRisk), key)
}

t.test('malformed signatures are named before any curve work', (t) => {
  const good = signed(orderOf(1), 80002, false)
  const s = BigInt('0x' + good.slice(66, 130))
  const hex64 = (n: bigint): string => n.toString(16).padStart(64, '0')
  const cases: [string, string][] = [
    ['0x1234', 'signature-length'],
    [good + '00', 'signature-length'],
    [good.slice(0, 130) + 'zz', 'signature-length'],
    ['0x' + '0'.repeat(64) + good.slice(66), 'signature-zero'],
    ['0x' + hex64(N) + good.slice(66), 'signature-range'],
    ['0x' + good.slice(2, 66) + hex64(N - s) + good.slice(130), 'signature-high-s'],
    [good.slice(0, 130) + '1d', 'signature-v'],
  ]
  for (const [signature, fault] of cases) {
    t.equal(parseSignature(signature), fault, fault)
    const verdict = verifyOrder({ order: orderOf(1), signature, negRisk: false }, 80002, null)
    t.same(verdict.ok === false && verdict.check, fault)
  }
  t.end()
})

t.test('a good signature verifies and its id is the order digest', (t) => {
  const order = orderOf(2)
  const verdict = verifyOrder({ order, signature: signed(order, 80002, true), negRisk: true }, 80002, null)
  t.same(verdict, { ok: true, orderId: toHex(orderDigest(order, 80002, true)) })
  t.end()
})

t.test('the diagnosis names the domain, the chain or the signer', (t) => {
  const order = orderOf(3)
  let verdict = verifyOrder({ order, signature: signed(order, 80002, false), negRisk: true }, 80002, null)
  t.match(verdict, { ok: false, check: 'signature-domain', context: { negRisk: true } }, 'signed for the regular exchange, neg-risk market')
  verdict = verifyOrder({ order, signature: signed(order, 80002, true), negRisk: false }, 80002, null)
  t.match(verdict, { ok: false, check: 'signature-domain' }, 'signed for the neg-risk exchange, regular market')
  verdict = verifyOrder({ order, signature: signed(order, 137, false), negRisk: false }, 80002, null)
  t.match(verdict, { ok: false, check: 'signature-chain', context: { signedForChain: 137, chainId: 80002 } })
  const other = addressOfPublicKey(secp256k1.getPublicKey(OTHER_KEY, false))
  verdict = verifyOrder({ order, signature: signed(order, 80002, false, OTHER_KEY), negRisk: false }, 80002, null)
  t.match(verdict, { ok: false, check: 'signature-signer', context: { recovered: other, signer: ADDRESS } })
  t.end()
})

t.test('the signature-type rule', (t) => {
  const order = orderOf(4)
  const proxy = '0x' + 'ab'.repeat(20)
  t.equal(checkSignatureType(order, () => false), null, 'EOA: maker is the signer')
  t.match(checkSignatureType({ ...order, maker: proxy }, () => false), { ok: false, check: 'signature-type' }, 'EOA with another maker')
  t.match(checkSignatureType({ ...order, maker: proxy, signatureType: 1 }, () => false), { ok: false, check: 'signature-type' }, 'proxy not registered')
  t.equal(checkSignatureType({ ...order, maker: proxy, signatureType: 2 }, (m, s) => m === proxy && s === ADDRESS), null, 'Safe registered')
  t.end()
})

t.test('the signer cache answers as recovery does, before and after the signer is hot', (t) => {
  const cache = new SignerCache({ entriesMax: 4, hotAfter: 3 })
  for (let salt = 10; salt < 30; salt++) {
    const order = orderOf(salt)
    const signature = signed(order, 80002, false)
    t.equal(verifyOrder({ order, signature, negRisk: false }, 80002, cache).ok, true, `order ${salt}`)
    const flippedV = signature.slice(0, 130) + (signature.endsWith('1b') ? '1c' : '1b')
    t.match(verifyOrder({ order, signature: flippedV, negRisk: false }, 80002, cache), { ok: false }, `order ${salt} with v flipped`)
    const byOther = signed(order, 80002, false, OTHER_KEY)
    t.match(verifyOrder({ order, signature: byOther, negRisk: false }, 80002, cache), { ok: false, check: 'signature-signer' })
  }
  t.ok(cache.hits > 0, `the precomputed path was used (${cache.hits} hits, ${cache.misses} misses)`)
  t.end()
})

t.test('the cache keeps at most entriesMax tables', (t) => {
  const cache = new SignerCache({ entriesMax: 3, hotAfter: 1, buildsPerSecond: 1_000 })
  for (let i = 1; i <= 6; i++) {
    const key = fromHex('0x' + i.toString(16).padStart(2, '0').repeat(32))
    const signer = addressOfPublicKey(secp256k1.getPublicKey(key, false))
    const order = orderOf(i, signer)
    t.equal(verifyOrder({ order, signature: signed(order, 80002, false, key), negRisk: false }, 80002, cache).ok, true)
  }
  t.equal(cache.size, 3)
  t.end()
})
