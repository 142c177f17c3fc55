/**
 * `npm run bench:sig`: workload 3 of ../shared/spec/benchmarks.md. The full check of a signed
 * order (EIP-712 digest: three keccaks, then secp256k1 recovery and the address comparison) per
 * second: on one thread with plain recovery (every order from a different signer), on one thread
 * with the signer cache (a market maker: one signer, precomputed key), and in the piscina pool at
 * 1..N threads with and without the cache. Then the native backend (libsecp256k1, when its
 * binding loads): the same full check on one thread and in the pool, beside the raw binding's
 * recovery on the same signatures (the ceiling: no digest, no parsing, no address).
 * Orders are signed before timing starts.
 *
 * Flags: --quick (shorter timings), --json (last line is a JSON object), --seconds N.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { createRequire } from 'node:module'
import { availableParallelism, cpus } from 'node:os'
import { orderDigest, type OrderStruct } from '../src/crypto/eip712.js'
import { signDigest } from '../src/crypto/signature.js'
import { installSigBackend, type SigBackend } from '../src/crypto/sig-backend.js'
import { fromHex } from '../src/crypto/hex.js'
import { addressOfPublicKey } from '../src/crypto/address.js'
import { SignerCache } from '../src/crypto/signer-cache.js'
import { verifyOrder, type OrderToVerify } from '../src/crypto/verify-order.js'
import { VerifierPool } from '../src/crypto/verifier-pool.js'
import { SIGNER_CACHE_ENTRIES_MAX, SIGNER_HOT_AFTER } from '../src/limits.js'
import { BenchFlags } from './flags.js'
import { histogram, TimelineRecorder, type LatencyHistogram, type Timeline } from './series.js'

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

/**
 * Verifications per second on this thread, for `seconds`; each check's time (us) joins `samplesUs`
 * when given. Every figure that is compared with another is timed the same way: two clock reads
 * per check, under 0.2 % of the fastest check here (native, about 50 us).
 */
function singleThread(orders: readonly OrderToVerify[], cache: SignerCache | null, seconds: number,
  samplesUs: number[] = []): number {
  let done = 0
  const start = performance.now()
  const end = start + seconds * 1000
  while (performance.now() < end) {
    for (let i = 0; i < 50; i++) {
      const checkStart = performance.now()
      const verdict = verifyOrder(orders[done % orders.length]!, CHAIN, cache)
      samplesUs.push((performance.now() - checkStart) * 1000)
      if (!verdict.ok) throw new Error('a benchmark order failed to verify')
      done++
    }
  }
  return done / ((performance.now() - start) / 1000)
}

/** The charts' data (bench/series.ts): per-check time on one thread, and the pools at every core over time. */
const series: { histograms: LatencyHistogram[]; timelines: Timeline[] } = { histograms: [], timelines: [] }

async function poolRate(orders: readonly OrderToVerify[], threads: number, useCache: boolean, total: number,
  backend: SigBackend = 'noble'): Promise<number> {
  const label = `pool, ${threads} thread(s), ${backend}${useCache ? ', signer cache' : ', plain'}`
  const pool = new VerifierPool({ chainId: CHAIN, threads, useCache, backend })
  // Warm up: start the threads and make the market maker's key hot in each of them.
  // In halves: one key may have VERIFY_PENDING_PER_KEY_MAX (256) orders in the pool at once.
  for (const half of [orders.slice(0, 200), orders.slice(200, 400)]) await Promise.all(half.map((o) => pool.verify(o)))
  // Quarter seconds: the pool answers in bursts, and at some hundred checks a second 0.1 s is mostly zeros.
  const timeline = new TimelineRecorder(label, 0.25)
  const start = performance.now()
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < total) {
      const order = orders[next++ % orders.length]!
      const verdict = await pool.verify(order)
      timeline.mark()
      if (!verdict.ok) throw new Error('a benchmark order failed to verify')
    }
  }
  await Promise.all(Array.from({ length: 256 }, lane))
  const rate = total / ((performance.now() - start) / 1000)
  await pool.close()
  if (threads === availableParallelism()) series.timelines.push(timeline.done())
  return rate
}

type RawBinding = {
  ecdsaRecover(signature: Uint8Array, recovery: number, digest: Uint8Array, compressed: boolean): Uint8Array
}

/**
 * The native backend's full checks and the raw binding's recoveries (the same signatures, bytes
 * made beforehand) per second on this thread, interleaved in chunks of CHUNK over 2 x `seconds`:
 * on a shared machine two separate windows saw different loads (one unchanged build gave 0.54,
 * 0.94 and 1.39 in three runs), while chunks side by side see the same. Each rate is its own
 * checks over its own chunks' time.
 */
