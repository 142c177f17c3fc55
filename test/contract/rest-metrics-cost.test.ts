/**
 * What a /metrics scrape costs the server (issue 27, finding 10): each scrape rendered the whole
 * registry, about 2.6 ms of the front end's thread, so one address scraping 377 times a second
 * kept a core busy. Now the text is rendered at most once per METRICS_RENDER_INTERVAL_MS and
 * scrapes in between get that text: a burst of scrapes costs a render per interval, and a scrape
 * after the interval sees what happened since.
 */
import t from 'tap'
import { METRICS_RENDER_INTERVAL_MS } from '../../src/limits.js'
import { startServer } from '../support/rest-harness.js'

const SCRAPES = 200

const server = await startServer()
t.teardown(() => server.stop())

const scrape = async (): Promise<string> => (await fetch(`${server.base}/metrics`)).text()

/** The server's own time on GET /metrics so far (sum and count of its request histogram). */
function scrapeSeconds(text: string): { sum: number; count: number } {
  const value = (series: string): number => Number(new RegExp(
    `^predex_http_request_duration_seconds_${series}\\{route="GET /metrics",status="200"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0)
  return { sum: value('sum'), count: value('count') }
}

/**
 * Renders are counted by the texts: each render shows the scrapes counted before it (the request
 * histogram of GET /metrics), so two renders never give the same text, and a cached one does.
 */
t.test(`${SCRAPES} scrapes back to back cost a render per interval, not ${SCRAPES}`, async (t) => {
  await new Promise((resolve) => setTimeout(resolve, METRICS_RENDER_INTERVAL_MS))
  const before = scrapeSeconds(await scrape())
  const texts = new Set<string>()
  const startedMs = performance.now()
  for (let i = 0; i < SCRAPES; i++) texts.add(await scrape())
  const elapsedMs = performance.now() - startedMs
  const rendersMax = Math.ceil(elapsedMs / METRICS_RENDER_INTERVAL_MS) + 1
  t.ok(texts.size <= rendersMax, `${texts.size} renders for ${SCRAPES} scrapes in ${elapsedMs.toFixed(0)} ms `
    + `(at most ${rendersMax}: one per ${METRICS_RENDER_INTERVAL_MS} ms)`)
  await new Promise((resolve) => setTimeout(resolve, METRICS_RENDER_INTERVAL_MS))
  const after = scrapeSeconds(await scrape())
  t.comment(`the server's mean time on a scrape: ${((after.sum - before.sum) / (after.count - before.count) * 1000)
    .toFixed(3)} ms`)
})

/**
 * Two scrapes back to back are within one interval only if both answers come back within it: on a
 * loaded machine (a contract run once had a stall of more than 100 ms there) a pair can take
 * longer, and its second scrape then rightly gets a fresh render. So a pair is judged only when it
 * was within the interval by this process's clock (its first render began after `startedMs`), and
 * a few pairs are tried before that is called a failure.
 */
const PAIRS_TRIED_MAX = 5

t.test('within the interval a scrape is the last render; after it, a fresh one', async (t) => {
  let pair: { first: string; second: string } | null = null
  for (let tried = 1; pair === null && tried <= PAIRS_TRIED_MAX; tried++) {
    await new Promise((resolve) => setTimeout(resolve, METRICS_RENDER_INTERVAL_MS))
    const startedMs = performance.now()
    const first = await scrape()
    const second = await scrape()
    const elapsedMs = performance.now() - startedMs
    if (elapsedMs < METRICS_RENDER_INTERVAL_MS) pair = { first, second }
    else t.comment(`pair ${tried} took ${elapsedMs.toFixed(0)} ms, longer than the interval: not judged`)
  }
  if (pair === null) return void t.fail(`no pair of scrapes within ${METRICS_RENDER_INTERVAL_MS} ms in ${PAIRS_TRIED_MAX}`)
  t.equal(pair.second, pair.first, 'the second scrape (the first one counted in between) is the same text')
  await new Promise((resolve) => setTimeout(resolve, METRICS_RENDER_INTERVAL_MS))
  const third = await scrape()
  t.ok(scrapeSeconds(third).count >= scrapeSeconds(pair.first).count + 2, 'after the interval: both scrapes counted')
})
