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
import { ConfigError, configOf, describe, helpText } from './config.js'
import { currentRuntime, runtimeProblem } from './runtime.js'

const REPEAT_SIGNAL_MS_MIN = 1_000

function log(line: string): void {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`)
}

async function main(): Promise<number> {
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
  log(`config: ${describe(config)}`)
  const { startPredex } = await import('./app.js')
  const predex = await startPredex(config, log)
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${predex.port}`
  log(`REST listening on ${base} (Polymarket CLOB compatible under ${base}/compat)`)
  log(`gRPC listening on ${config.host}:${predex.grpcPort} (predex.v1, reflection and grpc.health.v1 on; docs/grpc.md)`)
  log(`try it: curl -s ${base}/markets   then   curl -s "${base}/book?token_id=<yes_token_id>"`)
  const adminKeySource = config.adminKey !== null
    ? 'from --admin-key / ADMIN_API_KEY'
    : `stored in ${config.dataDir}/admin-key`
  log(`admin key: ${adminKeySource}`)
  // Where, never what: API secrets derive from it, so losing it means creating every API key again.
  const masterKeySource = config.masterKey !== null
    ? 'from --master-key / PREDEX_MASTER_KEY'
    : `stored in ${config.dataDir}/master-key`
  log(`master key (API secrets derive from it; back it up): ${masterKeySource}`)
  await new Promise<void>((resolve) => {
    let stoppingSinceMs = 0
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stoppingSinceMs !== 0) {
        // npm (and `timeout`) forward the terminal's Ctrl-C, so one keypress can arrive twice:
        // only a signal well after the first means "stop waiting".
        if (Date.now() - stoppingSinceMs < REPEAT_SIGNAL_MS_MIN) return
        log(`${signal} again: exiting now without waiting for the stop`)
        process.exit(130)
      }
      stoppingSinceMs = Date.now()
      log(`${signal}: stopping (no new requests; draining, flushing the journal)`)
      predex.stop().then(resolve, (error: unknown) => {
        log(`stop failed: ${(error as Error).stack ?? String(error)}`)
        process.exitCode = 1
        resolve()
      })
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  })
  log('stopped cleanly')
  return process.exitCode === undefined ? 0 : Number(process.exitCode)
}

main().then((code) => {
  process.exitCode = code
}, (error: unknown) => {
  process.stderr.write(`predex: failed to start: ${(error as Error).stack ?? String(error)}\n`)
  process.exitCode = 1
})
