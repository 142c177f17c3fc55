/**
 * Every test vector of Polymarket's CLOB V2 reference (clob-v2-compat.md section 8), computed by
 * Predex's own code: the domain separators of every exchange and version, the V2 orders' struct
 * hashes, ids and signatures, the POLY_1271 nested signature, the bodies clob-client-v2 posts
 * (parsed by the wire parser into the same order ids), the L2 header of a V2 body, the
 * heartbeat HMAC and the L1 signature on chain 80002. Then the verifier's verdicts on them.
 */
import t from 'tap'
import { parseWireOrder } from '../../../src/api/order-wire.js'
import { depositWalletDigest, nestSignature, parseNestedSignature } from '../../../src/crypto/deposit-wallet.js'
import {
  clobAuthDigest,
  CLOB_AUTH_MESSAGE,
  ORDER_V2_TYPE,
  orderDigest,
  orderDomainSeparator,
  orderStructHash,
  type ExchangeVersion,
  type OrderStructV2,
} from '../../../src/crypto/eip712.js'
import { fromHex, toHex } from '../../../src/crypto/hex.js'
import { l2Signature } from '../../../src/crypto/hmac.js'
import { keccakOfText } from '../../../src/crypto/keccak.js'
import { parseSignature, recoverAddress, signDigest } from '../../../src/crypto/signature.js'
import { checkSignatureType, checkWalletOwner, verifyOrder } from '../../../src/crypto/verify-order.js'

const KEY = fromHex('0x' + '11'.repeat(32))
const ADDRESS = '0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A'
const WALLET = '0x000000000000000000000000000000000000dEaD'
const ZERO32 = '0x' + '0'.repeat(64)
const T = '71321045679252212594626385532706912750332728571942532289631379312455583992563'
const SECRET = 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI='
const OWNER = '00000000-0000-4000-8000-000000000001'

t.test('type hashes (8.1)', (t) => {
  t.equal(toHex(keccakOfText(ORDER_V2_TYPE)), '0xbb86318a2138f5fa8ae32fbe8e659f8fcf13cc6ae4014a707893055433818589')
  t.equal(toHex(keccakOfText('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)')),
    '0x8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f')
  t.end()
})

t.test('domain separators of every exchange, version and chain (8.1)', (t) => {
  const table: [number, boolean, ExchangeVersion, string][] = [
    [80002, false, 2, '0xa440cbd865bc0c6243d7a8df9a8bf48a8827b0a4abbb61c30e96d305423af148'],
    [80002, true, 2, '0x1468e39841f0a0e05d3762b235cb7acecabf8cd7b6d3a672965a5d415bf9378e'],
    [80002, false, 3, '0xdf8b5fd204134b8d562677d7fc9346884e8f02ef2fd43358239393723e8833e6'],
    [80002, false, 1, '0x44b180a7e548e2d916b5410176db13a07744966f9b6c93c4bccdabebbcdfca93'],
    [80002, true, 1, '0x9fa10822e4b86fd1eed68ea1c2628e0ee9a6c523cb2570592768432cfdb09bf1'],
    [137, false, 2, '0x3264e159346253e26a64e00b69032db0e7d32f94628de3e6eecb50304d7af3d2'],
    [137, true, 2, '0x9b858f53327b0bd13af8ec14cfb35234fb9eb7b0504d1a4e61f433840d30e81a'],
    [137, false, 3, '0x466c63910185bbd55e8679264200c4e0abdcbb0c6264eb3d41d13326022e095b'],
    [137, false, 1, '0x1a573e3617c78403b5b4b892827992f027b03d4eaf570048b8ee8cdd84d151be'],
    [137, true, 1, '0x82cb6aa85babb812f4b521a12b10f0cbc68d2b44be7bc02c047004f544adb49f'],
  ]
  for (const [chainId, negRisk, version, separator] of table) {
    t.equal(toHex(orderDomainSeparator(chainId, negRisk, version)), separator,
      `chain ${chainId}, version ${version}${negRisk ? ', neg-risk' : ''}`)
  }
  t.end()
})

interface Vector {
  readonly name: string
  readonly order: OrderStructV2
  readonly chainId: number
  readonly negRisk: boolean
  readonly version: ExchangeVersion
  readonly structHash: string
  readonly orderHash: string
  readonly signature?: string
}

function v2(fields: Partial<OrderStructV2>): OrderStructV2 {
  return { version: 2, salt: '12345', maker: ADDRESS, signer: ADDRESS, tokenId: '123', makerAmount: '5000000',
    takerAmount: '10000000', side: 0, signatureType: 0, timestamp: '1700000000000', metadata: ZERO32, builder: ZERO32,
    ...fields }
}

