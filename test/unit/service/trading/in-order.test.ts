/**
 * InOrder (src/service/trading/in-order.ts), on its own: commits are called in the order of `run` calls
 * whatever order the prepares finish in (seeded random delays), a failed prepare skips its commit
 * without holding up the next, each commit is called once the one before it has been *called*
 * (not finished: requests stay pipelined), and prepares beyond the weight bound wait their turn.
 */
import t from 'tap'
import { InOrder } from '../../../../src/service/trading/in-order.js'

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function randomOf(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = Math.imul(state ^ (state >>> 15), 1 | state)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

t.test('commits in run order, whatever order the prepares finish in', async (t) => {
  const seed = Number(process.env.SEED ?? Date.now() % 1_000_000)
  t.comment(`seed ${seed}`)
  const random = randomOf(seed)
  const inOrder = new InOrder(1_000)
  const committed: number[] = []
  const steps: Promise<string>[] = []
  for (let i = 0; i < 200; i++) {
    const fails = random() < 0.1
    const delayMs = Math.floor(random() * 20)
    steps.push(inOrder.run(async () => {
      await sleep(delayMs)
      if (fails) throw new Error(`prepare ${i} failed`)
      return i
    }, async (prepared) => {
      committed.push(prepared)
      await sleep(Math.floor(random() * 5))
      return `done ${prepared}`
    }, 1).catch((error: Error) => error.message))
  }
  const answers = await Promise.all(steps)
  t.same(committed, [...committed].sort((a, b) => a - b), 'commits called in run order')
  t.equal(committed.length, answers.filter((a) => a.startsWith('done')).length, 'one commit per prepared step')
  t.ok(answers.every((a, i) => a === `done ${i}` || a === `prepare ${i} failed`), 'each step answers its own result')
})

t.test('a commit does not wait for the one before it to finish, only to be called', async (t) => {
  const inOrder = new InOrder(10)
  let releaseFirst: () => void = () => undefined
  const order: string[] = []
  const first = inOrder.run(async () => 1, () => {
    order.push('commit 1')
    return new Promise<void>((resolve) => {
      releaseFirst = resolve
    })
  }, 0)
  const second = inOrder.run(async () => 2, async () => {
    order.push('commit 2')
  }, 0)
  await second
  t.same(order, ['commit 1', 'commit 2'], 'the second committed while the first was still running')
  releaseFirst()
  await first
})

t.test('prepares beyond the weight bound wait, then start in order', async (t) => {
  const inOrder = new InOrder(3)
  let preparing = 0
  let most = 0
  const started: number[] = []
  const steps = Array.from({ length: 12 }, (_, i) => inOrder.run(async () => {
    started.push(i)
    preparing += 1
    most = Math.max(most, preparing)
    await sleep(5)
    preparing -= 1
  }, async () => i, 1))
  t.same(await Promise.all(steps), Array.from({ length: 12 }, (_, i) => i))
  t.equal(most, 3, 'never more than the bound at once')
  t.same(started, [...started].sort((a, b) => a - b), 'started in run order')
  const heavy = await inOrder.run(async () => 'heavy', async (p) => p, 10)
  t.equal(heavy, 'heavy', 'a step heavier than the bound still runs, alone')
})

t.test('a prepare that throws at once is a failed step, not an exception out of run', async (t) => {
  const inOrder = new InOrder(10)
  const failed = inOrder.run((): Promise<number> => {
    throw new Error('at once')
  }, async (p) => p, 1)
  await t.rejects(failed, /at once/)
  t.equal(await inOrder.run(async () => 7, async (p) => p, 1), 7, 'the next step goes on')
})
