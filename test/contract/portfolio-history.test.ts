/**
 * GET /users/:address/portfolio-history over a real server (issue 14, finding 6: it was
 * unpaginated and replayed the whole history per request; four connections from one address
 * reading it moved other clients' /health p50 from 2 ms to 62 ms). Now: pages of at most `limit`
 * whose cursors walk the history once, ending at the engine's balances; bad paging parameters
 * refused with 400; and a budget of entries read per client address (RATE_RULES.historyEntries)
 * that answers 429 RATE_LIMITED with Retry-After when spent, so a flood from one address gets at
 * most its budget's worth of work while another address is answered (the server then runs as
 * its own process, on the same data directory). About 10 s.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import t from 'tap'
import { PredexClient } from '../../src/client/predex-client.js'
import { RATE_RULES } from '../../src/limits.js'
import { CURSOR_END } from '../../src/api/wire.js'
import { freshCompiled, ROOT } from '../support/compiled.js'
import { get, startServer, USDC } from '../support/rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())
const market = await server.createMarket()
const wallet = '0x' + 'ab'.repeat(20)
const SETS = 150
await server.fund(wallet, 10_000 * USDC)
// Commands submitted together are journaled together: seconds faster than one by one.
await Promise.all(Array.from({ length: SETS }, () =>
  server.command({ kind: 'split', address: wallet, marketId: market.marketId, amountMicros: 3 * USDC })))
await Promise.all(Array.from({ length: SETS }, () =>
  server.command({ kind: 'merge', address: wallet, marketId: market.marketId, amountMicros: USDC })))
const MILESTONES = 1 + 2 * SETS
const path = `/users/${wallet}/portfolio-history`
/** The flood's bound, to end a run whose address is never refused (a failure); a passing run ends when refused. */
const FLOOD_MS_MAX = 30_000

interface Reply {
  readonly status: number
  readonly text: string
  readonly retryAfter: string | undefined
}

/** A GET from a chosen loopback address (the budgets are per client address), its body left as text. */
function getFrom(base: string, localAddress: string, url: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(base + url, { localAddress }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString(),
        retryAfter: res.headers['retry-after'] as string | undefined }))
    })
    req.on('error', reject)
    req.end()
  })
}

t.test('pages of at most the limit; the cursors walk the history once, to the engine balances', async (t) => {
  const pages: any[] = []
  for (let cursor = ''; cursor !== CURSOR_END && pages.length < 100;) {
    const reply = await get(server, `${path}?limit=100${cursor === '' ? '' : `&next_cursor=${cursor}`}`)
    t.equal(reply.status, 200)
    pages.push(reply.body)
    cursor = reply.body.next_cursor
  }
  t.equal(pages.length, Math.ceil(MILESTONES / 100), `${pages.length} pages`)
  t.equal(pages.at(-1).next_cursor, CURSOR_END, 'the last one says so')
  t.ok(pages.every((page) => page.count === page.milestones.length && page.milestones.length <= 100 && page.limit === 100),
    'each at most the limit, with its count')
  const milestones = pages.flatMap((page) => page.milestones)
  t.equal(milestones.length, MILESTONES, 'every milestone')
  t.same(milestones.map((m) => m.kind), ['deposit', ...Array(SETS).fill('mint'), ...Array(SETS).fill('merge')],
    'oldest first, each once')
  t.ok(milestones.every((m, i) => i === 0 || m.block_number > milestones[i - 1].block_number), 'in journal order')
  const account = await server.account(wallet)
  const last = milestones.at(-1)
  t.equal(last.usdc_balance, String((account.usdcMicros) / USDC), 'ends at the engine USDC balance')
  t.same(last.positions, { [market.yesTokenId]: String(2 * SETS), [market.noTokenId]: String(2 * SETS) },
    'and its positions')
  const sdk = new PredexClient({ baseUrl: server.base })
  const second = await sdk.portfolioHistory(wallet, { limit: 100, nextCursor: pages[0].next_cursor })
  t.same(second.milestones, pages[1].milestones, 'the SDK pages the same way')
})

t.test('bad paging parameters are refused with 400', async (t) => {
  for (const query of ['limit=0', 'limit=abc', 'next_cursor=%25%25', `next_cursor=${Buffer.from('-5').toString('base64')}`]) {
    const reply = await get(server, `${path}?${query}`)
    t.equal(reply.status, 400, query)
    t.equal(reply.body.code, 'INVALID_PARAMETER', `${query}: INVALID_PARAMETER`)
  }
})