const VECTORS: readonly Vector[] = [
  { name: 'V2-1', order: v2({}), chainId: 80002, negRisk: false, version: 2,
    structHash: '0x7721ff08bb8797140a8a3f730b0fe9f0051c677c09a220c4bdb02085511e12a7',
    orderHash: '0x7476e53b64689187ab0c5afccdfa03b941e1e39ec29a10546e9dfeedfd1af9e3',
    signature: '0x01a81a5eebf9c05e4174cba789a95efcd0596a209e11b3f631d2804fe39eed8432681168a7f0c2925b03fc136a574f734acd8630cb1b65ce55adfa9295cce0e31c' },
  { name: 'V2-2', order: v2({ salt: '987654321', tokenId: T, makerAmount: '7770000', takerAmount: '955710', side: 1,
    timestamp: '1700000001000' }), chainId: 80002, negRisk: false, version: 2,
  structHash: '0xea60ea253a1afe060c69617742e7e0ff2151f61904f623bf5bf96017c005cedc',
  orderHash: '0x2e9f410be0c206384dd8665f7af53ecde365252b565ac7656e9c8c3b3fffdf15',
  signature: '0xaf2622dceda3347b8922d9584f3889808f4665a537c414d0669a22aa0830b13f358cdf8d863e4066003615c6a0cfc7acbcc708425e80d72f78da74196867a95b1b' },
  { name: 'V2-3', order: v2({ salt: '1234567890123', tokenId: T, makerAmount: '29000000', takerAmount: '100000000',
    timestamp: '1700000002000' }), chainId: 80002, negRisk: true, version: 2,
  structHash: '0x74a35bbed8e2a7053fcde959a96d24a5a2e2288489bdcf011c1ad32a47b29003',
  orderHash: '0xae9e9b459a2a5aef65224485823abd9663da67b0add7b17df1f0d4aed7a155b7',
  signature: '0x730ee6a23e105c2f4108f1e547b90a31cdf810bc621045e18c9514c5af4f5a7674140a689741d17336260b3f48c5289054772c97c083c4dfe900146bb3cd3c131c' },
  { name: 'V2-4', order: v2({ salt: '555', makerAmount: '20120000', takerAmount: '9054000', side: 1,
    timestamp: '1700000003000' }), chainId: 137, negRisk: false, version: 2,
  structHash: '0x5090c9c91149561a39e369cda16f329a4bb8a0db17992dd0bdfc6832f423098e',
  orderHash: '0xc678b84225c969f7bb994d509763c36443ccf0a89709a518be0d9fcf855caf2b',
  signature: '0x04e616bb4bca0be23e5b854180d2605591b1a942440dc6873d6a393ca51649c203d04bd5ba273a69751ecf9f2c91ed2fa52a34a1f0392ad742e395e60df7501b1b' },
  { name: 'V3-5', order: v2({}), chainId: 80002, negRisk: false, version: 3,
    structHash: '0x7721ff08bb8797140a8a3f730b0fe9f0051c677c09a220c4bdb02085511e12a7',
    orderHash: '0x17b78610ed004f7e051e812541fbf3acaa2e53c96fa20b68812a329769f00579',
    signature: '0x3d3c31958d1809948fc511470c07ffdd843afe97786e1602099f15ac17df6d0c69ebb14975c21e6463f5838281a87f7cfdfb94e547eebbcbb55704b5646918c31b' },
  { name: 'V2-6', order: v2({ maker: WALLET, signer: WALLET, signatureType: 3 }), chainId: 80002, negRisk: false,
    version: 2, structHash: '0x79e5abe4e7164e736e1edb14848fd6f2540165a55fcbcb79c4a3c0f5bace81a3',
    orderHash: '0xbe1e5102adef2d78fad52f0b3e102ce8b5c69054dd7e5a7d90c77933dccfcada' },
]

t.test('orders: struct hash, order hash (orderID) and signature (8.2)', (t) => {
  for (const v of VECTORS) {
    t.equal(toHex(orderStructHash(v.order)), v.structHash, `${v.name}: struct hash`)
    const digest = orderDigest(v.order, v.chainId, v.negRisk, v.version)
    t.equal(toHex(digest), v.orderHash, `${v.name}: order hash`)
    if (v.signature !== undefined) t.equal(signDigest(digest, KEY), v.signature, `${v.name}: signature`)
  }
  t.end()
})

const INNER_V2_6 = '0xb5c071e95e47bbb760d8962474f5ad79986c1a5f4164b066324c6d21797286c3336b0e769c50f59c5682406a84d8fe03d1c02cea06d24f5360af94a9bee3751e1b'
const NESTED_V2_6 = INNER_V2_6 +
  'a440cbd865bc0c6243d7a8df9a8bf48a8827b0a4abbb61c30e96d305423af148' +
  '79e5abe4e7164e736e1edb14848fd6f2540165a55fcbcb79c4a3c0f5bace81a3' +
  Buffer.from(ORDER_V2_TYPE, 'ascii').toString('hex') + '00ba'

