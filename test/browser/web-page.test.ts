/**
 * The web page in a real browser (issue 33): Debian's chromium, driven by playwright-core, against
 * `npm start` on a new data directory (the demo markets, quoted and traded). What a newcomer does:
 * the markets list, a market whose book moves when an SDK client places an order (no reload),
 * a wallet made in the page that gets funds, approves, places an order that rests, sees it and
 * cancels it, the candles after a trade, the portfolio chart. Throughout: no console error, no
 * request that leaves loopback, and axe-core's WCAG A/AA rules on each page. Screenshots of each
 * page go to test-results/web/ (kept by CI as artefacts; the README's picture is one of them).
 *
 * Chromium comes from Debian (`.ci/run` installs it when missing): a missing browser fails this
 * file with the command to install it, never a silent skip.
 */
import { existsSync, mkdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { chromium, type Browser, type Page } from 'playwright-core'
import { PredexClient } from '../../src/client/predex-client.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { ensureBuilt, ROOT } from '../support/compiled.js'

/** The page's document, as the functions run inside the browser see it (this file compiles without the DOM's types). */
declare const document: {
  querySelector(selector: string): { getAttribute(name: string): string | null; textContent: string | null } | null
  querySelectorAll(selector: string): { length: number }
}

const CHROMIUM = '/usr/bin/chromium'
const START_MS_MAX = 60_000
/** The bound: an order placed by the SDK is in the page's book within a second. */
const BOOK_UPDATE_MS_MAX = 1_000
const SCREENSHOTS = join(ROOT, 'test-results', 'web')
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

if (!existsSync(CHROMIUM)) {
  t.fail(`no browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium; .ci/run does it)`)
  process.exit(1)
}

ensureBuilt()
mkdirSync(SCREENSHOTS, { recursive: true })
const dataDir = mkdtempSync(join(tmpdir(), 'predex.web-'))
const server = spawn(process.execPath, ['scripts/start.mjs', '--data-dir', dataDir, '--port', '0', '--grpc-port', '0',
  '--sig-workers', '1', '--sig-nice', '0', '--shed-lag-ms', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
let serverOutput = ''
server.stdout!.setEncoding('utf8').on('data', (text: string) => { serverOutput += text })
server.stderr!.setEncoding('utf8').on('data', (text: string) => { serverOutput += text })
const serverExited = new Promise((resolve) => server.once('exit', resolve))

async function listening(): Promise<string> {
  const deadline = Date.now() + START_MS_MAX
  for (;;) {
    const base = /REST listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serverOutput)?.[1]
    if (base !== undefined) return base
    if (server.exitCode !== null || Date.now() > deadline) throw new Error(`no server:\n${serverOutput}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const base = await listening()
const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'] })
t.teardown(async () => {
  await browser.close()
  server.kill('SIGTERM')
  const killer = setTimeout(() => server.kill('SIGKILL'), 20_000)
  await serverExited
  clearTimeout(killer)
  rmSync(dataDir, { recursive: true, force: true })
})

/** What a page did that it must not: console errors, uncaught exceptions, requests off loopback. */
interface Watch {
  readonly problems: string[]
  readonly requests: string[]
}

async function openPage(path: string): Promise<{ page: Page; watch: Watch }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const page = await context.newPage()
  const watch: Watch = { problems: [], requests: [] }
  page.on('console', (message) => {
    if (message.type() === 'error') watch.problems.push(`console error: ${message.text()}`)
  })
  page.on('pageerror', (error) => watch.problems.push(`uncaught: ${error.message}`))
  page.on('request', (request) => watch.requests.push(request.url()))
  page.on('websocket', (socket) => watch.requests.push(socket.url()))
  await page.goto(`${base}${path}`)
  return { page, watch }
}

/** Every request of the page went to this server (no CDN, no font host, nothing off loopback). */
function offLoopback(watch: Watch): string[] {
  const origin = new URL(base)
  return watch.requests.filter((url) => {
    if (url.startsWith('data:') || url.startsWith('blob:')) return false
    const parsed = new URL(url)
    return parsed.hostname !== origin.hostname || parsed.port !== origin.port
  })
}

/** axe-core's WCAG 2 A and AA rules on the page as it stands: the violations, as lines. */
async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) =>
      Promise<{ violations: { id: string; help: string; nodes: { target: unknown }[] }[] }> } }).axe
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } })
    return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`)
  })
  return violations
}

async function finish(t: Test, page: Page, watch: Watch, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
  t.same(await accessibilityViolations(page), [], `${name}: no WCAG A/AA violation (axe-core)`)
  t.same(watch.problems, [], `${name}: no console error or uncaught exception`)
  t.same(offLoopback(watch), [], `${name}: no request left loopback`)
  t.ok(watch.requests.length > 0, `${name}: the page's requests were watched (${watch.requests.length})`)
  await page.context().close()
}

/** An SDK client with a new funded, approved wallet and API credentials. */
async function sdkTrader(): Promise<PredexClient> {
  const client = new PredexClient({ baseUrl: base, wallet: Wallet.random() })
  await client.faucet()
  await client.approve(10n ** 12n)
  await client.createApiKey()
  return client
}

t.test('the markets list loads, with prices and volume, and searches', async (t) => {
  const { page, watch } = await openPage('/')
  const rows = page.getByTestId('market-row')
  await rows.first().waitFor()
  t.ok(await rows.count() >= 3, `the demo's markets are listed (${await rows.count()})`)
  await page.getByTestId('market-search').fill('coin')
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="market-row"]').length === 1)
  t.equal(await rows.first().getAttribute('data-slug'), 'demo-coin-lands-heads', 'the search keeps the matching market')
  await page.getByTestId('market-search').fill('')
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="market-row"]').length >= 3)
  await finish(t, page, watch, 'markets')
})

