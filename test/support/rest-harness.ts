/**
 * A real Predex over loopback for REST tests: started in-process on 127.0.0.1, port 0, a fresh
 * temporary data directory, no demo set; markets created and wallets funded through engine
 * commands (credit, approve, split) until the faucet lands. Every helper returns what the engine
 * answered, so a test can assert on it.
 */
import type { Clock } from '../../src/clock.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Predex } from '../../src/app.js'
import { freshCompiled } from './compiled.js'
import { ResponseValidator } from './openapi-validator.js'
import { configOf, type Config } from '../../src/config.js'
import { newMarketIds } from '../../src/service/market-data/market-ids.js'
import type { MarketInput, UnstampedCommand } from '../../src/engine/command.js'
import type { MarketRecord } from '../../src/engine/event.js'
import type { CommandResult } from '../../src/engine/result.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { l2Headers, type HeaderFamily } from '../../src/crypto/request-headers.js'
import type { ApiCredentials } from '../../src/api/shapes/credential.js'
import { l1Headers } from '../../src/crypto/request-headers.js'
import { orderBody, signLimitOrder, type OrderType, type SignedOrder } from '../../src/client/orders.js'
import { CHAIN_ID, USDC, nowSec, termsOf, type Trader } from './driver.js'
import { lineLog, SILENT_LOG, type Log } from '../../src/log.js'
import { ChainStage } from './chain-stage.js'

export { CHAIN_ID, USDC, nowSec, termsOf, type Trader } from './driver.js'

export interface TestServer {
  readonly predex: Predex
  /** http://127.0.0.1:<port> */
  readonly base: string
  readonly dataDir: string
  /** What stands behind the test network (StartOptions.chain). */
  readonly chain: 'builtin' | 'local'
  /** Submits an engine command; throws if the engine refuses it. On a real chain, the ledger's are done there. */
  command(command: UnstampedCommand): Promise<CommandResult>
  createMarket(options?: Partial<Omit<MarketInput, 'marketId' | 'conditionId' | 'yesTokenId' | 'noTokenId'>>): Promise<MarketRecord>
  /** Credits USDC (micro-units) and approves the exchange for it all. */
  fund(address: string, usdcMicros: number): Promise<void>
  /** A wallet with API credentials (created over L1) and, if asked, funds. */
  trader(usdcMicros?: number): Promise<Trader>
  /** The engine's exact account summary. */
  account(address: string): Promise<{ usdcMicros: number; heldMicros: number; shares: Map<string, number> }>
  /** On a real chain the wallet approves the settling exchange for its outcome tokens itself; nothing otherwise. */
  approveOutcomeTokens(address: string): Promise<{ transactionHash: string } | null>
  stop(): Promise<void>
}

export interface StartOptions {
  /** Extra flags, as on the command line. */
  readonly argv?: readonly string[]
  readonly log?: (line: string) => void
  /** The server's log itself (a pino log with its own destination), instead of `log`'s lines. */
  readonly logger?: Log
  /** An existing data directory to start on (a restart); a new temporary one by default. */
  readonly dataDir?: string
  /** The server's clock (test/support/clock.ts); the system's by default. */
  readonly clock?: Clock
  /**
   * `local`: a real chain behind the test network (--chain local, 100 ms blocks), the stage set on it
   * (test/support/chain-stage.ts) instead of by engine commands.
   */
  readonly chain?: 'local'
}

/**
 * The app from the build when it is up to date (its engine and verification workers then start
 * from JavaScript, seconds faster under tap), else from the sources.
 */