t.test('POLY_1271: the TypedDataSign digest, the inner and the nested signature (8.2, V2-6)', (t) => {
  const order = VECTORS[5]!.order
  const separator = orderDomainSeparator(80002, false, 2)
  const digest = depositWalletDigest(separator, orderStructHash(order), 80002, WALLET)
  t.equal(toHex(digest), '0xe51b084e0012660edf58e13674c80f57997515bd903b8ca0e12a71ff02b649fc', 'TypedDataSign digest')
  t.equal(signDigest(digest, KEY), INNER_V2_6, 'inner signature')
  const inner = parseSignature(INNER_V2_6)
  t.equal(typeof inner === 'string' ? inner : recoverAddress(digest, inner), ADDRESS.toLowerCase(), 'recovers the EOA')
  t.equal(nestSignature(INNER_V2_6, separator, orderStructHash(order)), NESTED_V2_6, 'the 317-byte layout')
  t.equal((NESTED_V2_6.length - 2) / 2, 317)
  const parsed = parseNestedSignature(NESTED_V2_6)
  t.not(typeof parsed, 'string', 'parses')
  t.match(parseNestedSignature(NESTED_V2_6.slice(0, -4) + '00bb'), /length/, 'a wrong length field is refused')
  t.match(parseNestedSignature(NESTED_V2_6 + '00'), /expected 317 bytes/, 'a longer signature is refused')
  t.end()
})

/** The body clob-client-v2's postOrder sends (8.3): keys in its order. */
function body(v: Vector, signature: string, orderType: string, postOnly = false, expiration = '0'): string {
  const o = v.order
  return JSON.stringify({ deferExec: false, postOnly, order: { salt: Number(o.salt),
    maker: o.maker === WALLET ? WALLET : ADDRESS, signer: o.signer === WALLET ? WALLET : ADDRESS, tokenId: o.tokenId,
    makerAmount: o.makerAmount, takerAmount: o.takerAmount, side: o.side === 0 ? 'BUY' : 'SELL',
    signatureType: o.signatureType, timestamp: o.timestamp, expiration, metadata: o.metadata, builder: o.builder,
    signature }, owner: OWNER, orderType })
}

const V2_1_BODY = '{"deferExec":false,"postOnly":false,"order":{"salt":12345,"maker":"0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A","signer":"0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A","tokenId":"123","makerAmount":"5000000","takerAmount":"10000000","side":"BUY","signatureType":0,"timestamp":"1700000000000","expiration":"0","metadata":"0x0000000000000000000000000000000000000000000000000000000000000000","builder":"0x0000000000000000000000000000000000000000000000000000000000000000","signature":"0x01a81a5eebf9c05e4174cba789a95efcd0596a209e11b3f631d2804fe39eed8432681168a7f0c2925b03fc136a574f734acd8630cb1b65ce55adfa9295cce0e31c"},"owner":"00000000-0000-4000-8000-000000000001","orderType":"GTC"}'

t.test('the bodies clob-client-v2 posts parse to the vectors\' orders and ids (8.3)', (t) => {
  t.equal(body(VECTORS[0]!, VECTORS[0]!.signature!, 'GTC'), V2_1_BODY, 'the body builder matches the observed V2-1 body')
  t.equal(V2_1_BODY.length, 678)
  const cases: [Vector, string, string, boolean, string, number][] = [
    [VECTORS[0]!, VECTORS[0]!.signature!, 'GTC', false, '0', 678],
    [VECTORS[1]!, VECTORS[1]!.signature!, 'GTD', false, '1700086400', 764],
    [VECTORS[2]!, VECTORS[2]!.signature!, 'GTC', true, '0', 761],
    [VECTORS[3]!, VECTORS[3]!.signature!, 'FOK', false, '0', 677],
    [VECTORS[5]!, NESTED_V2_6, 'GTC', false, '0', 1182],
  ]
  for (const [v, signature, orderType, postOnly, expiration, length] of cases) {
    const text = body(v, signature, orderType, postOnly, expiration)
    t.equal(text.length, length, `${v.name}: ${length} bytes`)
    const parsed = parseWireOrder(JSON.parse(text))
    t.strictSame(parsed.struct, { ...v.order, maker: v.order.maker.toLowerCase(), signer: v.order.signer.toLowerCase() },
      `${v.name}: the signed struct`)
    t.strictSame(parsed.amounts, { maker: BigInt(v.order.makerAmount), taker: BigInt(v.order.takerAmount),
      expiration: BigInt(expiration), feeRateBps: null }, `${v.name}: amounts; no fee rate; the unsigned expiration`)
    t.equal(parsed.orderType, orderType)
    t.equal(parsed.postOnly, postOnly)
    t.equal(toHex(orderDigest(parsed.struct, v.chainId, v.negRisk)), v.orderHash, `${v.name}: the order id`)
  }
  t.end()
})