t.test("a flood from one address gets its budget's worth of entries, then 429; others are answered", async (t) => {
  // The same data directory served by the server as its own process, so that what the test's
  // clients do (sending, reading) is not counted as the server's latency.
  await server.predex.stop()
  const child = await startChild(server.dataDir)
  t.teardown(() => stopChild(child))
  const rule = RATE_RULES.historyEntries
  const started = performance.now()
  let entries = 0
  let refused = null as Reply | null
  let flooding = true
  const probes: number[] = []
  let probeFailures = 0
  // Four connections from one address read full pages until the address is refused; a probe from
  // another address reads /health meanwhile. Until refused, not for a fixed time: a machine that
  // serves pages slowly takes longer to spend the budget (the 3 s this flood once had ran out
  // first on a loaded CI machine, before the budget did). FLOOD_MS_MAX only ends a broken run.
  const flood = async (): Promise<void> => {
    while (refused === null && performance.now() - started < FLOOD_MS_MAX) {
      const reply = await getFrom(child.base, '127.0.0.1', `${path}?limit=500`)
      if (reply.status === 429) refused ??= reply
      // Each milestone of this wallet shows at most its two positions (the market's Yes and No).
      else entries += 3 * Number(/"count":(\d+)/.exec(reply.text)![1])
    }
  }
  const probe = async (): Promise<void> => {
    while (flooding) {
      const sent = performance.now()
      if ((await getFrom(child.base, '127.0.0.2', '/health')).status !== 200) probeFailures++
      probes.push(performance.now() - sent)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const probed = probe()
  await Promise.all([flood(), flood(), flood(), flood()])
  flooding = false
  await probed
  const seconds = (performance.now() - started) / 1000
  t.equal(refused?.status, 429, 'the flooding address is refused')
  const body = JSON.parse(refused?.text ?? '{}')
  t.equal(body.code, 'RATE_LIMITED')
  t.ok(Number(refused?.retryAfter) >= 1, `with Retry-After: ${refused?.retryAfter}`)
  t.equal(body.retryAfterSeconds, Number(refused?.retryAfter), 'the body and the header agree')
  // Its budget, what refilled meanwhile, and the pages of the four connections under way when it ran out.
  const allowed = rule.burst + (seconds * 1000 * rule.burst) / rule.burstWindowMs + 4 * 500 * 3
  t.ok(entries <= allowed, `at most ${entries} entries served to it in ${seconds.toFixed(1)} s (allowed ${Math.round(allowed)})`)
  probes.sort((a, b) => a - b)
  const p50 = probes[Math.floor(probes.length / 2)]!
  t.comment(`/health from another address meanwhile: p50 ${p50.toFixed(1)} ms, max ${probes.at(-1)!.toFixed(1)} ms `
    + `(${probes.length} probes)`)
  t.equal(probeFailures, 0, 'the other address is answered throughout')
  t.ok(p50 < 1_000, 'promptly')
  const other = await getFrom(child.base, '127.0.0.2', `${path}?limit=5`)
  t.equal(other.status, 200, 'another address still reads the history')
  t.equal(JSON.parse(other.text).milestones.length, 5)
})

interface Child {
  readonly process: ChildProcess
  readonly base: string
  readonly exited: Promise<unknown>
}

/** The built server (node dist/src/main.js, or the sources when the build is older) on `dataDir`. */
async function startChild(dataDir: string): Promise<Child> {
  const main = freshCompiled('src/main.js', ['src'])
  const command = main !== null ? [main] : [...process.execArgv, `${ROOT}src/main.ts`]
  const child = spawn(process.execPath, [...command, '--data-dir', dataDir, '--port', '0', '--grpc-port', '0',
    '--sig-workers', '1'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  const deadline = Date.now() + 60_000
  for (;;) {
    const match = /REST listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
    if (match !== null) return { process: child, base: match[1]!, exited }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`the server did not start:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

async function stopChild(child: Child): Promise<void> {
  child.process.kill('SIGTERM')
  const timer = setTimeout(() => child.process.kill('SIGKILL'), 20_000)
  await child.exited
  clearTimeout(timer)
}
