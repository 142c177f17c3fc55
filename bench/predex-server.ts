/**
 * Predex as the end-to-end benchmarks run it: its own process, as `npm start` runs it (durability
 * sync, LMDB on a temporary directory), with the rate limits off (one client address drives
 * everything) and the faucet open; then one market and funded traders with API keys, and their
 * orders signed before any timed phase (signing is the client's cost, not the server's).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ApiCredentials } from '../src/client/headers.js'
import { signLimitOrder, type MarketTerms, type SignedOrder } from '../src/client/orders.js'
import { PredexClient } from '../src/client/predex-client.js'
import { Wallet } from '../src/client/wallet.js'

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

/** Starts `node <script> <args>` (from dist/) and waits for its port in its output. */
export function startChild(script: string, args: readonly string[], portPattern: RegExp): Promise<Child> {
  return new Promise((resolve, reject) => {
    // PREDEX_BENCH_NODE_OPTIONS: extra node flags for the children (e.g. --cpu-prof to profile the server).
    const nodeOptions = (process.env.PREDEX_BENCH_NODE_OPTIONS ?? '').split(' ').filter((flag) => flag !== '')
    const child = spawn(process.execPath, [...nodeOptions, join(DIST, script), ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${output}`)), 60_000)
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

export async function stopChild(child: Child): Promise<void> {
  const exited = new Promise((resolve) => child.process.once('exit', resolve))
  child.process.kill('SIGTERM')
  const timer = setTimeout(() => child.process.kill('SIGKILL'), 20_000)
  await exited
  clearTimeout(timer)
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

/** Predex from dist/src/main.js on free ports, rate limits off, its data in a temporary directory. */
export async function startPredexServer(): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'predex-bench-'))
  const child = await startChild('src/main.js', ['--data-dir', dataDir, '--port', '0', '--grpc-port', '0', '--no-demo',
    '--rate-limits', 'false', '--faucet-amount', '1000000', '--faucet-cooldown', '0', '--admin-key', ADMIN_KEY],
  /gRPC listening on [^:\s]+:(\d+)/)
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
  Promise<{ traders: Trader[]; tokenId: string }> {
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
  return { traders, tokenId: market.yes_token_id }
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
