/**
 * The verification pool: orders verified on piscina threads, batched per event-loop turn, with
 * the same verdicts as in-thread verification, and an immediate SIGNATURE_POOL_BUSY when its
 * bounded queue is full.
 */
import t from 'tap'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { VerifierPool } from '../../../src/crypto/verifier-pool.js'
import { orderDigest, type OrderStruct } from '../../../src/crypto/eip712.js'
import { fromHex, toHex } from '../../../src/crypto/hex.js'
import { signDigest } from '../../../src/crypto/signature.js'
import { addressOfPublicKey } from '../../../src/crypto/address.js'
import { PredexError } from '../../../src/errors.js'
import { VERIFIER_THREAD_NICE } from '../../../src/limits.js'
import { readFileSync, readdirSync } from 'node:fs'

const KEY = fromHex('0x' + '44'.repeat(32))
const SIGNER = addressOfPublicKey(secp256k1.getPublicKey(KEY, false))

function order(salt: number): OrderStruct {
  return { salt: String(salt), maker: SIGNER, signer: SIGNER, taker: '0x' + '0'.repeat(40), tokenId: '5', makerAmount: '1000000',
    takerAmount: '2000000', expiration: '0', nonce: '0', feeRateBps: '0', side: 1, signatureType: 0 }
}

/**
 * The pools of these tests run their threads at nice 0: at the default (10) the suite's other
 * files, run beside this one, came first, and the file took 72-85 s instead of 25. The last test
 * checks the default itself.
 */
const QUICK = { chainId: 80002, nice: 0 } as const

t.test('verdicts from the pool, batched', async (t) => {
  const pool = new VerifierPool({ ...QUICK, threads: 2 })
  t.teardown(() => pool.close())
  const orders = Array.from({ length: 40 }, (_, i) => order(i + 1))
  const verdicts = await Promise.all(orders.map((o, i) => pool.verify({
    order: o, negRisk: false,
    // Every fifth is signed for the wrong exchange.
    signature: signDigest(orderDigest(o, 80002, i % 5 === 4), KEY),
  })))
  verdicts.forEach((verdict, i) => {
    if (i % 5 === 4) t.match(verdict, { ok: false, check: 'signature-domain' }, `order ${i} refused`)
    else t.same(verdict, { ok: true, orderId: toHex(orderDigest(orders[i]!, 80002, false)) }, `order ${i}`)
  })
})

t.test("orders of one event-loop turn go as one task, even from callbacks apart (not one task per request)", async (t) => {
  const pool = new VerifierPool({ ...QUICK, threads: 2 })
  t.teardown(() => pool.close())
  const verify = (salt: number): Promise<unknown> => {
    const o = order(salt)
    return pool.verify({ order: o, negRisk: false, signature: signDigest(orderDigest(o, 80002, false), KEY) })
  }
  // Two requests' callbacks of one turn: each ends with its microtasks run, as uWS's callbacks do.
  const first = verify(1)
  await Promise.resolve()
  const second = verify(2)
  await Promise.resolve()
  // This immediate runs after the pool's dispatch (queued first), before any answer can be read.
  const tasks = await new Promise<number>((resolve) => setImmediate(() => resolve(pool.tasksRunningCount)))
  t.equal(tasks, 1, 'one task carries both orders')
  await Promise.all([first, second])
})

t.test('a full queue refuses at once', async (t) => {
  const pool = new VerifierPool({ ...QUICK, threads: 1, batchMax: 1, pendingMax: 2, lightReserve: 0 })
  t.teardown(() => pool.close())
  const o = order(99)
  const signature = signDigest(orderDigest(o, 80002, false), KEY)
  const results = await Promise.allSettled(Array.from({ length: 50 }, () => pool.verify({ order: o, signature, negRisk: false })))
  const busy = results.filter((r) => r.status === 'rejected' && r.reason instanceof PredexError && r.reason.code === 'SIGNATURE_POOL_BUSY')
  const verified = results.filter((r) => r.status === 'fulfilled' && r.value.ok)
  t.equal(busy.length, 48, 'all but the two pending orders refused as busy')
  const refusal = (busy[0] as PromiseRejectedResult).reason as PredexError
  t.same(refusal.context, { pendingMax: 2, retryAfterSeconds: 1 }, 'with the bound and the wait')
  t.equal(busy.length + verified.length, 50, 'every other one verified')
})

const OTHER_KEY = fromHex('0x' + '55'.repeat(32))
const OTHER = addressOfPublicKey(secp256k1.getPublicKey(OTHER_KEY, false))

/** Verifies `count` orders for `signer`, fairness key `key`; resolves each into `done` as it comes back. */
function flood(pool: VerifierPool, key: string, privateKey: Uint8Array, signer: string, count: number, first: number,
  done: string[]): Promise<unknown>[] {
  return Array.from({ length: count }, (_, i) => {
    const o = { ...order(first + i), maker: signer, signer }
    return pool.verify({ order: o, signature: signDigest(orderDigest(o, 80002, false), privateKey), negRisk: false },
      key).then((verdict) => { done.push(`${key}:${verdict.ok}`) }, () => { done.push(`${key}:busy`) })
  })
}

