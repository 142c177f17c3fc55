/**
 * GET /users/:address/portfolio-history and /activity (issue 14, finding 6): pages of at most
 * `limit` milestones whose cursors walk the whole history exactly once, exactly the replay's
 * milestones (test/support/reference-portfolio.ts); a page whose cost does not grow with the
 * history (the milestones are kept as the read model applies events, not replayed per request);
 * and a budget of entries read per client address that answers RATE_LIMITED with a wait when
 * spent, without touching other clients. The REST route's handler is called directly on a real
 * engine and read model (fakeWorld) whose history is on disk (the read store, as in a server), so
 * the test runs in about a second.
 */
import t from 'tap'
import { userRoutes } from '../../../src/api/rest/routes/users.js'
import type { RestRequest } from '../../../src/api/rest/route.js'
import { CURSOR_END, decimalOfMicros } from '../../../src/api/wire.js'
import { PredexError } from '../../../src/errors.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ReadModel } from '../../../src/read/read-model.js'
import { ReadStore } from '../../../src/read/read-store.js'
import type { ServiceContext } from '../../../src/service/context.js'
import { historyWorld, USDC } from '../../support/history-world.js'
import { referencePortfolioOf, type Milestone } from '../../support/reference-portfolio.js'

const SMALL = '0x' + '1'.repeat(40)
const BIG = '0x' + '2'.repeat(40)
const SMALL_MILESTONES = 100
const BIG_MILESTONES = 4_000

const dataDir = mkdtempSync(join(tmpdir(), 'predex-pages-'))
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
const store = new ReadStore(dataDir)
const world = await historyWorld(store)
await world.fund(SMALL, 1_000_000 * USDC)
await world.fund(BIG, 1_000_000 * USDC)
await world.grow(SMALL, SMALL_MILESTONES - 1)
await world.grow(BIG, BIG_MILESTONES - 1)

function route(path: string) {
  return userRoutes.find((r) => r.path === path)!
}

function requestOf(address: string, query: Record<string, string>, remoteAddress = '10.0.0.1'): RestRequest {
  return { method: 'GET', path: '', params: [address], query: new URLSearchParams(query), headers: () => undefined,
    body: new Uint8Array(0), compat: false, remoteAddress }
}

async function call(path: string, address: string, query: Record<string, string>, remoteAddress?: string,
  context: ServiceContext = world.context): Promise<any> {
  return (await route(path).handler(requestOf(address, query, remoteAddress), null, context)).body
}

const history = (address: string, query: Record<string, string>, remoteAddress?: string, context?: ServiceContext) =>
  call('/users/:address/portfolio-history', address, query, remoteAddress, context)

const signed = (micros: number): string => (micros < 0 ? '-' + decimalOfMicros(-micros) : decimalOfMicros(micros))

/** What the wire shows of a replayed milestone. */
function wireOf(m: Milestone): unknown[] {
  return [m.seq, m.kind, m.tokenId === '' ? null : m.tokenId, decimalOfMicros(m.sharesMicros),
    m.priceMicros === null ? null : decimalOfMicros(m.priceMicros), signed(m.usdcDeltaMicros), signed(m.usdcBalanceMicros),
    Object.entries(m.positions).map(([token, shares]) => [token, signed(shares)])]
}

function shown(m: any): unknown[] {
  return [m.block_number, m.kind, m.token_id, m.shares, m.price, m.usdc_delta, m.usdc_balance, Object.entries(m.positions)]
}

/** Every page from the start, following next_cursor. */
async function walk(get: (query: Record<string, string>) => Promise<any>, limit: number):
  Promise<{ pages: any[]; items: any[] }> {
  const pages: any[] = []
  let cursor: string | null = null
  while (cursor !== CURSOR_END && pages.length < 10_000) {
    const page: any = await get({ limit: String(limit), ...(cursor === null ? {} : { next_cursor: cursor }) })
    pages.push(page)
    cursor = page.next_cursor
    if (typeof cursor !== 'string') break
  }
  return { pages, items: pages.flatMap((page) => page.milestones ?? page.data ?? []) }
}

t.test('a page holds at most the limit, and its cursors walk the whole history exactly once', async (t) => {
  const expected = referencePortfolioOf(world.context.read, SMALL).milestones
  t.equal(expected.length, SMALL_MILESTONES, `the wallet has ${SMALL_MILESTONES} milestones`)
  const { pages, items } = await walk((query) => history(SMALL, query), 7)
  t.ok(pages.every((page) => page.milestones.length <= 7), 'no page holds more than the limit')
  t.ok(pages.every((page) => page.count === page.milestones.length && page.limit === 7), 'limit and count told')
  t.equal(pages.length, Math.ceil(SMALL_MILESTONES / 7), 'as many pages as the limit makes')
  t.equal(pages[0].address, SMALL, 'the address, as before')
  t.same(items.map(shown), expected.map(wireOf), 'oldest first, each milestone once, exactly the replay')
  const first = await history(SMALL, {})
  t.equal(first.milestones.length, 100, 'without a limit: the default page (100)')
})

