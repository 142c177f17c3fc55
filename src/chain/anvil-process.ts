/**
 * A local Ethereum node for `--chain local`: anvil, from the @foundry-rs/anvil package that `npm
 * ci` installs (its binary lives in a per-platform package beside it), on a loopback port it
 * picks itself, its chain state kept in a file under the data directory so that a restart finds
 * the same chain.
 *
 * anvil runs under a small shell that holds a pipe from this process: when this process ends in
 * any way, kill -9 included, the pipe closes, the shell's `read` returns and it stops anvil with
 * SIGTERM, on which anvil writes its state. No node outlives the exchange that started it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { ANVIL_OUTPUT_TAIL_BYTES, ANVIL_START_MS_MAX, ANVIL_STOP_MS_MAX } from '../limits.js'

export interface AnvilOptions {
  readonly chainId: number
  /** The file anvil loads its state from at start (when it exists) and writes it to. */
  readonly stateFile: string
  /** A new block every this many ms (interval mining), as a real chain makes them. */
  readonly blockMs: number
  /** Seconds between two writes of the state file while it runs (it is written at its stop too). */
  readonly stateIntervalSec: number
}

export interface AnvilNode {
  readonly rpcUrl: string
  /** anvil's own process id. */
  readonly pid: number
  /** Stops anvil (which writes its state first); resolves once it has exited. */
  stop(): Promise<void>
}

const PLATFORM_PACKAGES: Readonly<Record<string, string>> = {
  'linux-x64': 'anvil-linux-amd64',
  'linux-arm64': 'anvil-linux-arm64',
  'darwin-x64': 'anvil-darwin-amd64',
  'darwin-arm64': 'anvil-darwin-arm64',
  'win32-x64': 'anvil-win32-amd64',
}

/** The anvil binary npm installed for this machine. */
export function anvilBinary(): string {
  const name = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`]
  if (name === undefined) throw new Error(`anvil has no build for ${process.platform}-${process.arch}`)
  const require = createRequire(import.meta.url)
  const manifest = require.resolve(`@foundry-rs/${name}/package.json`)
  return join(dirname(manifest), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil')
}

// $0 is anvil, "$@" its arguments. stdin is this process's pipe: EOF (this process gone) stops anvil.
// The shell says anvil's pid first (the node's own, for operators and tests; the child's is the shell's).
const WATCHDOG = '"$0" "$@" </dev/null & child=$!; echo "anvil pid $child"; read -r _ignored; ' +
  'kill -TERM "$child" 2>/dev/null; wait "$child"'

export function startAnvil(options: AnvilOptions): Promise<AnvilNode> {
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(options.chainId),
    '--state', options.stateFile, '--state-interval', String(options.stateIntervalSec),
    '--block-time', String(options.blockMs / 1000)]
  const child = spawn('sh', ['-c', WATCHDOG, anvilBinary(), ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  const output = new OutputTail(ANVIL_OUTPUT_TAIL_BYTES)
  child.stdout.on('data', (chunk: Buffer) => output.add(chunk))
  child.stderr.on('data', (chunk: Buffer) => output.add(chunk))
  return new Promise<AnvilNode>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`anvil did not start within ${ANVIL_START_MS_MAX} ms`)),
      ANVIL_START_MS_MAX)
    const onExit = (code: number | null): void => fail(new Error(`anvil exited (code ${code}) before it listened`))
    const onData = (): void => {
      const port = /Listening on 127\.0\.0\.1:(\d+)/.exec(output.text())?.[1]
      const pid = /anvil pid (\d+)/.exec(output.text())?.[1]
      if (port === undefined || pid === undefined) return
      done()
      resolve({ rpcUrl: `http://127.0.0.1:${port}`, pid: Number(pid), stop: () => stopAnvil(child) })
    }
    const done = (): void => {
      clearTimeout(timer)
      child.off('exit', onExit)
      child.stdout.off('data', onData)
    }
    const fail = (error: Error): void => {
      done()
      void stopAnvil(child).finally(() => reject(new Error(`${error.message}; its output:\n${output.text()}`)))
    }
    child.once('exit', onExit)
    child.once('error', (error) => fail(error))
    child.stdout.on('data', onData)
  })
}

/** Ends the watchdog's pipe (anvil writes its state and exits), then kills what is left after a bound. */
function stopAnvil(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ANVIL_STOP_MS_MAX)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.stdin?.end()
  })
}

/** The last bytes a process wrote, for the error that reports its failure; older output is dropped. */
class OutputTail {
  private chunks: Buffer[] = []
  private bytes = 0

  constructor(private readonly bytesMax: number) {}

  add(chunk: Buffer): void {
    this.chunks.push(chunk)
    this.bytes += chunk.length
    while (this.bytes > this.bytesMax && this.chunks.length > 1) this.bytes -= this.chunks.shift()!.length
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8')
  }
}
