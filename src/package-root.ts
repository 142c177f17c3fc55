/**
 * Where Predex's package is on disk: the nearest directory above a module whose package.json is
 * Predex's. A module runs from src/ (tests, tap) and from dist/src/ (the build), so its own path
 * says nothing fixed about the root; walking up to the manifest finds it from both, and from any
 * depth. src/version.ts reads the version there; the REST face finds the built web page there
 * (dist/web, src/api/rest/web-page.ts).
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const PACKAGE_NAME = 'predex'

/** The fields of package.json read here; anything else in it is left alone. */
export interface PackageManifest {
  readonly name?: unknown
  readonly version?: unknown
}

export interface PackageRoot {
  readonly dir: string
  readonly manifest: PackageManifest
}

/** Predex's package root above `from` (a file: URL or path; this module's by default), with its manifest. */
export function packageRoot(from: string = import.meta.url): PackageRoot {
  const start = from.startsWith('file:') ? fileURLToPath(from) : from
  let dir = dirname(start)
  for (;;) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as PackageManifest
      if (manifest.name === PACKAGE_NAME) return { dir, manifest }
    }
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`no package.json of ${PACKAGE_NAME} above ${start}`)
    dir = parent
  }
}