t.test("a flooding key's backlog does not stand in front of another key's order", async (t) => {
  const pool = new VerifierPool({ ...QUICK, threads: 1, batchMax: 8, pendingMax: 1_024, perKeyMax: 1_024 })
  t.teardown(() => pool.close())
  const done: string[] = []
  const flooding = flood(pool, 'flooder', KEY, SIGNER, 400, 1_000, done)
  // The other trader's order comes a moment later, behind 400 of the flooder's.
  await new Promise((resolve) => setTimeout(resolve, 5))
  await Promise.all([...flood(pool, 'trader', OTHER_KEY, OTHER, 1, 5_000, done), ...flooding])
  const position = done.indexOf('trader:true')
  t.ok(position >= 0, "the trader's order was verified")
  t.ok(position < 40, `it was answered ${position}th, not after the flooder's backlog (400 queued before it)`)
})

t.test('one key holds at most perKeyMax pending orders; others still get in', async (t) => {
  const pool = new VerifierPool({ ...QUICK, threads: 1, batchMax: 8, pendingMax: 100, perKeyMax: 30, lightReserve: 0 })
  t.teardown(() => pool.close())
  const done: string[] = []
  await Promise.all([...flood(pool, 'flooder', KEY, SIGNER, 50, 1, done), ...flood(pool, 'trader', OTHER_KEY, OTHER, 5, 100, done)])
  t.equal(done.filter((d) => d === 'flooder:busy').length, 20, "the flooder's orders past its 30 refused")
  t.equal(done.filter((d) => d === 'trader:true').length, 5, "the other key's orders all verified")
})

t.test('a batch is admitted whole or refused whole', async (t) => {
  const pool = new VerifierPool({ ...QUICK, threads: 1, batchMax: 8, pendingMax: 20, perKeyMax: 12, lightReserve: 0 })
  t.teardown(() => pool.close())
  t.doesNotThrow(() => pool.admit(12, 'a'), 'a batch within both bounds is admitted')
  t.throws(() => pool.admit(13, 'a'), { code: 'SIGNATURE_POOL_BUSY', context: { retryAfterSeconds: 1 } },
    'a batch larger than what one key may have pending is refused whole')
  const pending = flood(pool, 'b', OTHER_KEY, OTHER, 12, 1, [])
  t.throws(() => pool.admit(9, 'a'), { code: 'SIGNATURE_POOL_BUSY' }, 'past the pool-wide bound, refused whole')
  t.doesNotThrow(() => pool.admit(8, 'a'), 'what still fits is admitted')
  await Promise.all(pending)
})

t.test('when flooders fill the pool, a light key still gets in (the reserve); a heavy one does not', async (t) => {
  const pool = new VerifierPool({ ...QUICK, threads: 1, batchMax: 8, pendingMax: 40, perKeyMax: 40,
    lightReserve: 10 })
  t.teardown(() => pool.close())
  const done: string[] = []
  const flooding = flood(pool, 'flooder', KEY, SIGNER, 60, 1, done)
  const light = flood(pool, 'trader', OTHER_KEY, OTHER, 5, 100, done)
  await Promise.all([...flooding, ...light])
  t.equal(done.filter((d) => d === 'flooder:busy').length, 20, 'the flooder is refused past the pool-wide 40')
  t.equal(done.filter((d) => d === 'trader:true').length, 5, 'the light key, arriving with the pool full, is verified')
})

t.test('held, the pool hands no task to its threads; released, it verifies what waited', async (t) => {
  const pool = new VerifierPool({ ...QUICK, threads: 1 })
  t.teardown(() => pool.close())
  const release = pool.hold()
  const o = order(7)
  const verdict = pool.verify({ order: o, negRisk: false, signature: signDigest(orderDigest(o, 80002, false), KEY) })
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.same([pool.queueSize, pool.tasksRunningCount], [1, 0], 'the order waits, counted, with no task running')
  release()
  t.match(await verdict, { ok: true }, 'verified once released')
  t.equal(pool.queueSize, 0)
})

t.test('the pool\'s threads run below the main thread\'s priority (Linux: a nice value per thread)', async (t) => {
  const niceOf = (tid: string): number => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) // field 19: nice
  }
  const before = new Set(readdirSync('/proc/self/task'))
  const pool = new VerifierPool({ chainId: 80002, threads: 2 })
  t.teardown(() => pool.close())
  await pool.verify({ order: order(1), negRisk: false, signature: signDigest(orderDigest(order(1), 80002, false), KEY) })
  const lowered = readdirSync('/proc/self/task').filter((tid) => !before.has(tid) && niceOf(tid) === VERIFIER_THREAD_NICE)
  t.ok(lowered.length >= 1, `${lowered.length} new threads at nice ${VERIFIER_THREAD_NICE} (the pool's)`)
  t.equal(niceOf(String(process.pid)), 0, 'the main thread keeps nice 0')
})

// A CI run (2026-11-29) aborted two test processes as they ended with Node's "FATAL ERROR:
// v8::Module::IsGraphAsync must be used on an instantiated module", in a pool thread's require of
// its module (piscina/dist/worker.js): a pool closed while its threads were still loading was
// terminating them mid-load. close() now waits (a bounded time) for every thread to have started.
t.test('close waits until every thread has started (none is terminated while it loads)', async (t) => {
  for (let round = 0; round < 3; round++) {
    const started: number[] = []
    const pool = new VerifierPool({ ...QUICK, threads: 2, onThread: (tid) => started.push(tid) })
    await pool.close()
    t.equal(started.length, 2, `round ${round}: both threads had started when close returned`)
  }
})