t.test('the keyboard alone reaches a market from the list and opens it', async (t) => {
  const { page, watch } = await openPage('/')
  await page.getByTestId('market-row').first().waitFor()
  let tabs = 0
  while (tabs < 10 && !await page.evaluate(() => /^#\/market\//.test(
    (document as unknown as { activeElement: { getAttribute(name: string): string | null } | null })
      .activeElement?.getAttribute('href') ?? ''))) {
    await page.keyboard.press('Tab')
    tabs++
  }
  t.ok(tabs < 10, `a market's link is focused after ${tabs} presses of Tab`)
  await page.keyboard.press('Enter')
  await page.getByTestId('place-order').or(page.getByText('make a test wallet')).waitFor()
  t.match(page.url(), /#\/market\/demo-/, 'Enter opened the market')
  await page.context().close()
  t.same(watch.problems, [])
})

t.test('an order placed by the SDK appears in the page\'s book within a second, without a reload', async (t) => {
  const sdk = await sdkTrader()
  const market = await sdk.market('demo-coin-lands-heads')
  const { page, watch } = await openPage('/#/market/demo-coin-lands-heads')
  await page.getByTestId('book-bid').first().waitFor()
  await page.waitForSelector('[data-testid="feed-status"][data-status="live"]')
  const navigations: string[] = []
  page.on('framenavigated', (frame) => navigations.push(frame.url()))
  const price = '0.03'
  t.equal(await page.locator(`[data-testid="book-bid"][data-price="${price}"]`).count(), 0, 'no bid at 0.03 before')
  const placed = await sdk.placeLimitOrder({ tokenId: market.yes_token_id, side: 'BUY', price, size: '17' })
  const ackedMs = Date.now()
  t.equal(placed.status, 'live')
  await page.locator(`[data-testid="book-bid"][data-price="${price}"]`).waitFor({ timeout: 5_000 })
  const shownMs = Date.now() - ackedMs
  t.ok(shownMs <= BOOK_UPDATE_MS_MAX, `shown ${shownMs} ms after the acknowledgement (at most ${BOOK_UPDATE_MS_MAX})`)
  t.same(navigations, [], 'the page did not reload')
  t.match(await page.locator(`[data-testid="book-bid"][data-price="${price}"]`).innerText(), /17\.00/,
    'the level shows the order\'s 17 shares')
  await sdk.cancelOrder(placed.orderID)
  await page.locator(`[data-testid="book-bid"][data-price="${price}"]`).waitFor({ state: 'detached', timeout: 5_000 })
  t.pass('the cancel took the level away')
  await finish(t, page, watch, 'market')
})

