/**
 * The web page (issue 33) in memory: every file `node scripts/build-web.mjs` wrote into dist/web,
 * read once, each with its identity bytes and, when its build left `.gz` and `.br` twins beside
 * it, their bytes (compressed once by the build at its highest levels, never per request). The
 * page's index.html carries an empty `predex-chain-id` meta tag: it is rendered per chain id, the
 * server's written into it, and compressed once per chain (zlib, synchronously: some 500 bytes).
 * How these files are answered (encodings, caching, 304s): web-reply.ts.
 *
 * Files are looked up by their exact path relative to dist/web (`assets/index-DKKcFGMs.js`) in a
 * map filled here: a request names a key of that map or nothing, so no path a client sends can
 * reach a file outside dist/web (`..`, encoded slashes and symbolic links included: links are not
 * loaded).
 */
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join, sep } from 'node:path'
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib'
import { WEB_PAGE_BYTES_MAX } from '../../limits.js'
import { packageRoot } from '../../package-root.js'

/** One file as served: its media type, its validator and its bytes in each encoding it has. */
export interface PageFile {
  readonly contentType: string
  /** A weak ETag of the identity bytes: one tag for all three encodings (web-reply.ts says why). */
  readonly etag: string
  readonly identity: Uint8Array
  readonly gzip: Uint8Array | null
  readonly br: Uint8Array | null
}

/** Media types by file extension; anything else is application/octet-stream. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  js: 'text/javascript; charset=utf-8', mjs: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8', svg: 'image/svg+xml', json: 'application/json', map: 'application/json',
  txt: 'text/plain; charset=utf-8', png: 'image/png', ico: 'image/x-icon', webp: 'image/webp',
  woff2: 'font/woff2',
}
const INDEX = 'index.html'
/** What src/web/index.html carries for the server to fill in (the page reads the chain id from it). */
const CHAIN_ID_PLACEHOLDER = '<meta name="predex-chain-id" content="">'
/** The compressed twins' suffixes: never files of the page themselves. */
const TWIN = /\.(gz|br)$/

/** Where the build puts the page: dist/web of Predex's package root (from src/ and from dist/src/ alike). */
export function builtPageDir(): string {
  return join(packageRoot().dir, 'dist', 'web')
}

export class WebPage {
  private readonly files: ReadonlyMap<string, PageFile>
  private readonly indexText: string
  /** index.html rendered for each chain id asked for (a process has one). */
  private readonly indexByChain = new Map<number, PageFile>()

  /**
   * Reads every file under `dir`. Throws when the tree holds more than `bytesMax` bytes, twins
   * included, or when it has no index.html (see `load` for the page that is not built).
   */
  constructor(dir: string, bytesMax: number = WEB_PAGE_BYTES_MAX) {
    const raw = readTree(dir, bytesMax)
    const index = raw.get(INDEX)
    if (index === undefined) throw new Error(`${dir} has no ${INDEX}`)
    this.indexText = Buffer.from(index).toString('utf8')
    const files = new Map<string, PageFile>()
    for (const [name, bytes] of raw) {
      if (!TWIN.test(name)) files.set(name, pageFile(name, bytes, raw.get(`${name}.gz`), raw.get(`${name}.br`)))
    }
    this.files = files
  }

  /** The page in `dir`, or null when it is not built there (no index.html): the server then has no page. */
  static load(dir: string = builtPageDir(), bytesMax: number = WEB_PAGE_BYTES_MAX): WebPage | null {
    return existsSync(join(dir, INDEX)) ? new WebPage(dir, bytesMax) : null
  }

  /** A file of dist/web/assets by its name (`index-DKKcFGMs.js`), or undefined. */
  asset(name: string): PageFile | undefined {
    return this.files.get(`assets/${name}`)
  }

  /** index.html with `chainId` written into its meta tag, compressed. */
  index(chainId: number): PageFile {
    let file = this.indexByChain.get(chainId)
    if (file === undefined) {
      const text = this.indexText.replace(CHAIN_ID_PLACEHOLDER,
        `<meta name="predex-chain-id" content="${Math.trunc(chainId)}">`)
      file = compressedFile(INDEX, Buffer.from(text, 'utf8'))
      this.indexByChain.set(chainId, file)
    }
    return file
  }
}

/**
 * The regular files under `dir` by their path relative to it (`/`-separated). Sizes are summed
 * from their metadata before any is read, so a tree past `bytesMax` costs no memory.
 */
function readTree(dir: string, bytesMax: number): Map<string, Uint8Array> {
  const names = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => lstatSync(join(dir, name)).isFile()) // no directories, no links out of the tree
  const bytes = names.reduce((sum, name) => sum + lstatSync(join(dir, name)).size, 0)
  if (bytes > bytesMax) {
    throw new Error(`${dir} holds ${bytes} bytes, over the web page's ${bytesMax} (WEB_PAGE_BYTES_MAX)`)
  }
  return new Map(names.map((name) => [name.split(sep).join('/'), readFileSync(join(dir, name))]))
}

function contentTypeOf(name: string): string {
  const extension = name.slice(name.lastIndexOf('.') + 1).toLowerCase()
  return CONTENT_TYPES[extension] ?? 'application/octet-stream'
}

/** A short, weak validator of `bytes` (16 base64url characters of their SHA-256). */
function etagOf(bytes: Uint8Array): string {
  return `W/"${createHash('sha256').update(bytes).digest('base64url').slice(0, 16)}"`
}

/**
 * A file with the twins its build wrote, each kept only when it decompresses to exactly the
 * identity bytes: a twin left from another build (the file edited by hand since) would make a
 * browser that accepts it see a different file than one that does not.
 */
function pageFile(name: string, identity: Uint8Array, gzip: Uint8Array | undefined, br: Uint8Array | undefined):
  PageFile {
  return {
    contentType: contentTypeOf(name), etag: etagOf(identity), identity,
    gzip: gzip !== undefined && inflatesTo(gzip, identity, gunzipSync) ? gzip : null,
    br: br !== undefined && inflatesTo(br, identity, brotliDecompressSync) ? br : null,
  }
}

function inflatesTo(twin: Uint8Array, identity: Uint8Array,
  inflate: (bytes: Uint8Array, options: { maxOutputLength: number }) => Buffer): boolean {
  try {
    // Bounded: a twin that inflates past the file's own size is not its twin.
    return Buffer.from(identity).equals(inflate(twin, { maxOutputLength: Math.max(1, identity.byteLength) }))
  } catch {
    return false
  }
}

/** A file compressed here, as the build compresses (gzip level 9, brotli quality 11). */
function compressedFile(name: string, identity: Uint8Array): PageFile {
  return {
    contentType: contentTypeOf(name), etag: etagOf(identity), identity,
    gzip: gzipSync(identity, { level: 9 }),
    br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: identity.byteLength } }),
  }
}