function nativeAgainstRaw(orders: readonly OrderToVerify[], seconds: number): { checked: number; raw: number } {
  const CHUNK = 100
  const binding = createRequire(import.meta.url)('secp256k1/bindings') as RawBinding
  const inputs = orders.map((o) => {
    const bytes = fromHex(o.signature)
    return { compact: bytes.subarray(0, 64), recovery: bytes[64]! - 27, digest: orderDigest(o.order, CHAIN, false) }
  })
  const checkedUs: number[] = []
  const rawUs: number[] = []
  let checkedMs = 0
  let rawMs = 0
  let next = 0
  const end = performance.now() + 2 * seconds * 1000
  while (performance.now() < end) {
    const from = next
    let chunkStart = performance.now()
    for (let i = 0; i < CHUNK; i++) {
      const checkStart = performance.now()
      const verdict = verifyOrder(orders[(from + i) % orders.length]!, CHAIN, null)
      checkedUs.push((performance.now() - checkStart) * 1000)
      if (!verdict.ok) throw new Error('a benchmark order failed to verify')
    }
    checkedMs += performance.now() - chunkStart
    chunkStart = performance.now()
    for (let i = 0; i < CHUNK; i++) {
      const input = inputs[(from + i) % inputs.length]!
      const checkStart = performance.now()
      binding.ecdsaRecover(input.compact, input.recovery, input.digest, false)
      rawUs.push((performance.now() - checkStart) * 1000)
    }
    rawMs += performance.now() - chunkStart
    next += CHUNK
  }
  series.histograms.push(histogram('native backend full check, one thread', 'us', checkedUs))
  series.histograms.push(histogram('raw libsecp256k1 recovery, one thread', 'us', rawUs))
  return { checked: checkedUs.length / (checkedMs / 1000), raw: rawUs.length / (rawMs / 1000) }
}

/** The native backend's figures, or zeros when its binding does not load here. */
async function nativeFigures(orders: readonly OrderToVerify[], seconds: number, total: number):
  Promise<{ native_verify_per_s: number; raw_libsecp256k1_per_s: number; pool_native_per_s: number }> {
  try {
    installSigBackend('native')
  } catch (error) {
    log(`native backend: not here (${(error as Error).message}): its figures are 0`)
    return { native_verify_per_s: 0, raw_libsecp256k1_per_s: 0, pool_native_per_s: 0 }
  }
  const { checked, raw } = nativeAgainstRaw(orders, seconds)
  installSigBackend('noble')
  let pooled = 0
  for (let threads = 1; threads <= availableParallelism(); threads++) {
    pooled = Math.max(pooled, await poolRate(orders, threads, false, total, 'native'))
  }
  log(`native backend: ${Math.round(checked)} /s full checks on one thread, raw libsecp256k1 ${Math.round(raw)} /s ` +
    `(${(checked / raw).toFixed(2)} x, target >= 0.9 x), pool ${Math.round(pooled)} /s`)
  return { native_verify_per_s: Math.round(checked), raw_libsecp256k1_per_s: Math.round(raw),
    pool_native_per_s: Math.round(pooled) }
}

async function main(): Promise<void> {
  const flags = new BenchFlags()
  const quick = flags.quick
  const seconds = flags.number('--seconds', quick ? 1.5 : 4)
  const cores = availableParallelism()
  log(`signing orders (many signers, and one market maker)...`)
  const manySigners = signedOrders(512, 512)
  const oneSigner = signedOrders(512, 1)

  const plainUs: number[] = []
  const plain = singleThread(manySigners, null, seconds, plainUs)
  series.histograms.push(histogram('noble, plain recovery (many signers), one thread', 'us', plainUs))
  log(`one thread, plain recovery (every order a different signer): ${Math.round(plain)} /s`)
  const cache = new SignerCache({ entriesMax: SIGNER_CACHE_ENTRIES_MAX, hotAfter: SIGNER_HOT_AFTER })
  singleThread(oneSigner, cache, 0.2)
  const cachedUs: number[] = []
  const cached = singleThread(oneSigner, cache, seconds, cachedUs)
  series.histograms.push(histogram('noble, signer cache (one market maker), one thread', 'us', cachedUs))
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
  const native = await nativeFigures(manySigners, seconds, total * 20)
  const report = {
    plain_recover_per_s: Math.round(plain),
    cached_verify_per_s: Math.round(cached),
    cache_speedup: Number((cached / plain).toFixed(2)),
    pool_per_s: Math.round(best.cached),
    pool_plain_per_s: Math.round(pools.reduce((a, b) => Math.max(a, b.plain), 0)),
    workers: best.threads,
    pools,
    backend: 'noble',
    ...native,
    native_to_raw: native.raw_libsecp256k1_per_s === 0 ? 0
      : Number((native.native_verify_per_s / native.raw_libsecp256k1_per_s).toFixed(2)),
  }
  log(`\n# Signature verification (workload 3)\n\nCommand: \`npm run bench:sig${quick ? ' -- --quick' : ''}\`; ` +
    `${cores} cores (${cpus()[0]?.model ?? ''}), Node ${process.version}; backend @noble/curves; ${seconds} s per figure.\n\n` +
    `Plain recovery on one thread: ${report.plain_recover_per_s}/s; cached signer: ${report.cached_verify_per_s}/s ` +
    `(${report.cache_speedup} x, target >= 3 x: ${report.cache_speedup >= 3 ? 'met' : 'NOT met'}); ` +
    `pool: ${report.pool_per_s}/s with ${report.workers} thread(s) and the cache, ${report.pool_plain_per_s}/s plain.\n` +
    `Native (libsecp256k1): ${report.native_verify_per_s}/s full checks on one thread against the raw binding's ` +
    `${report.raw_libsecp256k1_per_s}/s (${report.native_to_raw} x, target >= 0.9 x); pool ${report.pool_native_per_s}/s.\n`)
  if (flags.json) {
    const { pools: _pools, ...line } = report
    console.log(JSON.stringify({ ...line, series }))
  }
}

await main()