t.test('a lost market-channel message is a gap: the page resyncs, says so, and shows the true book', async (t) => {
  const sdk = await sdkTrader()
  const market = await sdk.market('demo-coin-lands-heads')
  const context = await browser.newContext()
  const page = await context.newPage()
  const problems: string[] = []
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()) })
  // Between the page and the server: forward everything, but drop the first price_change after `dropNext`.
  let dropNext = false
  let dropped = 0
  await page.routeWebSocket(/\/ws\/market$/, (socket) => {
    const server = socket.connectToServer()
    server.onMessage((message) => {
      if (dropNext && typeof message === 'string' && message.includes('"event_type":"price_change"')) {
        dropNext = false
        dropped++
        return
      }
      socket.send(message)
    })
  })
  await page.goto(`${base}/#/market/demo-coin-lands-heads`)
  await page.waitForSelector('[data-testid="feed-status"][data-status="live"]')
  t.equal(await page.getByTestId('resyncs').count(), 0, 'no resync before')
  dropNext = true
  const first = await sdk.placeLimitOrder({ tokenId: market.yes_token_id, side: 'BUY', price: '0.05', size: '11' })
  const second = await sdk.placeLimitOrder({ tokenId: market.yes_token_id, side: 'BUY', price: '0.06', size: '12' })
  await page.getByTestId('resyncs').waitFor({ timeout: 5_000 })
  t.equal(dropped, 1, 'one price_change was lost on the way')
  t.match(await page.getByTestId('resyncs').innerText(), /resynced 1×/, 'the page says it resynced')
  await page.locator('[data-testid="book-bid"][data-price="0.05"]').waitFor({ timeout: 5_000 })
  await page.locator('[data-testid="book-bid"][data-price="0.06"]').waitFor({ timeout: 5_000 })
  t.pass('after the fresh snapshot the book has both orders, the one whose change was lost included')
  await page.waitForSelector('[data-testid="feed-status"][data-status="live"]')
  await sdk.cancelOrders([first.orderID, second.orderID])
  t.same(problems, [], 'no console error')
  await context.close()
})

t.test('after a trade the candles chart draws, and the trade is in the recent trades', async (t) => {
  const sdk = await sdkTrader()
  const market = await sdk.market('demo-rain-in-lisbon-tomorrow')
  const { page, watch } = await openPage('/#/market/demo-rain-in-lisbon-tomorrow')
  await page.waitForSelector('[data-testid="feed-status"][data-status="live"]')
  const bought = await sdk.placeMarketOrder({ tokenId: market.yes_token_id, side: 'BUY', amount: '2', price: '0.99' })
  t.equal(bought.status, 'matched', 'the SDK bought from the demo quotes')
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="candles"]')
    ?.getAttribute('data-points') ?? 0) > 0, undefined, { timeout: 5_000 })
  const canvas = await page.locator('[data-testid="candles"] canvas').first().boundingBox()
  t.ok(canvas !== null && canvas.width > 100 && canvas.height > 100, 'the chart has a drawn canvas')
  await page.getByTestId('trade-row').first().waitFor({ timeout: 5_000 })
  t.ok(await page.getByTestId('trade-row').count() >= 1, 'recent trades listed')
  await finish(t, page, watch, 'market-candles')
})

t.test('a test key imported into the page is the wallet; forgetting it leaves none', async (t) => {
  const privateKey = generatePrivateKey()
  const { page, watch } = await openPage('/#/wallet')
  await page.getByLabel('Or import a test key').fill(privateKey)
  await page.getByRole('button', { name: 'Import' }).click()
  t.equal(await page.getByTestId('wallet-address').innerText(), privateKeyToAccount(privateKey).address,
    'the page shows the imported key\'s address')
  await page.reload()
  t.equal(await page.getByTestId('wallet-address').innerText(), privateKeyToAccount(privateKey).address,
    'kept in the browser\'s storage across a reload')
  await page.getByRole('button', { name: 'Forget this wallet' }).click()
  await page.getByTestId('create-wallet').waitFor()
  t.pass('forgotten: the page offers to make one again')
  await page.context().close()
  t.same(watch.problems, [])
})

