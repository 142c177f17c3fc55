/**
 * `npm start`: configuration from flags and environment, the effective values logged once,
 * Predex started, where it listens and how to try it printed, and a graceful stop on SIGINT or
 * SIGTERM (stop accepting, drain what is in flight, flush the journal, exit). A second signal
 * during the stop exits at once.
 *
 * The server's modules (uWebSockets.js, LMDB, gRPC) load only after the flags are read and the
 * runtime is checked: `--help` answers without them, and an unsupported runtime gets a sentence
 * that says so rather than a failed native load (src/runtime.ts).
 */
import { ConfigError, configOf, effectiveSettings, helpText } from './config.js'
import { openLog } from './log.js'
import { currentRuntime, runtimeProblem } from './runtime.js'
import { keepShortLivedObjectsYoung } from './collector.js'

const REPEAT_SIGNAL_MS_MIN = 1_000
/** Errors whose message says all an operator needs (src/api/port-check.ts, src/journal/directory-lock.ts). */
const OPERATOR_ERRORS = new Set(['PortInUseError', 'DataDirectoryInUseError'])

async function main(): Promise<number> {
  keepShortLivedObjectsYoung()
  let config
  try {
    config = configOf(process.argv.slice(2), process.env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`predex: ${error.message}\n`)
    return 2
  }
  if (config === 'help') {
    process.stdout.write(helpText() + '\n')
    return 0
  }
  const problem = runtimeProblem(currentRuntime())
  if (problem !== null) {
    process.stderr.write(`predex: ${problem}\n`)
    return 3
  }
  const log = await openLog({ level: config.logLevel,
    format: config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json') })
  log.info('configuration', effectiveSettings(config))
  const { startPredex } = await import('./app.js')
  const predex = await startPredex(config, log)
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${predex.port}`
  log.info(`REST listening on ${base} (Polymarket CLOB compatible under ${base}/compat)`, { url: base })
  log.info(`gRPC listening on ${config.host}:${predex.grpcPort} (predex.v1, reflection and grpc.health.v1 on; `
    + 'docs/grpc.md)', { host: config.host, port: predex.grpcPort })
  log.info(`try it: curl -s ${base}/markets   then   curl -s "${base}/book?token_id=<yes_token_id>"`)
  const adminKeySource = config.adminKey !== null
    ? 'from --admin-key / ADMIN_API_KEY'
    : `stored in ${config.dataDir}/admin-key`
  log.info(`admin key: ${adminKeySource}`)
  // Where, never what: API secrets derive from it, so losing it means creating every API key again.
  const masterKeySource = config.masterKey !== null
    ? 'from --master-key / PREDEX_MASTER_KEY'
    : `stored in ${config.dataDir}/master-key`
  log.info(`master key (API secrets derive from it; back it up): ${masterKeySource}`)
  await new Promise<void>((resolve) => {
    let stoppingSinceMs = 0
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stoppingSinceMs !== 0) {
        // npm (and `timeout`) forward the terminal's Ctrl-C, so one keypress can arrive twice:
        // only a signal well after the first means "stop waiting".
        if (Date.now() - stoppingSinceMs < REPEAT_SIGNAL_MS_MIN) return
        log.warn('signal again: exiting now without waiting for the stop', { signal })
        process.exit(130)
      }
      stoppingSinceMs = Date.now()
      log.info(`${signal}: stopping (no new requests; draining, flushing the journal)`, { signal })
      predex.stop().then(resolve, (error: unknown) => {
        log.error('stop failed', { err: error })
        process.exitCode = 1
        resolve()
      })
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  })
  log.info('stopped cleanly')
  return process.exitCode === undefined ? 0 : Number(process.exitCode)
}

main().then((code) => {
  process.exitCode = code
}, (error: unknown) => {
  // An operator's mistake (a port or data directory in use) is said in a sentence; anything else with its stack.
  const known = error instanceof Error && OPERATOR_ERRORS.has(error.name)
  process.stderr.write(`predex: failed to start: ${known ? error.message : (error as Error).stack ?? String(error)}\n`)
  // startPredex closed what it had opened; exit now all the same, so nothing left behind keeps a failed start alive.
  process.exit(1)
})
