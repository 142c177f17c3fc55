/**
 * How a file of the web page (web-page.ts) is answered: in the encoding the client accepts
 * (brotli before gzip before none, by Accept-Encoding's q-values), with `Vary: Accept-Encoding`,
 * its media type and `X-Content-Type-Options: nosniff`; with an ETag, and a 304 without a body
 * when If-None-Match already names it. The hashed files under /assets never change under their
 * name and are cached for a year; index.html names them, so it is revalidated every time
 * (`no-cache`), and it carries the Content-Security-Policy that keeps the page on this server.
 */
import type { Reply, RestRequest } from './route.js'
import type { PageFile } from './web-page.js'

export type Encoding = 'br' | 'gzip' | 'identity'

/** A file's answer: its bytes (maybe none: a 304), no JSON body. */
export type FileReply = Omit<Reply, 'body' | 'json' | 'bytes'> & { readonly body: null; readonly bytes: Uint8Array }

/** A hashed asset: a new build writes a new name, so a copy is good for ever (a year, by convention). */
const IMMUTABLE = 'public, max-age=31536000, immutable'
/** The preference among codings a client weighs equally (browsers send no weights). */
const PREFERENCE: readonly Encoding[] = ['br', 'gzip', 'identity']
/**
 * Identity's weight when Accept-Encoding names neither it nor `*`: acceptable (RFC 9110 12.5.3),
 * but after every coding the client named, so the least a q-value can say (three decimals).
 */
const IDENTITY_UNNAMED_WEIGHT = 0.001

/** index.html: revalidated on every load (its ETag makes that a 304), with the page's security policy. */
export function indexReply(file: PageFile, request: RestRequest): FileReply {
  return fileReply(file, request, { 'cache-control': 'no-cache', vary: 'accept, accept-encoding',
    'content-security-policy': pagePolicy(request.headers('host')) })
}

/** A file of /assets. */
export function assetReply(file: PageFile, request: RestRequest): FileReply {
  return fileReply(file, request, { 'cache-control': IMMUTABLE })
}

function fileReply(file: PageFile, request: RestRequest, headers: Readonly<Record<string, string>>): FileReply {
  // The validators and caching headers go with a 304 too, as with the 200 it stands for.
  const common = { vary: 'accept-encoding', etag: file.etag, 'x-content-type-options': 'nosniff', ...headers }
  if (etagMatches(request.headers('if-none-match'), file.etag)) {
    return { status: 304, body: null, bytes: new Uint8Array(0), headers: common }
  }
  const has = { br: file.br !== null, gzip: file.gzip !== null }
  const encoding = chosenEncoding(request.headers('accept-encoding'), has)
  const bytes = encoding === 'identity' ? file.identity : (encoding === 'br' ? file.br : file.gzip) ?? file.identity
  return { body: null, bytes, contentType: file.contentType,
    headers: encoding === 'identity' ? common : { ...common, 'content-encoding': encoding } }
}

/**
 * The encoding to send: of those the file has, the one Accept-Encoding weighs most, ties going to
 * brotli, then gzip, then none. A coding the header does not name takes `*`'s weight; identity is
 * the last resort unless refused (`identity;q=0`, or `*;q=0` without it); with no header, identity
 * (RFC 9110 allows any coding then, but a client that says nothing may not decode one). When the
 * client refuses every coding the file has, identity all the same: RFC 9110 12.5.3 lets a server
 * ignore the header rather than answer 406.
 */
export function chosenEncoding(header: string | undefined, has: { readonly br: boolean; readonly gzip: boolean }):
  Encoding {
  if (header === undefined || header.trim() === '') return 'identity'
  const weights = codingWeights(header)
  const weightOf = (coding: Encoding): number => {
    const named = coding === 'gzip' ? weights.get('gzip') ?? weights.get('x-gzip') : weights.get(coding)
    return named ?? weights.get('*') ?? (coding === 'identity' ? IDENTITY_UNNAMED_WEIGHT : 0)
  }
  let best: Encoding = 'identity'
  let bestWeight = 0
  for (const coding of PREFERENCE.filter((c) => c === 'identity' || has[c])) {
    const weight = weightOf(coding)
    if (weight > bestWeight) [best, bestWeight] = [coding, weight]
  }
  return best
}

/** Each coding Accept-Encoding names (lower case, `*` too) with its q-value; an unreadable q drops the entry. */
function codingWeights(header: string): Map<string, number> {
  const weights = new Map<string, number>()
  for (const item of header.toLowerCase().split(',')) {
    const [coding, ...parameters] = item.split(';').map((part) => part.trim())
    if (coding === undefined || coding === '') continue
    const q = parameters.find((parameter) => parameter.startsWith('q='))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    if (Number.isFinite(weight) && weight >= 0 && weight <= 1) weights.set(coding, weight)
  }
  return weights
}

/**
 * Whether If-None-Match names `etag` (or is `*`), compared weakly as RFC 9110 13.1.2 has it. The
 * tags are weak because one tag stands for the three encodings of a file: their bytes differ,
 * what they mean does not.
 */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  const opaque = (tag: string): string => tag.trim().replace(/^W\//, '')
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag))
}

/**
 * The page's Content-Security-Policy: everything from this server only. Scripts only its files
 * (no inline script, no eval); styles its files and inline styles (the charts set style
 * attributes); images its files, data: and blob: (images the page makes itself); connections to itself, its
 * WebSocket channels included. CSP 3 counts ws: and wss: on the page's own host as 'self', but
 * browsers before it do not, so the host the request named is added when it is a plain host[:port]
 * (anything else in a Host header could change the policy; an IPv6 literal is not a CSP source).
 */
export function pagePolicy(host: string | undefined): string {
  const sameHost = host !== undefined && /^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(host) ? ` ws://${host} wss://${host}` : ''
  return [`default-src 'self'`, `script-src 'self'`, `style-src 'self' 'unsafe-inline'`,
    `img-src 'self' data: blob:`, `connect-src 'self'${sameHost}`, `font-src 'self'`, `object-src 'none'`,
    `base-uri 'none'`, `form-action 'self'`, `frame-ancestors 'none'`].join('; ')
}
