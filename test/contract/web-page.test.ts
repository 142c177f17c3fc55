/**
 * The web page over loopback (issue 33): GET / gives a browser dist/web/index.html with the
 * server's chain id written in, and GET /assets/:file the files it names, each in the encoding the
 * client accepts (brotli, gzip, none), decompressing to the very bytes of dist/web; immutable
 * caching for the hashed assets, revalidation for the page, 304s for a current ETag; an unknown
 * name, or a path that tries to leave dist/web, is the catalogue's 404. Scripts still get the
 * JSON index at GET /.
 *
 * The page is built first when dist/web has none (node scripts/build-web.mjs): the server, in this
 * process from src/ or from dist/src/, reads dist/web of the package root. Requests go through
 * node:http, which hands back the bytes as sent (fetch would decompress them).
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { request, type IncomingHttpHeaders } from 'node:http'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { ROOT } from '../support/compiled.js'
import { startServer } from '../support/rest-harness.js'
import { ResponseValidator } from '../support/openapi-validator.js'
import { restApiDocument } from '../../src/api/rest/routes.js'

const WEB = join(ROOT, 'dist', 'web')
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

if (!existsSync(join(WEB, 'index.html'))) {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-web.mjs')], { cwd: ROOT, stdio: 'inherit' })
  if (build.status !== 0) throw new Error('the web page could not be built (node scripts/build-web.mjs)')
}

const server = await startServer()
t.teardown(() => server.stop())
const chainId = server.predex.context.chainId
const validator = new ResponseValidator(restApiDocument())

interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

/** GET `path` exactly as written (node:http normalizes nothing), the body's bytes as they came. */
function get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.base}/`, { path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/** The answer held against GET /openapi.json: its status, media type and (when text) its body. */
function mismatch(path: string, answer: Answer, text: unknown): string | null {
  return validator.mismatch({ method: 'GET', path, status: answer.status,
    contentType: answer.headers['content-type'] ?? null, body: text })
}

const built = readFileSync(join(WEB, 'index.html'), 'utf8')
const script = /<script type="module" crossorigin src="\/assets\/([^"]+\.js)"><\/script>/.exec(built)?.[1]
if (script === undefined) throw new Error(`dist/web/index.html names no script under /assets: ${built}`)
const scriptBytes = readFileSync(join(WEB, 'assets', script))

t.test('GET / for a browser: index.html with the chain id written in, its script under /assets', async (t) => {
  const page = await get('/', { accept: BROWSER, 'accept-encoding': 'br, gzip' })
  t.equal(page.status, 200)
  t.equal(page.headers['content-type'], 'text/html; charset=utf-8')
  t.equal(page.headers['content-encoding'], 'br')
  const html = brotliDecompressSync(page.body).toString('utf8')
  t.match(html, `<meta name="predex-chain-id" content="${chainId}">`, 'the server\'s chain id in the meta tag')
  t.notMatch(html, '<meta name="predex-chain-id" content="">', 'no placeholder left')
  t.match(html, `<script type="module" crossorigin src="/assets/${script}"></script>`)
  t.equal(html, built.replace('content=""', `content="${chainId}"`), 'otherwise the built file as it is')
  t.equal(page.headers['cache-control'], 'no-cache', 'revalidated on every load: it names the hashed assets')
  t.equal(page.headers.vary, 'accept, accept-encoding')
  t.equal(page.headers['x-content-type-options'], 'nosniff')
  const policy = page.headers['content-security-policy'] ?? ''
  for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:", `connect-src 'self' ws://${new URL(server.base).host} wss://`]) {
    t.match(policy, directive, directive)
  }
  t.notMatch(policy, /https?:/, 'nothing from elsewhere')
  t.equal(mismatch('/', page, html), null, 'the page fits the document (its 200 has a text/html alternative)')
  const plain = await get('/', { accept: BROWSER })
  t.equal(plain.headers['content-encoding'], undefined, 'identity without Accept-Encoding')
  t.equal(plain.body.toString('utf8'), html)
})

t.test('GET / for a script: the JSON index, as before', async (t) => {
  for (const accept of [{}, { accept: 'application/json' }, { accept: '*/*' }] as Record<string, string>[]) {
    const index = await get('/', { ...accept, 'accept-encoding': 'br, gzip' })
    t.equal(index.status, 200)
    t.match(index.headers['content-type'], /^application\/json/)
    t.equal(index.headers.vary, 'accept')
    t.match(JSON.parse(index.body.toString('utf8')), { name: 'Predex', docs: '/docs' }, JSON.stringify(accept))
  }
})

