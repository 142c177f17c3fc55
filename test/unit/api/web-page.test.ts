/**
 * The web page in memory and its answers, without a server (test/contract/web-page.test.ts serves
 * the built page over loopback): which encoding Accept-Encoding gets, If-None-Match, what is loaded
 * from a page directory and what is not (twins that are not the file's, links, a tree past its
 * bound), and GET / for a browser with and without a page.
 */
import t, { type Test } from 'tap'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib'
import { documentRoutes } from '../../../src/api/rest/routes/documents.js'
import type { Reply, RestRequest } from '../../../src/api/rest/route.js'
import { WebPage } from '../../../src/api/rest/web-page.js'
import { chosenEncoding, etagMatches } from '../../../src/api/rest/web-reply.js'
import type { ServiceContext } from '../../../src/service/context.js'

const INDEX = '<!doctype html><meta name="predex-chain-id" content=""><script src="/assets/a.js"></script>'
const SCRIPT = 'console.log("the page")\n'.repeat(20)

t.test('the encoding: brotli, then gzip, then none, as Accept-Encoding weighs them', async (t) => {
  const both = { br: true, gzip: true }
  const cases: [string | undefined, Partial<typeof both>, string][] = [
    [undefined, both, 'identity'], ['', both, 'identity'], ['gzip, deflate, br', both, 'br'], ['br, gzip', both, 'br'],
    ['gzip', both, 'gzip'], ['x-gzip', both, 'gzip'], ['BR;Q=1, GZIP', both, 'br'], ['br;q=0, gzip', both, 'gzip'],
    ['br;q=0.4, gzip;q=0.5', both, 'gzip'], ['br;q=0, gzip;q=0', both, 'identity'], ['*', both, 'br'],
    ['*;q=0.1, br;q=0', both, 'gzip'], ['deflate', both, 'identity'], ['br', { gzip: true }, 'identity'],
    ['br, gzip', { gzip: true }, 'gzip'], ['identity;q=1, gzip;q=0.5', both, 'identity'],
    ['br;q=abc, gzip', both, 'gzip'], ['identity;q=0', both, 'identity'],
  ]
  for (const [header, has, want] of cases) {
    t.equal(chosenEncoding(header, { br: has.br === true, gzip: has.gzip === true }), want,
      `${JSON.stringify(header)} with ${Object.keys(has).join('+') || 'no twin'}`)
  }
})

t.test('If-None-Match names the tag (weakly compared), or is *', async (t) => {
  const etag = 'W/"abc"'
  t.ok(etagMatches('W/"abc"', etag))
  t.ok(etagMatches('"abc"', etag), 'a strong spelling of the same tag: weak comparison')
  t.ok(etagMatches('"x", W/"abc"', etag), 'one of a list')
  t.ok(etagMatches('*', etag))
  t.notOk(etagMatches('"abcd"', etag))
  t.notOk(etagMatches(undefined, etag))
})

/** A page directory: index.html, a script with its twins, a style whose gzip twin is another file's. */
function pageDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'predex.web-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'assets'))
  writeFileSync(join(dir, 'index.html'), INDEX)
  writeFileSync(join(dir, 'assets', 'a.js'), SCRIPT)
  writeFileSync(join(dir, 'assets', 'a.js.gz'), gzipSync(SCRIPT))
  writeFileSync(join(dir, 'assets', 'a.js.br'), brotliCompressSync(SCRIPT))
  writeFileSync(join(dir, 'assets', 'b.css'), 'body { color: red }')
  writeFileSync(join(dir, 'assets', 'b.css.gz'), gzipSync('body { color: blue }'))
  writeFileSync(join(dir, 'outside.txt'), 'not under assets')
  symlinkSync(join(dir, 'outside.txt'), join(dir, 'assets', 'link.js'))
  return dir
}

t.test('a page directory: its files by name, their twins when they are theirs, index.html per chain', async (t) => {
  const dir = pageDir(t)
  const page = WebPage.load(dir)
  if (page === null) throw new Error('the page is built')
  const script = page.asset('a.js')!
  t.equal(script.contentType, 'text/javascript; charset=utf-8')
  t.equal(Buffer.from(script.identity).toString(), SCRIPT)
  t.equal(brotliDecompressSync(script.br!).toString(), SCRIPT, 'the brotli twin')
  t.ok(script.gzip, 'the gzip twin')
  t.match(script.etag, /^W\/"[A-Za-z0-9_-]{16}"$/)
  const style = page.asset('b.css')!
  t.equal(style.contentType, 'text/css; charset=utf-8')
  t.equal(style.gzip, null, 'a twin that is not the file\'s is dropped: identity, never another file')
  t.equal(style.br, null)
  for (const name of ['a.js.gz', 'link.js', '../outside.txt', '../index.html', 'nope.js']) {
    t.equal(page.asset(name), undefined, `${name}: not served`)
  }
  const index = page.index(80002)
  t.equal(Buffer.from(index.identity).toString(), INDEX.replace('content=""', 'content="80002"'))
  t.equal(brotliDecompressSync(index.br!).toString(), Buffer.from(index.identity).toString(), 'compressed as rendered')
  t.equal(page.index(80002), index, 'rendered once per chain')
  t.not(page.index(137).etag, index.etag, 'another chain, another page')
})

t.test('no page: no index.html; a tree past its bound is refused', async (t) => {
  const dir = pageDir(t)
  t.throws(() => WebPage.load(dir, 100), /over the web page's 100 \(WEB_PAGE_BYTES_MAX\)/)
  rmSync(join(dir, 'index.html'))
  t.equal(WebPage.load(dir), null, 'not built')
})

function browser(path: string, params: string[] = []): RestRequest {
  const headers: Record<string, string> = { accept: 'text/html', 'accept-encoding': 'gzip', host: 'localhost:8080' }
  return { method: 'GET', path, params, query: new URLSearchParams(), headers: (name) => headers[name],
    body: new Uint8Array(0), compat: false, remoteAddress: '127.0.0.1' }
}

t.test('GET / for a browser: the page when there is one, else the redirect to /docs', async (t) => {
  const errors: string[] = []
  const context = { chainId: 80002, log: { error: (message: string) => errors.push(message) } } as unknown as ServiceContext
  const answerer = (load: () => WebPage | null) => {
    const routes = documentRoutes(() => [], load)
    return (path: string, params?: string[]): Reply => {
      const route = routes.find((r) => r.path === (params === undefined ? path : '/assets/:file'))!
      return route.handler(browser(path, params), null, context) as Reply
    }
  }
  const answer = (load: () => WebPage | null, path: string, params?: string[]): Reply => answerer(load)(path, params)
  const page = WebPage.load(pageDir(t))
  const served = answer(() => page, '/')
  t.equal(served.status ?? 200, 200)
  t.match(served.headers, { 'content-encoding': 'gzip', 'cache-control': 'no-cache', vary: 'accept, accept-encoding' })
  t.match(served.headers?.['content-security-policy'], "connect-src 'self' ws://localhost:8080 wss://localhost:8080")
  t.match(answer(() => null, '/'), { status: 302, headers: { location: '/docs' } }, 'no page: to /docs')
  t.throws(() => answer(() => null, '/assets/a.js', ['a.js']), { code: 'NOT_FOUND' }, 'no page, no assets')
  const failing = (): WebPage | null => {
    throw new Error('unreadable')
  }
  const unreadable = answerer(failing)
  t.match(unreadable('/'), { status: 302 }, 'an unreadable page: as if none')
  t.match(unreadable('/'), { status: 302 })
  t.same(errors, ['the web page is not served: its files could not be read'], 'said once in the log')
})
