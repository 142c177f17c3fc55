/**
 * Predex as the end-to-end benchmarks run it: its own process, as `npm start` runs it (durability
 * sync, LMDB on a temporary directory), with the rate limits off (one client address drives
 * everything) and the faucet open; then one market and funded traders with API keys, and their
 * orders signed before any timed phase (signing is the client's cost, not the server's).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve as resolvePath } from 'node:path'
import { addCpu, type CpuMeter, type PhaseCpu } from './cpu-time.js'
import type { ApiCredentials } from '../src/api/shapes/credential.js'
import { signLimitOrder, type MarketTerms, type SignedOrder } from '../src/client/orders.js'
import { PredexClient } from '../src/client/predex-client.js'
import { Wallet } from '../src/crypto/wallet.js'

export const CHAIN_ID = 80002
/** dist/: this file's parent when it runs compiled, else the build beside the sources (a test run from TypeScript). */
const DIST = ((): string => {
  const parent = new URL('../', import.meta.url).pathname
  return existsSync(join(parent, 'src/main.js')) ? parent : join(parent, 'dist/')
})()
const ADMIN_KEY = 'bench-admin-key-' + 'x'.repeat(16)

export interface Trader {
  readonly wallet: Wallet
  readonly address: string
  readonly credentials: ApiCredentials
}

export interface SignedFor {
  readonly trader: Trader
  readonly signed: SignedOrder
}

export interface Child {
  readonly process: ChildProcess
  readonly port: number
  /** What it printed until its port appeared. */
  readonly output: string
}

/**
 * Starts `node <nodeFlags> <script> <args>` (from dist/) and waits for its port in its output.
 * PREDEX_BENCH_NODE_OPTIONS adds node flags to every child.
 */
export function startChild(script: string, args: readonly string[], portPattern: RegExp,
  nodeFlags: readonly string[] = []): Promise<Child> {
  return new Promise((resolve, reject) => {
    const nodeOptions = (process.env.PREDEX_BENCH_NODE_OPTIONS ?? '').split(' ').filter((flag) => flag !== '')
    const child = spawn(process.execPath, [...nodeOptions, ...nodeFlags, join(DIST, script), ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    // A child that never says it listens is killed, not left behind the failed run.
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${script} did not start:\n${output}`))
    }, 60_000)
    const onData = (chunk: Buffer): void => {
      output += chunk.toString()
      const match = portPattern.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve({ process: child, port: Number(match[1]), output })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${output}`)))
  })
}

/**
 * SIGTERM, then SIGKILL if it has not exited within 20 s. Says so on stderr when it had to kill,
 * or when the child exited with an error: a killed child writes no CPU profile.
 */
export async function stopChild(child: Child): Promise<void> {
  const { exitCode, signalCode } = child.process
  // A child that already ended (killed, crashed) emits no second 'exit': waiting for one would never end.
  if (exitCode !== null || signalCode !== null) {
    process.stderr.write(`child ${child.process.pid} had already ended with ${signalCode ?? `exit code ${exitCode}`}\n`)
    return
  }
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.process.once('exit', (code, signal) => resolve([code, signal])))
  child.process.kill('SIGTERM')
  const timer = setTimeout(() => child.process.kill('SIGKILL'), 20_000)
  const [code, signal] = await exited
  clearTimeout(timer)
  if (code !== 0) process.stderr.write(`child ${child.process.pid} ended with ${signal ?? `exit code ${code}`}\n`)
}

export interface BenchServer {
  readonly restPort: number
  readonly grpcPort: number
  /** http://127.0.0.1:<restPort> */
  readonly base: string
  /** The server process (its memory is read from /proc). */
  readonly pid: number
  stop(): Promise<void>
}

export interface ServerOptions {
  /**
   * Where the server writes its CPU profiles (node --cpu-prof: one .cpuprofile per thread, the
   * main thread, the engine worker and the pool threads), written when it stops; null: none.
   */
  readonly profileDir?: string | null
  /** The rate limits on, as in production (default off: one client address drives a benchmark). */
  readonly rateLimits?: boolean
  /**
   * More server flags, after the benchmark's own: a replicated primary's `--nats-servers`, a read
   * replica's `--role replica --primary-url` (bench:replica starts both with this one starter).
   */
  readonly args?: readonly string[]
}

/** The node flags that make a child write CPU profiles of its threads into `dir` when it exits. */
export function profileFlags(dir: string | null | undefined): string[] {
  if (dir === null || dir === undefined) return []
  mkdirSync(dir, { recursive: true })
  return ['--cpu-prof', `--cpu-prof-dir=${resolvePath(dir)}`]
}

/**
 * Predex from dist/src/main.js on free ports, rate limits off (unless `rateLimits`), its data in a
 * temporary directory, with `args` after the benchmark's flags.
 * With `profileDir`, its threads are profiled; `stop()` waits for its graceful exit (SIGTERM:
 * drain, flush, exit), which is when node writes the profiles.
 */