t.test('the script in each encoding the client accepts, each the bytes of dist/web', async (t) => {
  const path = `/assets/${script}`
  const cases: readonly [string | null, string | undefined, (bytes: Buffer) => Buffer][] = [
    ['br, gzip', 'br', brotliDecompressSync], ['gzip, deflate, br', 'br', brotliDecompressSync],
    ['gzip', 'gzip', gunzipSync], ['br;q=0, gzip', 'gzip', gunzipSync], ['gzip;q=0.5, br;q=0.4', 'gzip', gunzipSync],
    [null, undefined, (bytes) => bytes], ['deflate', undefined, (bytes) => bytes],
    ['br;q=0, gzip;q=0', undefined, (bytes) => bytes],
  ]
  for (const [accepted, encoding, decode] of cases) {
    const asset = await get(path, accepted === null ? {} : { 'accept-encoding': accepted })
    const label = `Accept-Encoding: ${accepted ?? '(none)'}`
    t.equal(asset.status, 200, label)
    t.equal(asset.headers['content-encoding'], encoding, `${label}: ${encoding ?? 'identity'}`)
    t.ok(decode(asset.body).equals(scriptBytes), `${label}: the file's bytes`)
    t.equal(asset.headers['content-type'], 'text/javascript; charset=utf-8')
    t.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable')
    t.equal(asset.headers.vary, 'accept-encoding')
    t.equal(asset.headers['x-content-type-options'], 'nosniff')
    t.equal(mismatch(path, asset, decode(asset.body).toString('utf8')), null, `${label}: fits the document`)
  }
  const map = await get(`${path}.map`, { 'accept-encoding': 'br, gzip' })
  t.equal(map.status, 200, 'its source map')
  t.equal(map.headers['content-type'], 'application/json')
  t.ok(map.body.equals(readFileSync(join(WEB, 'assets', `${script}.map`))), 'as built (no twin: identity)')
})

t.test('an ETag, and 304 without a body for If-None-Match', async (t) => {
  for (const [path, headers] of [[`/assets/${script}`, {}], ['/', { accept: BROWSER }]] as const) {
    const first = await get(path, { ...headers, 'accept-encoding': 'gzip' })
    const etag = first.headers.etag
    if (!t.ok(etag, `${path}: an ETag`) || etag === undefined) continue
    for (const named of [etag, `"x", ${etag}`, '*']) {
      const again = await get(path, { ...headers, 'accept-encoding': 'br', 'if-none-match': named })
      t.equal(again.status, 304, `${path}, If-None-Match ${named}: 304`)
      t.equal(again.body.length, 0, 'no body')
      t.equal(again.headers.etag, etag)
      t.equal(again.headers['cache-control'], first.headers['cache-control'])
      t.equal(mismatch(path, again, null), null, 'the 304 is documented')
    }
    t.equal((await get(path, { ...headers, 'if-none-match': '"stale"' })).status, 200, `${path}: another tag, 200`)
  }
})

t.test('an unknown name, or a path out of dist/web: the catalogue\'s 404', async (t) => {
  // The server looks a name up, exactly, in the map of the files it read from dist/web, so no
  // request can name a file outside it whatever uWS makes of `..` and of escaped slashes.
  const paths = ['/assets/nope.js', `/assets/${script}.gz`, '/assets/../package.json', '/assets/..%2Fpackage.json',
    '/assets/%2e%2e%2f%2e%2e%2fpackage.json', '/assets/..%2F..%2Fpackage.json', '/assets/%2e%2e/package.json',
    '/assets/..', '/assets/', '/index.html', '/package.json']
  for (const path of paths) {
    const answer = await get(path, { 'accept-encoding': 'br, gzip' })
    t.equal(answer.status, 404, path)
    t.match(answer.headers['content-type'], /^application\/json/)
    t.equal(JSON.parse(answer.body.toString('utf8')).code, 'NOT_FOUND', `${path}: NOT_FOUND`)
    t.notMatch(answer.body.toString('utf8'), '"predex"', 'nothing of package.json')
  }
})
