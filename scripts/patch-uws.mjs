// postinstall: a two-byte fix to the uWebSockets.js v20.30 binary for Linux x64 / Node 20, so
// that request headers with an underscore in their name (Polymarket's POLY_ADDRESS, POLY_SIGNATURE,
// ... which every @polymarket/clob-client request carries) are parsed instead of silently dropping
// the whole request.
//
// Why: uWS v20.15 to v20.60 accept only [A-Za-z0-9-] in header names and close the connection on
// anything else (uNetworking/uWebSockets.js#1018, uNetworking/uWebSockets#1719; fixed upstream in
// v20.61). v20.30 is the newest build on the npm registry that loads on Node 20 with this glibc
// (docs/operations, "Dependencies"), so we carry the fix the way patch-package would.
//
// What: the header-name loop classifies a byte as a letter when `(c & 0xdf) - 0x41 < 0x1a`. The
// patch widens the bound to 0x1f, which also admits `[ \ ] ^ _` and `{ | } ~ DEL`: never `:`,
// space, tab, CR or LF, so framing is unchanged. uWS lower-cases names with `| 0x20`, which turns
// `_` into DEL (0x7f); the REST server maps DEL back to `_` when it copies the headers.
//
// Safety: the script checks the file's SHA-256 and the exact bytes at each site before writing,
// and the patched file's SHA-256 after; anything unexpected leaves the file alone and says so.
// Running it again is a no-op. Other platforms' binaries are not patched (the server's start-up
// probe warns when underscore headers do not get through).
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const BINARY = join(here, '..', 'node_modules', 'uWebSockets.js', 'binaries', 'uws_linux_x64_115.node')
const PRISTINE_SHA256 = 'f158fb441f7e2e37b3ab9a56782fe37f4c0d33b5cd32e96ee5c0120ce7db7ced'
/** `cmp $0x1a,%al` (3c 1a) -> `cmp $0x1f,%al` at two places of HttpParser's header-name loop. */
const SITES = [0xeb553, 0xeb586]
const BEFORE = [0x3c, 0x1a]
const AFTER = [0x3c, 0x1f]

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex')

function patched(bytes) {
  const copy = Buffer.from(bytes)
  for (const site of SITES) {
    if (copy[site] !== BEFORE[0] || copy[site + 1] !== BEFORE[1]) return null
    copy[site + 1] = AFTER[1]
  }
  return copy
}

function main() {
  if (!existsSync(BINARY)) {
    console.log('patch-uws: no uWebSockets.js linux-x64 Node 20 binary found; nothing to patch')
    return
  }
  const bytes = readFileSync(BINARY)
  const current = sha256(bytes)
  if (current !== PRISTINE_SHA256) {
    const alreadyDone = SITES.every((site) => bytes[site] === AFTER[0] && bytes[site + 1] === AFTER[1])
    console.log(alreadyDone
      ? 'patch-uws: uWebSockets.js already accepts underscores in header names'
      : `patch-uws: unexpected uWebSockets.js binary (sha256 ${current}); not patched. POLY_* headers may be dropped.`)
    return
  }
  const fixed = patched(bytes)
  if (fixed === null) throw new Error('patch-uws: the pristine binary lacks the expected bytes at the patch sites')
  writeFileSync(BINARY, fixed)
  if (!readFileSync(BINARY).equals(fixed)) throw new Error('patch-uws: the binary on disk differs from what was written')
  console.log('patch-uws: uWebSockets.js now accepts underscores in header names (POLY_* headers of clob-client)')
}

main()
