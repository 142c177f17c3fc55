// npm start: the build if it is stale (scripts/build.mjs: a source newer than dist/), then the
// server in this process; dist/src/main.js reads the same arguments (npm start -- --help).
import { buildIfStale } from './build.mjs'

const status = buildIfStale()
if (status !== 0) {
  process.stderr.write('predex: the build failed (npm run build shows why)\n')
  process.exit(status)
}
await import('../dist/src/main.js')
