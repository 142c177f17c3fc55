/**
 * The runtime Predex runs on, checked by `npm start` before anything loads uWebSockets.js. The
 * build of uWS that loads here (`@trufflesuite/uws-js-unofficial` 20.30: newer builds on npm need
 * glibc 2.38, which Debian 12 does not have) carries binaries for Node 16, 18 and 20 only, and
 * scripts/patch-uws.mjs lets underscore header names through (Polymarket's POLY_ADDRESS, ...) in
 * its Linux x64 binary for Node 20 only. Anywhere else the server would fail later, when it loads
 * uWS (Node 22 and 24 have no binary), or run and drop every request of `@polymarket/clob-client`
 * without a word (an unpatched binary): so it refuses to start, and says why.
 */

export interface Runtime {
  /** `process.version`, such as v20.19.0. */
  readonly nodeVersion: string
  /** `process.versions.modules`: the native-module ABI a uWS binary is built for. */
  readonly moduleAbi: string
  readonly platform: string
  readonly arch: string
}

/** Node 20's native-module ABI: the uWS binary that scripts/patch-uws.mjs patches is built for it. */
export const SUPPORTED_MODULE_ABI = '115'
export const SUPPORTED_PLATFORM = 'linux'
export const SUPPORTED_ARCH = 'x64'

export function currentRuntime(): Runtime {
  return { nodeVersion: process.version, moduleAbi: process.versions.modules, platform: process.platform,
    arch: process.arch }
}

/** Why Predex cannot run on `runtime`, or null when it can. */
export function runtimeProblem(runtime: Runtime): string | null {
  if (runtime.moduleAbi !== SUPPORTED_MODULE_ABI) {
    return `Predex runs on Node.js 20 only, and this is Node.js ${runtime.nodeVersion}: uWebSockets.js v20.30, the `
      + 'newest build on npm that loads with glibc 2.36, has binaries for Node 16 to 20, and only its Node 20 '
      + "build is patched to accept Polymarket's underscore headers (README, \"Platforms\")"
  }
  if (runtime.platform !== SUPPORTED_PLATFORM || runtime.arch !== SUPPORTED_ARCH) {
    return `Predex runs on Linux x64 only, and this is ${runtime.platform} ${runtime.arch}: only that uWebSockets.js `
      + "binary is patched to accept Polymarket's underscore headers (POLY_ADDRESS, ...); elsewhere every "
      + '@polymarket/clob-client request would be dropped (README, "Platforms")'
  }
  return null
}
