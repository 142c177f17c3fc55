/**
 * `npm run bench:sig`: workload 3 of ../shared/spec/benchmarks.md. The full check of a signed
 * order (EIP-712 digest: three keccaks, then secp256k1 recovery and the address comparison) per
 * second: on one thread with plain recovery (every order from a different signer), on one thread
 * with the signer cache (a market maker: one signer, precomputed key), and in the piscina pool at
 * 1..N threads with and without the cache. Orders are signed before timing starts.
 *
 * Flags: --quick (shorter timings), --json (last line is a JSON object), --seconds N.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { availableParallelism, cpus } from 'node:os'
import { orderDigest, type OrderStruct } from '../src/crypto/eip712.js'
import { signDigest } from '../src/crypto/signature.js'
import { addressOfPublicKey } from '../src/crypto/address.js'
import { SignerCache } from '../src/crypto/signer-cache.js'
import { verifyOrder, type OrderToVerify } from '../src/crypto/verify-order.js'
import { VerifierPool } from '../src/crypto/verifier-pool.js'
import { SIGNER_CACHE_ENTRIES_MAX, SIGNER_HOT_AFTER } from '../src/limits.js'
import { BenchFlags } from './flags.js'

const CHAIN = 80002
const log = (line: string): void => void process.stderr.write(line + '\n')

function keyOf(n: number): Uint8Array {
  const key = new Uint8Array(32)
  key[0] = 1
  key[28] = (n >>> 24) & 0xff
  key[29] = (n >>> 16) & 0xff
  key[30] = (n >>> 8) & 0xff
  key[31] = n & 0xff
  return key
}

/** `count` orders signed by `signers` different keys, round robin. */
function signedOrders(count: number, signers: number): OrderToVerify[] {
  const keys = Array.from({ length: signers }, (_, i) => keyOf(i + 1))
  const addresses = keys.map((key) => addressOfPublicKey(secp256k1.getPublicKey(key, false)))
  return Array.from({ length: count }, (_, i) => {
    const signer = addresses[i % signers]!
    const order: OrderStruct = { salt: String(1_000_000 + i), maker: signer, signer, taker: '0x' + '0'.repeat(40),
      tokenId: '71321045679252212594626385532706912750332728571942532289631379312455583992563', makerAmount: String(1_000_000 + i),
      takerAmount: '2000000', expiration: '0', nonce: '0', feeRateBps: '0', side: (i % 2) as 0 | 1, signatureType: 0 }
    return { order, negRisk: false, signature: signDigest(orderDigest(order, CHAIN, false), keys[i % signers]!) }
  })
}

/** Verifications per second on this thread, for `seconds`. */
function singleThread(orders: readonly OrderToVerify[], cache: SignerCache | null, seconds: number): number {
  let done = 0
  const start = performance.now()
  const end = start + seconds * 1000
  while (performance.now() < end) {
    for (let i = 0; i < 50; i++) {
      const verdict = verifyOrder(orders[done % orders.length]!, CHAIN, cache)
      if (!verdict.ok) throw new Error('a benchmark order failed to verify')
      done++
    }
  }
  return done / ((performance.now() - start) / 1000)
}

async function poolRate(orders: readonly OrderToVerify[], threads: number, useCache: boolean, total: number): Promise<number> {
  const pool = new VerifierPool({ chainId: CHAIN, threads, useCache })
  // Warm up: start the threads and make the market maker's key hot in each of them.
  await Promise.all(orders.slice(0, Math.min(orders.length, 400)).map((order) => pool.verify(order)))
  const start = performance.now()
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < total) {
      const order = orders[next++ % orders.length]!
      const verdict = await pool.verify(order)
      if (!verdict.ok) throw new Error('a benchmark order failed to verify')
    }
  }
  await Promise.all(Array.from({ length: 256 }, lane))
  const rate = total / ((performance.now() - start) / 1000)
  await pool.close()
  return rate
}

async function main(): Promise<void> {
  const flags = new BenchFlags()
  const quick = flags.quick
  const seconds = flags.number('--seconds', quick ? 1.5 : 4)
  const cores = availableParallelism()
  log(`signing orders (many signers, and one market maker)...`)
  const manySigners = signedOrders(512, 512)
  const oneSigner = signedOrders(512, 1)

  const plain = singleThread(manySigners, null, seconds)
  log(`one thread, plain recovery (every order a different signer): ${Math.round(plain)} /s`)
  const cache = new SignerCache({ entriesMax: SIGNER_CACHE_ENTRIES_MAX, hotAfter: SIGNER_HOT_AFTER })
  singleThread(oneSigner, cache, 0.2)
  const cached = singleThread(oneSigner, cache, seconds)
  log(`one thread, signer cache (one market maker): ${Math.round(cached)} /s, ${(cached / plain).toFixed(2)} x plain`)

  const total = Math.round(plain * seconds * 1.5)
  const pools: { threads: number; cached: number; plain: number }[] = []
  for (let threads = 1; threads <= cores; threads++) {
    const withCache = await poolRate(oneSigner, threads, true, total * 3)
    const withoutCache = await poolRate(manySigners, threads, false, total)
    pools.push({ threads, cached: withCache, plain: withoutCache })
    log(`pool, ${threads} thread(s): ${Math.round(withCache)} /s with the cache (one market maker), ${Math.round(withoutCache)} /s plain`)
  }
  const best = pools.reduce((a, b) => (b.cached > a.cached ? b : a))
  const report = {
    plain_recover_per_s: Math.round(plain),
    cached_verify_per_s: Math.round(cached),
    cache_speedup: Number((cached / plain).toFixed(2)),
    pool_per_s: Math.round(best.cached),
    pool_plain_per_s: Math.round(pools.reduce((a, b) => Math.max(a, b.plain), 0)),
    workers: best.threads,
    pools,
    backend: 'noble',
  }
  log(`\n# Signature verification (workload 3)\n\nCommand: \`npm run bench:sig${quick ? ' -- --quick' : ''}\`; ` +
    `${cores} cores (${cpus()[0]?.model ?? ''}), Node ${process.version}; backend @noble/curves; ${seconds} s per figure.\n\n` +
    `Plain recovery on one thread: ${report.plain_recover_per_s}/s; cached signer: ${report.cached_verify_per_s}/s ` +
    `(${report.cache_speedup} x, target >= 3 x: ${report.cache_speedup >= 3 ? 'met' : 'NOT met'}); ` +
    `pool: ${report.pool_per_s}/s with ${report.workers} thread(s) and the cache, ${report.pool_plain_per_s}/s plain.\n`)
  if (flags.json) {
    const { pools: _pools, ...line } = report
    console.log(JSON.stringify(line))
  }
}

await main()
