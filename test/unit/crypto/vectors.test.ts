/**
 * The published test vectors of Polymarket's wire format (reference sections 2 and 3): the
 * ClobAuth digest and signature, the order hash and signature under both exchange domains, and
 * the L2 HMACs. Each is computed by Predex's own code and compared with the reference.
 */
import { createHmac } from 'node:crypto'
import t from 'tap'
import { clobAuthDigest, orderDigest, CLOB_AUTH_MESSAGE, type OrderStruct } from '../../../src/crypto/eip712.js'
import { fromHex, toHex } from '../../../src/crypto/hex.js'
import { parseSignature, recoverAddress, signDigest } from '../../../src/crypto/signature.js'
import { addressOfPublicKey, checksumAddress } from '../../../src/crypto/address.js'
import { l2Signature } from '../../../src/crypto/hmac.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'

const KEY = fromHex('0x' + '11'.repeat(32))
const ADDRESS = '0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A'

t.test('the key 0x11..11 is the address of the vectors', (t) => {
  const address = addressOfPublicKey(secp256k1.getPublicKey(KEY, false))
  t.equal(address, ADDRESS.toLowerCase())
  t.equal(checksumAddress(address), ADDRESS, 'EIP-55 checksum form')
  t.end()
})

t.test('ClobAuth (L1) digest and signature', (t) => {
  const digest = clobAuthDigest({ address: ADDRESS, timestamp: '1700000000', nonce: '0', message: CLOB_AUTH_MESSAGE }, 137)
  t.equal(toHex(digest), '0x171589dd46503f2247dc695a4eed9fbf0f1fbe56f418ee3b9a0b60de26f52eab')
  const signature = signDigest(digest, KEY)
  t.equal(signature, '0x0f08c184141f23f61012ba15fef7303dff47a1da48c10ae8a6737eff59618f6e568b2868fedf252be3eb6e80f3a5f09bfdf609cd8f1c9725f9862742b33dc5fc1b')
  t.equal(recoverAddress(digest, parseSignature(signature) as Exclude<ReturnType<typeof parseSignature>, string>), ADDRESS.toLowerCase())
  t.end()
})

const ORDER: OrderStruct = {
  salt: '12345', maker: ADDRESS, signer: ADDRESS, taker: '0x' + '0'.repeat(40), tokenId: '123',
  makerAmount: '5000000', takerAmount: '10000000', expiration: '0', nonce: '0', feeRateBps: '0', side: 0, signatureType: 0,
}

t.test('order hash and signature under the exchange and neg-risk domains', (t) => {
  const exchange = orderDigest(ORDER, 137, false)
  t.equal(toHex(exchange), '0x82021a2ede3f548f5b56b0fc116f5d280937b7b3570a699b7504c93bf44e26ac')
  t.equal(signDigest(exchange, KEY), '0x00db3671d59cfa5ec2b7bfdad5180692993d1cb6349e9061a6639c8c5b950045688b6c82855ab73b17ec2241f3f0f955fdfd85ae65e33032842b0e6673ac61eb1b')
  const negRisk = orderDigest(ORDER, 137, true)
  t.equal(toHex(negRisk), '0xe5981de4ac1bdf8a104c200b967273d6034d74cf2af95814267433b436933344')
  t.equal(signDigest(negRisk, KEY), '0x492aed09343c99ae5ca301a015e9604d29d9bde4ffd0b7d17e28e6dd153b8a153c7fd50626ef8b4d84c17fc53c7e89e5926b0f068fba6e3b00e8be817a5cf4301c')
  t.end()
})

t.test('L2 HMAC', (t) => {
  const secret = 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI='
  t.equal(l2Signature(secret, '1700000000', 'GET', '/data/orders', ''), 'vNkgXDS1sUHHCyN3pBe-_WOl-3EI_Q76WWBN4UvFwws=')
  t.equal(l2Signature(secret, '1700000000', 'DELETE', '/order', '{"orderID":"0xabc"}'), 'Kead7AADq9EmBfHHhl8gSltDy9EvPTpHkV1KGCnH2YU=')
  const body = '{"deferExec":false,"order":{"salt":12345,"maker":"0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A",' +
    '"signer":"0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A","taker":"0x0000000000000000000000000000000000000000",' +
    '"tokenId":"123","makerAmount":"5000000","takerAmount":"10000000","side":"BUY","expiration":"0","nonce":"0",' +
    '"feeRateBps":"0","signatureType":0,"signature":"0x00db3671d59cfa5ec2b7bfdad5180692993d1cb6349e9061a6639c8c5b950045' +
    '688b6c82855ab73b17ec2241f3f0f955fdfd85ae65e33032842b0e6673ac61eb1b"},"owner":"00000000-0000-4000-8000-000000000001",' +
    '"orderType":"GTC","postOnly":false}'
  t.equal(l2Signature(secret, '1700000000', 'POST', '/order', body), '6N51qQlI-Y00W1PsFWf48z4nZKdXPuFpozOqj-z1Jq0=')
  t.equal(l2Signature(secret, '1700000000', 'POST', '/order', Buffer.from(body)), '6N51qQlI-Y00W1PsFWf48z4nZKdXPuFpozOqj-z1Jq0=', 'raw bytes')
  t.equal(l2Signature(secret.replace(/\+/g, '-').replace(/\//g, '_'), '1700000000', 'get', '/data/orders', ''),
    'vNkgXDS1sUHHCyN3pBe-_WOl-3EI_Q76WWBN4UvFwws=', 'url-safe secret, lower-case method')
  t.end()
})

t.test('the L2 signature with its secret decoded once is the HMAC of the decoded secret, in clob-client\'s alphabet',
  (t) => {
    const seed = Number(process.env.SEED ?? Date.now() % 100_000)
    t.comment(`seed ${seed}`)
    let state = seed
    const next = (n: number): number => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) % n
    for (let i = 0; i < 200; i++) {
      const bytes = Buffer.from(Array.from({ length: 32 }, () => next(256)))
      const secret = bytes.toString(i % 2 === 0 ? 'base64url' : 'base64')
      const body = 'x'.repeat(next(300))
      const timestamp = String(1_700_000_000 + i)
      const reference = createHmac('sha256', bytes).update(`${timestamp}POST/order${body}`).digest('base64')
        .replace(/\+/g, '-').replace(/\//g, '_')
      t.equal(l2Signature(secret, timestamp, 'POST', '/order', body), reference, 'decoded')
      t.equal(l2Signature(secret, timestamp, 'POST', '/order', body), reference, 'and again, from the decoded secret')
    }
    t.end()
  })
