/**
 * A Predex server as `npm start` runs it, as a process of its own, for a test: a new data
 * directory, free ports, one signature thread, JSON logs, and `args` after those; resolved once it
 * listens (START_MS_MAX at most), stopped (SIGTERM, then SIGKILL) and its directory removed when
 * the test ends. The replication tests start several, as a cluster's nodes.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './compiled.js'

const START_MS_MAX = 60_000

export interface PredexProcess {
  readonly child: ChildProcess
  readonly dataDir: string
  /** `http://127.0.0.1:<port>` */
  readonly base: string
  /** `127.0.0.1:<port>`: its gRPC face. */
  readonly grpc: string
  readonly output: () => string
  readonly exited: Promise<unknown>
}

/** `dataDir`: a directory of an earlier process to start again on (a restarted node); a new one by default. */
export async function startPredex(t: { teardown: (fn: () => Promise<void>) => void }, args: readonly string[],
  dataDir = mkdtempSync(join(tmpdir(), 'predex-node-'))): Promise<PredexProcess> {
  const child = spawn(process.execPath, ['scripts/start.mjs', '--data-dir', dataDir, '--port', '0', '--grpc-port', '0',
    '--sig-workers', '1', '--sig-nice', '0', '--log-format', 'json', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (text: string) => { output += text })
  child.stderr!.setEncoding('utf8').on('data', (text: string) => { output += text })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    await exited
    clearTimeout(killer)
    rmSync(dataDir, { recursive: true, force: true })
  })
  const deadline = Date.now() + START_MS_MAX
  for (;;) {
    const base = /REST listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1]
    const grpc = /gRPC listening on (127\.0\.0\.1:\d+)/.exec(output)?.[1]
    if (base !== undefined && grpc !== undefined) return { child, dataDir, base, grpc, output: () => output, exited }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no server:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