t.test('a wallet made in the page gets funds, places an order that rests, sees it and cancels it', async (t) => {
  const { page, watch } = await openPage('/#/wallet')
  await page.getByTestId('create-wallet').click()
  const address = await page.getByTestId('wallet-address').innerText()
  t.match(address, /^0x[0-9a-fA-F]{40}$/, 'the page shows the new address')
  await page.getByTestId('faucet').click()
  await page.getByText('Test USDC credited.').waitFor()
  await page.getByTestId('approve').click()
  await page.getByText('The exchange is approved.').waitFor()
  await page.waitForFunction(() => !/^0\.00$/.test(document.querySelector('[data-testid="balance-usdc"] td')
    ?.textContent ?? '0.00'))

  await page.goto(`${base}/#/market/demo-launch-on-schedule`)
  const ticket = page.getByTestId('place-order')
  await ticket.waitFor()
  await ticket.getByLabel('Price').fill('0.04')
  await ticket.getByLabel('Shares').fill('10')
  await ticket.getByRole('button', { name: /Buy Yes/ }).click()
  const result = page.getByTestId('order-result')
  await result.waitFor({ timeout: 10_000 })
  t.equal(await result.getAttribute('data-status'), 'live', 'the order rests')
  await page.locator('[data-testid="book-bid"][data-price="0.04"]').waitFor({ timeout: 5_000 })
  t.pass('and it is in the book')
  await page.screenshot({ path: join(SCREENSHOTS, 'market-with-wallet.png'), fullPage: true })

  await page.goto(`${base}/#/wallet`)
  const order = page.getByTestId('open-order')
  await order.first().waitFor({ timeout: 5_000 })
  t.equal(await order.count(), 1, 'one open order')
  t.match(await order.first().innerText(), /BUY[\s\S]*0\.04/, 'the order as placed')
  await page.getByTestId('portfolio-chart').waitFor()
  t.ok(Number(await page.getByTestId('portfolio-chart').getAttribute('data-points')) >= 1,
    'the portfolio chart has the deposit')
  await page.screenshot({ path: join(SCREENSHOTS, 'wallet.png'), fullPage: true })
  await order.first().getByRole('button', { name: /Cancel/ }).click()
  await page.getByText('Order cancelled.').waitFor()
  await order.first().waitFor({ state: 'detached', timeout: 5_000 })
  t.equal(await order.count(), 0, 'no open order after the cancel')

  // A market order from the page: buy Yes for 2 USDC at 0.99 at worst, from the demo's asks.
  await page.goto(`${base}/#/market/demo-launch-on-schedule`)
  await ticket.getByLabel('Type').selectOption('market')
  await ticket.getByLabel('Worst price').fill('0.99')
  await ticket.getByLabel('USDC to spend').fill('2')
  await ticket.getByRole('button', { name: /Buy Yes/ }).click()
  await page.waitForSelector('[data-testid="order-result"][data-status="matched"]', { timeout: 10_000 })
  t.pass('the market order matched')
  await page.goto(`${base}/#/wallet`)
  await page.getByTestId('wallet-trade').first().waitFor({ timeout: 5_000 })
  t.pass('its trade is in the wallet\'s trades')
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="portfolio-chart"]')
    ?.getAttribute('data-points') ?? 0) >= 2, undefined, { timeout: 5_000 })
  t.pass('the portfolio chart has the deposit and the buy')
  await page.screenshot({ path: join(SCREENSHOTS, 'wallet-after-trade.png'), fullPage: true })

  // An API error is shown with its message, code and fix: an order the wallet cannot pay for.
  await page.goto(`${base}/#/market/demo-launch-on-schedule`)
  await ticket.getByLabel('Price').fill('0.5')
  await ticket.getByLabel('Shares').fill('1000000')
  await ticket.getByRole('button', { name: /Buy Yes/ }).click()
  const error = page.getByTestId('error')
  await error.waitFor({ timeout: 10_000 })
  t.match(await error.innerText(), /INVALID_ORDER_NOT_ENOUGH_BALANCE[\s\S]*faucet/, 'the error, its code and its fix')
  // The refusal is a 400 the browser logs as a failed resource load: expected here, not a fault of the page.
  const expected = watch.problems.filter((line) => /status of 400/.test(line))
  t.equal(expected.length, 1, 'the one console line is the refused order\'s 400')
  watch.problems.splice(0, watch.problems.length, ...watch.problems.filter((line) => !/status of 400/.test(line)))
  await finish(t, page, watch, 'wallet-error')
})