export async function startPredexServer(options: ServerOptions = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'predex-bench-'))
  const child = await startChild('src/main.js', ['--data-dir', dataDir, '--port', '0', '--grpc-port', '0', '--no-demo',
    '--rate-limits', String(options.rateLimits ?? false), '--faucet-amount', '1000000', '--faucet-cooldown', '0',
    '--admin-key', ADMIN_KEY, ...(options.args ?? [])],
  /gRPC listening on [^:\s]+:(\d+)/, profileFlags(options.profileDir)).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  })
  const restPort = Number(/REST listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(child.output)?.[1])
  return {
    restPort, grpcPort: child.port, base: `http://127.0.0.1:${restPort}`, pid: child.process.pid!,
    async stop() {
      await stopChild(child)
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** A market (tick 0.01, minimum size 5, no fee) and `count` traders with USDC, approval and an API key. */
export async function setUpTraders(server: BenchServer, count: number):
  Promise<{ traders: Trader[]; tokenId: string; noTokenId: string; marketId: string }> {
  const admin = new PredexClient({ baseUrl: server.base, adminKey: ADMIN_KEY })
  const market = await admin.createMarket({ question: 'Will the benchmark finish?', tick_size: '0.01',
    min_order_size: '5' })
  const traders = await Promise.all(Array.from({ length: count }, async () => {
    const wallet = Wallet.random()
    const client = new PredexClient({ baseUrl: server.base, wallet })
    await client.faucet('1000000')
    await client.approve(Number.MAX_SAFE_INTEGER)
    const credentials = await client.createApiKey()
    return { wallet, address: wallet.address.toLowerCase(), credentials }
  }))
  return { traders, tokenId: market.yes_token_id, noTokenId: market.no_token_id, marketId: market.id }
}

/**
 * `count` orders of the traders in turn, BUY Yes on prices 0.01..0.49 (they rest: nobody sells),
 * size 5. `first` numbers them on from an earlier batch, so prices keep cycling over the levels.
 */
export function signOrders(traders: readonly Trader[], tokenId: string, count: number, first = 0): SignedFor[] {
  const terms: MarketTerms = { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: CHAIN_ID }
  return Array.from({ length: count }, (_, j) => {
    const i = first + j
    const trader = traders[i % traders.length]!
    const price = ((i % 49) + 1) / 100
    return { trader,
      signed: signLimitOrder(trader.wallet, terms, { tokenId, side: 'BUY', price: price.toFixed(2), size: 5 }) }
  })
}

/** Now on the monotonic clock V8 stamps profile samples with (process.hrtime), in µs. */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n)
}

/**
 * When each phase of a benchmark ran, on the clock of the server's profile samples, so that one
 * profile splits by phase: `node scripts/profile-summary.mjs <dir> --phase <name>` reads the
 * phases.json this writes beside the profiles.
 */
export class PhaseClock {
  private readonly phases: { name: string; fromUs: number; toUs: number }[] = []
  private readonly cpuByName = new Map<string, PhaseCpu>()

  /** With a `meter`, each phase's CPU time is read too (`cpu(name)`). */
  constructor(private readonly meter: CpuMeter | null = null) {}

  async time<T>(name: string, work: () => Promise<T>): Promise<T> {
    const fromUs = monotonicUs()
    try {
      if (this.meter === null) return await work()
      const { result, cpu } = await this.meter.phase(work)
      // A phase run in slices (in turns with another) counts them all.
      const before = this.cpuByName.get(name)
      this.cpuByName.set(name, before === undefined ? cpu : addCpu(before, cpu))
      return result
    } finally {
      this.phases.push({ name, fromUs, toUs: monotonicUs() })
    }
  }

  /** The CPU time the phase `name` took (all its runs), if a meter read it. */
  cpu(name: string): PhaseCpu | undefined {
    return this.cpuByName.get(name)
  }

  /** Writes `<dir>/phases.json` (nothing when `dir` is null). */
  write(dir: string | null): void {
    if (dir === null) return
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'phases.json'), JSON.stringify(this.phases, null, 2) + '\n')
  }
}

/** The value after `--profile-dir` in `argv`, or null. */
export function profileDirOf(argv: readonly string[] = process.argv.slice(2)): string | null {
  const index = argv.indexOf('--profile-dir')
  if (index < 0) return null
  const dir = argv[index + 1]
  if (dir === undefined || dir.startsWith('--')) throw new Error('--profile-dir needs a directory')
  return dir
}

/**
 * The directory this process writes its own CPU profile to (node --cpu-prof --cpu-prof-dir=DIR),
 * or null: a benchmark run in-process (bench:host) writes its phases.json there.
 */
export function ownProfileDir(): string | null {
  if (!process.execArgv.includes('--cpu-prof')) return null
  const flag = process.execArgv.find((arg) => arg.startsWith('--cpu-prof-dir='))
  return flag === undefined ? process.cwd() : flag.slice('--cpu-prof-dir='.length)
}