t.test('the verifier: every V2 vector verifies under its market; V3 is order_version_mismatch', (t) => {
  for (const v of VECTORS.slice(0, 4)) {
    t.strictSame(verifyOrder({ order: v.order, signature: v.signature!, negRisk: v.negRisk }, v.chainId, null),
      { ok: true, orderId: v.orderHash }, v.name)
  }
  const v3 = VECTORS[4]!
  t.match(verifyOrder({ order: v3.order, signature: v3.signature!, negRisk: false }, 80002, null),
    { ok: false, check: 'signature-version', message: /^order_version_mismatch: /, context: { signedForVersion: 3 } },
    'a V3 order (same body as V2) is told apart and answered with the string clob-client-v2 retries on')
  const v21 = VECTORS[0]!
  t.match(verifyOrder({ order: v21.order, signature: v21.signature!, negRisk: true }, 80002, null),
    { ok: false, check: 'signature-domain' }, 'V2-1 on a neg-risk market: signed for the other exchange')
  t.match(verifyOrder({ order: v21.order, signature: v21.signature!, negRisk: false }, 137, null),
    { ok: false, check: 'signature-chain', context: { signedForChain: 80002 } }, 'V2-1 on chain 137: another chain')
  const tampered = { ...v21.order, timestamp: '1700000000001' }
  t.match(verifyOrder({ order: tampered, signature: v21.signature!, negRisk: false }, 80002, null),
    { ok: false, check: 'signature-signer' }, 'a changed timestamp: someone else')
  t.end()
})

t.test('the verifier: POLY_1271 (V2-6) verifies and names its EOA; the wallet must be registered to it', (t) => {
  const v = VECTORS[5]!
  t.strictSame(verifyOrder({ order: v.order, signature: NESTED_V2_6, negRisk: false }, 80002, null),
    { ok: true, orderId: v.orderHash, walletOwner: ADDRESS.toLowerCase() })
  t.match(verifyOrder({ order: v.order, signature: NESTED_V2_6, negRisk: true }, 80002, null),
    { ok: false, check: 'signature-domain' }, 'carried the regular exchange\'s separator on a neg-risk market')
  t.match(verifyOrder({ order: { ...v.order, salt: '1' }, signature: NESTED_V2_6, negRisk: false }, 80002, null),
    { ok: false, check: 'signature-nested', message: /contents hash/ }, 'contents of another order')
  t.match(verifyOrder({ order: v.order, signature: INNER_V2_6, negRisk: false }, 80002, null),
    { ok: false, check: 'signature-nested' }, 'a bare 65-byte signature is not a nested one')
  t.equal(checkSignatureType(v.order, () => false), null, 'type 3 with maker == signer passes the type rule')
  t.match(checkSignatureType({ ...v.order, maker: ADDRESS }, () => true), { ok: false, check: 'signature-type' },
    'type 3 needs maker == signer')
  t.match(checkWalletOwner(WALLET, ADDRESS.toLowerCase(), () => false),
    { ok: false, check: 'signature-type', message: /registers no deposit wallets/ })
  t.equal(checkWalletOwner(WALLET, ADDRESS.toLowerCase(),
    (wallet, owner) => wallet === WALLET.toLowerCase() && owner === ADDRESS.toLowerCase()), null,
  'a registered wallet passes')
  t.end()
})

t.test('L2 headers of a V2 body, the heartbeat HMAC, L1 on chain 80002 (8.4, 8.5)', (t) => {
  t.equal(l2Signature(SECRET, '1700000000', 'POST', '/order', V2_1_BODY), 'UEYKOFD4XjHsXBHSPQat7YDiTWmHwYTe8TJju1GevHs=')
  t.equal(l2Signature(SECRET, '1700000000', 'POST', '/v1/heartbeats', '{"heartbeat_id":""}'),
    'Lo3dDBherhokTgBet6EB-Y2SU-BTCx_ORN7FBkKMm3M=')
  const digest = clobAuthDigest({ address: ADDRESS, timestamp: '1700000000', nonce: '0', message: CLOB_AUTH_MESSAGE }, 80002)
  t.equal(signDigest(digest, KEY),
    '0xc13d536b3c1be873f03028017b077b07ed78a2e3c9adee256fbef84326f0fe764eb7e6568a47dd0dc06820a67988f9a7376ec6ead12ce03af435029e7e396ac41c')
  t.end()
})
