/**
 * The signer cache under a flood of new signers (issue 14, finding 2): the least-recently-used
 * cache gave a table to every signer seen `hotAfter` times, so wallets that cost nothing, each
 * sending a few orders, evicted the market makers' tables and kept the pool threads building
 * tables (RSS 240 MB -> 1.68 GB, verification 1 500 -> 400 orders/s). Now uses are counted in a
 * bounded table that survives eviction, a table is admitted only over a less used one, and
 * builds are rate-limited.
 */
import t from 'tap'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { addressOfPublicKey } from '../../../src/crypto/address.js'
import { fromHex } from '../../../src/crypto/hex.js'
import { parseSignature, signDigest, type ParsedSignature } from '../../../src/crypto/signature.js'
import { SignerCache } from '../../../src/crypto/signer-cache.js'

interface Signer {
  readonly address: string
  readonly key: Uint8Array
}

function signerOf(n: number): Signer {
  const key = fromHex('0x' + (n + 1).toString(16).padStart(64, '0'))
  return { key, address: addressOfPublicKey(secp256k1.getPublicKey(key, false)) }
}

let salt = 0
/** Verifies a fresh digest signed by `signer`; the answer must be true. */
function use(cache: SignerCache, signer: Signer): boolean {
  const digest = new Uint8Array(32)
  new DataView(digest.buffer).setUint32(28, ++salt)
  digest[0] = 0x5a
  const signature = parseSignature(signDigest(digest, signer.key)) as ParsedSignature
  return cache.verify(signer.address, digest, signature)
}

t.test('a flood of new signers keeps neither the makers from their tables nor the thread busy building', (t) => {
  const cache = new SignerCache({ entriesMax: 4, hotAfter: 3, buildsPerSecond: 1_000 })
  const makers = [0, 1, 2, 3].map(signerOf)
  for (let round = 0; round < 6; round++) for (const maker of makers) t.equal(use(cache, maker), true)
  t.equal(cache.size, 4, 'the four makers have tables')
  const buildsBefore = cache.builds
  for (let n = 100; n < 112; n++) {
    const newcomer = signerOf(n)
    for (let i = 0; i < 4; i++) use(cache, newcomer)
  }
  t.equal(cache.builds, buildsBefore, 'no table built for a signer used less than the makers')
  const hitsBefore = cache.hits
  for (const maker of makers) use(cache, maker)
  t.equal(cache.hits - hitsBefore, 4, 'every maker still verifies from its table')
  t.end()
})

t.test('a signer used more than a table holder takes its place', (t) => {
  const cache = new SignerCache({ entriesMax: 1, hotAfter: 2, buildsPerSecond: 1_000 })
  const [old, busy] = [signerOf(7), signerOf(8)]
  for (let i = 0; i < 3; i++) use(cache, old)
  for (let i = 0; i < 5; i++) use(cache, busy)
  const hitsBefore = cache.hits
  use(cache, busy)
  t.equal(cache.hits - hitsBefore, 1, 'the busier signer got the one table')
  t.equal(cache.size, 1)
  t.end()
})

t.test('table builds are rate-limited, and counted signers bounded', (t) => {
  let nowMs = 0
  const cache = new SignerCache({ entriesMax: 8, hotAfter: 2, buildsPerSecond: 1, countedMax: 16, nowMs: () => nowMs })
  for (let n = 20; n < 23; n++) for (let i = 0; i < 2; i++) use(cache, signerOf(n))
  t.equal(cache.builds, 1, 'one build in the first second for three hot signers')
  nowMs += 1_000
  use(cache, signerOf(21))
  t.equal(cache.builds, 2, 'the next one a second later')
  for (let n = 200; n < 260; n++) use(cache, signerOf(n))
  t.ok(cache.counted <= 16, `counted signers stay within the bound (${cache.counted})`)
  t.end()
})