async function app(): Promise<typeof import('../../src/app.js')> {
  const compiled = freshCompiled('src/app.js', ['src'])
  return compiled !== null ? import(compiled) : import('../../src/app.js')
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'predex.rest-')) // a dot, as mktemp's (journal.ts)
  // No shedding by event-loop lag: here the test shares the server's thread, so its own work (signing
  // orders, checking answers) would count as the server's lag (shedding has its own test). Signature
  // threads at nice 0: the suite runs three files at once, and at the default 10 they waited behind the
  // other files' work (verification took 4 x as long beside two busy processes; the nice value has its
  // own tests: test/integration/crypto/verifier-pool.test.ts, and the overload test runs the default).
  const chainArgs = options.chain === 'local' ? ['--chain', 'local', '--chain-block-ms', '100'] : []
  const config = configOf(['--data-dir', dataDir, '--port', '0', '--grpc-port', '0', '--no-demo', '--sig-workers', '1',
    '--shed-lag-ms', '0', '--sig-nice', '0', ...chainArgs, ...(options.argv ?? [])], {})
  if (config === 'help') throw new Error('unexpected help')
  const { startPredex } = await app()
  const log = options.logger ?? (options.log === undefined ? SILENT_LOG : lineLog(options.log))
  const predex = await startPredex(config as Config, log, options.clock)
  const base = `http://127.0.0.1:${predex.port}`
  const host = predex.context.host
  await documentValidator() // now, not inside the first request a test times or counts against a budget
  const stage = options.chain === 'local' ? new ChainStage(predex.context) : null
  const engineCommand = async (c: UnstampedCommand): Promise<CommandResult> => {
    const { result } = await host.submit(c)
    if (!result.ok) throw new Error(`engine refused ${c.kind}: ${JSON.stringify(result)}`)
    return result
  }
  const command = stage === null ? engineCommand : onChain(stage, engineCommand)
  const fund = async (address: string, usdcMicros: number): Promise<void> => {
    if (stage !== null) return stage.fund(address, usdcMicros)
    await command({ kind: 'credit', address, usdcMicros, gasMicros: 0 })
    await command({ kind: 'approve', address, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER })
  }
  return {
    predex, base, dataDir, command, fund, chain: stage === null ? 'builtin' : 'local',
    async createMarket(overrides = {}) {
      const ids = stage === null ? newMarketIds() : await stage.marketIds()
      await command({ kind: 'createMarket', market: {
        ...ids, question: `Test market ${ids.marketId}?`, slug: `test-${ids.marketId}`, description: 'made by a test',
        tickSizeMicros: 10_000, minOrderSizeMicros: 5 * USDC, feeRateBps: 0, negRisk: false, endDateMs: 0, status: 'Active',
        ...overrides,
      } })
      return predex.context.read.markets.get(ids.marketId)!
    },
    async trader(usdcMicros = 0) {
      const wallet = stage === null ? Wallet.random() : stage.wallet()
      const address = wallet.address.toLowerCase()
      const response = await fetch(`${base}/auth/api-key`, { method: 'POST', headers: l1Headers(wallet, CHAIN_ID, nowSec()) })
      if (response.status !== 200) throw new Error(`api key: ${response.status} ${await response.text()}`)
      const credentials = (await response.json()) as ApiCredentials
      if (usdcMicros > 0) await fund(address, usdcMicros)
      return { wallet, address, credentials }
    },
    async account(address) {
      const answer = await host.query({ kind: 'account', address })
      if (answer.kind !== 'account') throw new Error('unexpected answer')
      const a = answer.account
      return {
        usdcMicros: a?.usdcMicros ?? 0,
        heldMicros: a?.usdcHeldMicros ?? 0,
        shares: new Map((a?.shares ?? []).map((s) => [s.tokenId, s.balanceMicros])),
      }
    },
    async approveOutcomeTokens(address) {
      return stage === null ? null : { transactionHash: await stage.approveOutcomeTokens(address) }
    },
    async stop() {
      await predex.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * On a real chain the ledger follows the chain, so the stage's ledger commands (credit, approve,
 * split, and a resolution, whose outcome the chain must know) are done there; the rest go to the
 * engine. The result of one done on chain is the engine's plain success.
 */
function onChain(stage: ChainStage, engine: (c: UnstampedCommand) => Promise<CommandResult>):
  (c: UnstampedCommand) => Promise<CommandResult> {
  return async (c) => {
    switch (c.kind) {
      case 'credit': await stage.credit(c.address, c.usdcMicros); break
      case 'approve': await stage.approve(c.address, c.usdcAllowanceMicros); break
      case 'split': await stage.split(c.address, c.marketId, c.amountMicros); break
      case 'resolveMarket': await stage.resolve(c.marketId, c.outcome); break
      default: return engine(c)
    }
    return { ok: true }
  }
}

/** An L2-authenticated request; returns status and parsed body. */
export async function l2(server: TestServer, trader: Trader, method: string, path: string, body?: unknown,
  family: HeaderFamily = 'EXCHANGE'): Promise<{ status: number; body: any; headers: Headers }> {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body)
  const headers = l2Headers(trader.credentials, trader.address, method, path.split('?')[0]!, text, nowSec(), family)
  return send(server, method, path, text, headers)
}

/** An unauthenticated request. */
export async function get(server: TestServer, path: string): Promise<{ status: number; body: any }> {
  return send(server, 'GET', path, '', {})
}

export async function send(server: TestServer, method: string, path: string, text: string,
  headers: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(server.base + path, {
    method, headers: text === '' ? headers : { 'content-type': 'application/json', ...headers }, body: text === '' ? undefined : text,
  })
  const raw = await response.text()
  let parsed: unknown = raw
  try {
    parsed = raw === '' ? null : JSON.parse(raw)
  } catch {
    // not JSON: keep the text (e.g. /metrics)
  }
  const document = await documentValidator()
  const mismatch = document.mismatch({ method, path, status: response.status,
    contentType: response.headers.get('content-type'), body: parsed }) ??
    document.requestMismatch(method, path, response.status, text, parsed)
  if (mismatch !== null) throw new Error(`the exchange does not fit GET /openapi.json: ${mismatch}`)
  return { status: response.status, body: parsed, headers: response.headers }
}

let validator: Promise<ResponseValidator> | null = null

/**
 * Every answer of the native API a test receives is checked against the OpenAPI document (schemas
 * generated from the typed shapes), so a server that drifts from its types fails the test that saw
 * it. The document is built in-process from the route table the server runs (asking the server for
 * it would spend the client's rate budget, which some tests count).
 */
function documentValidator(): Promise<ResponseValidator> {
  validator ??= (async () => {
    const compiled = freshCompiled('src/api/rest/routes.js', ['src'])
    const routes: typeof import('../../src/api/rest/routes.js') =
      await import(compiled !== null ? compiled : '../../src/api/rest/routes.js')
    return new ResponseValidator(routes.restApiDocument())
  })()
  return validator
}

/** Signs a limit order of `trader` on `market` (Yes unless `outcome` says No) and posts it to POST /order. */
export async function placeLimit(server: TestServer, trader: Trader, market: MarketRecord,
  order: { outcome?: 'Yes' | 'No'; side: 'BUY' | 'SELL'; price: string; size: string; expiration?: number },
  orderType: OrderType = 'GTC', postOnly = false): Promise<{ signed: SignedOrder; status: number; body: any }> {
  const tokenId = order.outcome === 'No' ? market.noTokenId : market.yesTokenId
  const signed = signLimitOrder(trader.wallet, termsOf(market),
    { tokenId, side: order.side, price: order.price, size: order.size, ...(order.expiration === undefined ? {} : { expiration: order.expiration }) })
  const reply = await l2(server, trader, 'POST', '/order', orderBody(signed, trader.credentials.apiKey, orderType, postOnly))
  return { signed, ...reply }
}
