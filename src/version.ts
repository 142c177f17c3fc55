/**
 * The server's version: package.json's, read once when this module loads, so that the package,
 * GET /health and the interface documents (GET /openapi.json, GET /asyncapi.json) cannot say
 * different things. Read from the file rather than written here a second time; the module runs
 * from src/ (tests, tap) and from dist/src/ (the build), so the nearest package.json of Predex
 * above it is the one.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const PACKAGE_NAME = 'predex'

function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown }
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') return manifest.version
    }
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`no package.json of ${PACKAGE_NAME} above ${fileURLToPath(import.meta.url)}`)
    dir = parent
  }
}

/** package.json's `version` (semver). */
export const VERSION: string = packageVersion()