t.test('activity pages the same milestones newest first', async (t) => {
  const expected = referencePortfolioOf(world.context.read, SMALL).milestones
  const { pages, items } = await walk((query) => call('/users/:address/activity', SMALL, query), 9)
  t.ok(pages.every((page) => page.data.length <= 9), 'no page holds more than the limit')
  t.same(items.map(shown), [...expected].reverse().map(wireOf), 'newest first, each once, exactly the replay')
})

t.test("a page's cost does not grow with the history", async (t) => {
  const last = Buffer.from(String(BIG_MILESTONES - 10)).toString('base64')
  const small = await fastest(() => history(SMALL, { limit: '10' }, 'timing'))
  const bigFirst = await fastest(() => history(BIG, { limit: '10' }, 'timing'))
  const bigLast = await fastest(() => history(BIG, { limit: '10', next_cursor: last }, 'timing'))
  const bigActivity = await fastest(() => call('/users/:address/activity', BIG, { limit: '10' }, 'timing'))
  t.comment(`first page of 10: ${small.toFixed(3)} ms at ${SMALL_MILESTONES} milestones, ${bigFirst.toFixed(3)} ms `
    + `at ${BIG_MILESTONES}; its last page ${bigLast.toFixed(3)} ms, its newest activity ${bigActivity.toFixed(3)} ms`)
  // 40 times the history; a replay per request costs some 40 times as much. Generous for a loaded machine.
  const bound = 5 * Math.max(small, 0.05)
  t.ok(bigFirst < bound, `the first page at ${BIG_MILESTONES} milestones costs about what it does at ${SMALL_MILESTONES}`)
  t.ok(bigLast < bound, 'so does a page deep in the history')
  t.ok(bigActivity < bound, 'and the newest activity')
})

/** The fastest of a few runs, in milliseconds (the least disturbed by other work on the machine). */
async function fastest(run: () => Promise<unknown>): Promise<number> {
  let best = Infinity
  for (let i = 0; i < 9; i++) {
    const started = performance.now()
    await run()
    best = Math.min(best, performance.now() - started)
  }
  return best
}

t.test("reading a long history spends the client address's budget, not others'", async (t) => {
  let refused: unknown = null
  let answered = 0
  for (let i = 0; i < 200 && refused === null; i++) {
    try {
      await history(BIG, { limit: '500', next_cursor: Buffer.from(String((i * 500) % BIG_MILESTONES)).toString('base64') },
        '10.0.0.66')
      answered++
    } catch (error) {
      refused = error
    }
  }
  t.ok(refused instanceof PredexError, `refused after ${answered} pages of 500`)
  const error = refused as PredexError
  t.equal(error?.code, 'RATE_LIMITED', 'RATE_LIMITED')
  t.ok(Number(error?.context?.retryAfterSeconds) >= 1, `with a wait (${error?.context?.retryAfterSeconds} s)`)
  t.ok(answered >= 10, 'a client reads tens of full pages before it is refused')
  t.equal((await history(SMALL, { limit: '500' }, '10.0.0.67')).milestones.length, SMALL_MILESTONES,
    'another client address is answered')
  await t.rejects(call('/users/:address/activity', BIG, { limit: '5' }, '10.0.0.66'), { code: 'RATE_LIMITED' },
    'activity counts against the same budget')
  world.advance(Number(error?.context?.retryAfterSeconds ?? 0) * 1000)
  t.equal((await history(BIG, { limit: '5' }, '10.0.0.66')).milestones.length, 5, 'after the wait, answered again')
})

t.test('a restarted read model (its store reopened) pages the same history', async (t) => {
  const live = world.context.read
  await store.settled()
  t.equal(store.pendingCount, 0, 'once committed, nothing of the history is held in memory')
  const reopened = new ReadStore(dataDir)
  t.teardown(() => reopened.close())
  const loaded = new ReadModel(reopened)
  // As at start-up (src/app.ts): the stored state first, the markets from the engine after.
  t.equal(reopened.loadInto(loaded), live.seq, 'the store has every command')
  for (const market of live.markets.values()) loaded.putMarket(market)
  const restarted = { ...world.context, read: loaded } as ServiceContext
  for (const address of [SMALL, BIG]) {
    const before = await walk((query) => history(address, query, 'restart', world.context), 500)
    const after = await walk((query) => history(address, query, 'restart-2', restarted), 500)
    t.same(after.items, before.items, `${address}: the same ${before.items.length} milestones`)
  }
  const profile = route('/users/:address')
  const body = async (context: ServiceContext) =>
    (await profile.handler(requestOf(BIG, {}), null, context)).body as Record<string, unknown>
  t.same(await body(restarted), await body(world.context), 'the same profile')
  t.equal((await body(world.context)).realized_pnl, signed(referencePortfolioOf(live, BIG).realizedPnlMicros),
    "the profile's realized P&L is the replay's")
})
