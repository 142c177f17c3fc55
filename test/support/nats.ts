/**
 * A NATS server with JetStream for a test (Debian's nats-server; `.ci/run` installs it when
 * missing): on 127.0.0.1, a port it picks itself, its store in a temporary directory, stopped
 * (SIGTERM, then SIGKILL) by the returned `stop` or when the test ends. A missing nats-server
 * fails the test that asks for one, with the command that installs it: never a silent skip.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const NATS_SERVER = '/usr/sbin/nats-server'
const START_MS_MAX = 15_000

export interface NatsServer {
  /** `127.0.0.1:<port>` */
  readonly url: string
  readonly process: ChildProcess
  stop(): Promise<void>
}

export async function startNats(t: { teardown: (fn: () => Promise<void> | void) => void }): Promise<NatsServer> {
  if (!existsSync(NATS_SERVER)) {
    throw new Error(`no ${NATS_SERVER}: install Debian's nats-server (apt-get install -y nats-server; .ci/run does it)`)
  }
  const storeDir = mkdtempSync(join(tmpdir(), 'predex-nats-'))
  const child = spawn(NATS_SERVER, ['-js', '-a', '127.0.0.1', '-p', '-1', '-sd', storeDir, '--http_port', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (text: string) => { output += text })
  child.stderr!.setEncoding('utf8').on('data', (text: string) => { output += text })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await exited
      clearTimeout(killer)
    }
    rmSync(storeDir, { recursive: true, force: true })
  }
  t.teardown(stop)
  const deadline = Date.now() + START_MS_MAX
  for (;;) {
    const port = /Listening for client connections on 127\.0\.0\.1:(\d+)/.exec(output)?.[1]
    if (port !== undefined && output.includes('Server is ready')) return { url: `127.0.0.1:${port}`, process: child, stop }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nats-server did not start:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
