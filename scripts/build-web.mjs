// The web page's build (issue 33): TypeScript checks src/web first (the page reads the server's
// body types from src/api/shapes, so a shape the page no longer matches fails the build, not the
// page), then Vite bundles src/web into dist/web, then every text file gets
// a gzip and a brotli twin beside it (the server sends the one a browser accepts, compressed
// once here rather than on every request), and the JavaScript budget is checked: the page's
// scripts, gzipped, stay under WEB_JS_GZIP_BYTES_MAX or the build fails.
//
//   node scripts/build-web.mjs          (exit status 0, or 1 with the reason on stderr)
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const WEB_SOURCE = join(ROOT, 'src', 'web')
export const WEB_OUT = join(ROOT, 'dist', 'web')
/** The page's JavaScript, gzipped, at most (the budget: under 250 KB). */
export const WEB_JS_GZIP_BYTES_MAX = 250 * 1024
const COMPRESSED = /\.(js|css|html|svg|json|txt|map)$/

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name)).filter((path) => statSync(path).isFile())
}

/** Writes `<file>.gz` and `<file>.br` beside each text file; returns the gzipped bytes of the scripts. */
function precompress(dir) {
  let scriptGzipBytes = 0
  for (const path of filesUnder(dir).filter((path) => COMPRESSED.test(path) && !path.endsWith('.map'))) {
    const bytes = readFileSync(path)
    const gzipped = gzipSync(bytes, { level: 9 })
    writeFileSync(`${path}.gz`, gzipped)
    writeFileSync(`${path}.br`, brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }))
    if (path.endsWith('.js')) scriptGzipBytes += gzipped.length
  }
  return scriptGzipBytes
}

/** tsc over src/web (its own tsconfig: the DOM, Preact's JSX); throws with the compiler's output. */
function typecheck() {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const result = spawnSync(process.execPath, [tsc, '--noEmit', '-p', WEB_SOURCE], { cwd: ROOT, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`the page does not type-check:\n${result.stdout}${result.stderr}`)
}

export async function buildWeb() {
  typecheck()
  const { build } = await import('vite')
  rmSync(WEB_OUT, { recursive: true, force: true })
  await build({
    root: WEB_SOURCE,
    configFile: false,
    logLevel: 'warn',
    base: '/',
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: { outDir: WEB_OUT, emptyOutDir: true, assetsDir: 'assets', sourcemap: true, target: 'es2022',
      chunkSizeWarningLimit: 1024 },
  })
  const scriptGzipBytes = precompress(WEB_OUT)
  const kib = (scriptGzipBytes / 1024).toFixed(1)
  if (scriptGzipBytes > WEB_JS_GZIP_BYTES_MAX) {
    throw new Error(`the page's JavaScript is ${kib} KiB gzipped, over its budget of `
      + `${WEB_JS_GZIP_BYTES_MAX / 1024} KiB (scripts/build-web.mjs)`)
  }
  return { scriptGzipBytes }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const { scriptGzipBytes } = await buildWeb()
    process.stderr.write(`build-web: dist/web written; JavaScript ${(scriptGzipBytes / 1024).toFixed(1)} KiB gzipped\n`)
  } catch (error) {
    process.stderr.write(`build-web: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  }
}
