/**
 * A NATS server with JetStream, started as a child process (Debian's nats-server): on 127.0.0.1, a
 * port it picks itself, its store in a temporary directory; `stop` ends it (SIGTERM, then SIGKILL)
 * and removes the store. The replication tests (test/support/nats.ts, which stops it when the test
 * ends) and bench:host's replicated runs share it. A start that fails stops what it started.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'

export const NATS_SERVER = '/usr/sbin/nats-server'
/** What installs it (Debian 12 packages 2.9.10; `.ci/run` runs it for the tests). */
export const NATS_SERVER_INSTALL = 'apt-get install -y nats-server'
const START_MS_MAX = 15_000
const STOP_MS_MAX = 5_000

export interface NatsServer {
  /** `127.0.0.1:<port>` */
  readonly url: string
  readonly process: ChildProcess
  stop(): Promise<void>
}

/** Why `binary` cannot be started (it is not there, with the command that installs it), or null. */
export function natsServerMissing(binary = NATS_SERVER): string | null {
  return existsSync(binary) ? null : `no ${binary}: install Debian's nats-server (${NATS_SERVER_INSTALL})`
}

/**
 * Starts `binary` and resolves once it listens for clients; throws (having stopped it) when it does
 * not. `config`: lines of a nats-server configuration file for it (a test's own limits), none by default.
 */
export async function startNatsServer(binary = NATS_SERVER, config: readonly string[] = []): Promise<NatsServer> {
  const missing = natsServerMissing(binary)
  if (missing !== null) throw new Error(missing)
  const storeDir = mkdtempSync(join(tmpdir(), 'predex-nats-'))
  const configArgs: string[] = []
  if (config.length > 0) {
    const file = join(storeDir, 'nats-server.conf')
    writeFileSync(file, config.join('\n') + '\n')
    configArgs.push('-c', file)
  }
  // After the configuration: the command line's values win over the file's.
  const child = spawn(binary, [...configArgs, '-js', '-a', '127.0.0.1', '-p', '-1', '-sd', storeDir,
    '--http_port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (text: string) => { output += text })
  child.stderr!.setEncoding('utf8').on('data', (text: string) => { output += text })
  // A spawn that fails (permissions, a binary for another machine) is an 'error' event, not a throw.
  let spawnFailed = false
  child.on('error', (error) => {
    spawnFailed = true
    output += `\n${error.message}`
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async (): Promise<void> => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_MS_MAX)
      await exited
      clearTimeout(killer)
    }
    rmSync(storeDir, { recursive: true, force: true })
  }
  const deadline = Date.now() + START_MS_MAX
  for (;;) {
    const port = /Listening for client connections on 127\.0\.0\.1:(\d+)/.exec(output)?.[1]
    const ready = port !== undefined && output.includes('Server is ready')
    if (ready) return { url: `127.0.0.1:${port}`, process: child, stop }
    if (child.exitCode !== null || spawnFailed || Date.now() > deadline) {
      await stop()
      throw new Error(`nats-server did not start:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
