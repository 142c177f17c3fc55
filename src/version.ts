/**
 * The server's version: package.json's, read once when this module loads, so that the package,
 * GET /health and the interface documents (GET /openapi.json, GET /asyncapi.json) cannot say
 * different things. Read from the file rather than written here a second time: the manifest of
 * Predex's package root (src/package-root.ts).
 */
import { packageRoot } from './package-root.js'

function packageVersion(): string {
  const { dir, manifest } = packageRoot()
  if (typeof manifest.version !== 'string') throw new Error(`${dir}/package.json has no version`)
  return manifest.version
}

/** package.json's `version` (semver). */
export const VERSION: string = packageVersion()
