/**
 * `npm run demo:maker`: a market maker for a running Predex, over the gRPC order-entry stream
 * (README, "A market maker over gRPC"). A new wallet (or `--key`) gets test USDC from the faucet,
 * approves the exchange through the gasless relay, creates API credentials and splits USDC into
 * Yes and No shares of each market (so it can offer both), all with the REST SDK; then it opens
 * an order-entry session with cancel on disconnect (SESSION) and a dead-man timer, and quotes a
 * bid and an ask on both outcomes of every active market (scripts/demo-maker/maker.ts),
 * printing a line per action. Ctrl-C drops the session without `close`: the server cancels the
 * quotes, and the maker shows the cancels arriving on its user stream before it exits 0 (npm,
 * which gets the Ctrl-C too, reports 130 for an interrupted `npm run` whatever its script did).
 *
 *   npm run demo:maker -- [--rest http://127.0.0.1:8080] [--grpc 127.0.0.1:9090] [--duration-sec N]
 *     [--key 0x<private key>] [--size 10] [--edge-ticks 2] [--markets 20] [--chain-id 80002]
 *
 * Without --rest and --grpc it finds the server where `npm start` puts it with the same
 * environment: http://127.0.0.1:$PORT and 127.0.0.1:$GRPC_PORT (8080 and 9090 without them). An
 * address it cannot reach is named, with how to set it, and the maker exits 1 (before, a server on
 * another port gave only "fetch failed").
 */
import { status } from '@grpc/grpc-js'
import { PredexClient } from '../src/client/predex-client.js'
import { PredexGrpcClient } from '../src/client/grpc/predex-grpc-client.js'
import { microsOf } from '../src/client/grpc/local-book.js'
import { Wallet } from '../src/crypto/wallet.js'
import type { Market } from '../src/gen/predex/v1/market_data_pb.js'
import { GrpcCallError } from '../src/client/grpc/transport.js'
import { BOOK_STREAM_TOKENS_MAX } from '../src/limits.js'
import { Maker } from './demo-maker/maker.js'
import { microsText } from './demo-maker/quoting.js'

interface Arguments {
  readonly rest: string
  readonly grpc: string
  readonly durationSec: number | null
  readonly key: string | null
  readonly sizeMicros: bigint
  readonly edgeTicks: bigint
  readonly marketsMax: number
  readonly chainId: number
}

const USAGE = `usage: npm run demo:maker -- [--rest URL] [--grpc HOST:PORT] [--duration-sec N] [--key 0x..]
  [--size SHARES] [--edge-ticks N] [--markets N] [--chain-id N]
  --rest defaults to http://127.0.0.1:$PORT, --grpc to 127.0.0.1:$GRPC_PORT (8080 and 9090 without them)`
/** The session's dead-man interval: quotes outlive a silent maker by at most this long. */
const DEAD_MAN_MS = 5_000
/** USDC approved for the exchange (micro-units): far more than the faucet gives. */
const APPROVE_MICROS = 1_000_000_000_000n
/** Shares of each outcome minted per market, in quote sizes: a few sells can fill before they run out. */
const SPLIT_QUOTES = 5n

/** The port in the server's own variable (`name`), or `fallback` when it is unset; a bad value is an error. */
function portOf(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name]
  if (text === undefined || text === '') return fallback
  const port = Number(text)
  if (!/^[0-9]+$/.test(text) || port < 1 || port > 65535) throw new Error(`${name}=${text} is not a port (1-65535)`)
  return port
}

function parse(argv: readonly string[], env: NodeJS.ProcessEnv): Arguments {
  const values = new Map<string, string>()
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]!
    const value = argv[i + 1]
    if (!flag.startsWith('--') || value === undefined || flag === '--help') throw new Error(USAGE)
    values.set(flag.slice(2), value)
  }
  const known = ['rest', 'grpc', 'duration-sec', 'key', 'size', 'edge-ticks', 'markets', 'chain-id']
  for (const name of values.keys()) if (!known.includes(name)) throw new Error(`unknown flag --${name}\n${USAGE}`)
  const duration = values.get('duration-sec')
  return {
    rest: values.get('rest') ?? `http://127.0.0.1:${portOf(env, 'PORT', 8080)}`,
    grpc: values.get('grpc') ?? `127.0.0.1:${portOf(env, 'GRPC_PORT', 9090)}`,
    durationSec: duration === undefined ? null : positive(duration, 'duration-sec'),
    key: values.get('key') ?? null,
    sizeMicros: microsOf(values.get('size') ?? '10'),
    edgeTicks: BigInt(positive(values.get('edge-ticks') ?? '2', 'edge-ticks')),
    marketsMax: Math.min(BOOK_STREAM_TOKENS_MAX / 2, positive(values.get('markets') ?? '20', 'markets')),
    chainId: positive(values.get('chain-id') ?? '80002', 'chain-id'),
  }
}

function positive(text: string, name: string): number {
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`--${name} takes a positive integer, not "${text}"`)
  return value
}

function print(line: string): void {
  process.stdout.write(`${line}\n`)
}

/** Every active market (following the pages), at most `max`. */
async function activeMarkets(client: PredexGrpcClient, max: number): Promise<Market[]> {
  const markets: Market[] = []
  let cursor = ''
  for (;;) {
    const page = await client.listMarkets({ page: { limit: 500, nextCursor: cursor } })
    markets.push(...page.data.filter((market) => market.status === 'Active'))
    if (page.nextCursor === 'LTE=' || page.nextCursor === '' || page.data.length === 0) break
    cursor = page.nextCursor
  }
  return markets.slice(0, max)
}

/**
 * What to say when `error` is an address the maker could not reach: which one, and how to point
 * the maker at the server (null for any other error).
 */
function unreachableText(error: unknown, args: Arguments): string | null {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
  if (error instanceof TypeError && error.message === 'fetch failed') {
    // ECONNREFUSED and the like; fetch's own refusals (a port it blocks, such as 1) have only a message.
    const why = typeof cause?.code === 'string' ? cause.code : String(cause?.message ?? 'no answer')
    return `cannot reach Predex's REST API at ${args.rest} (${why}). Is it running (npm start)? ` +
      'Its port is --port / PORT, 8080 by default: set PORT as the server has it, or pass --rest URL.'
  }
  // UNAVAILABLE without a catalogue code: the transport's, not the server's (a server shutting down sends NOT_READY).
  if (error instanceof GrpcCallError && error.grpcCode === status.UNAVAILABLE && error.code === '') {
    return `cannot reach Predex's gRPC API at ${args.grpc} (${error.message}). Is it running (npm start)? ` +
      'Its port is --grpc-port / GRPC_PORT, 9090 by default: set GRPC_PORT as the server has it, ' +
      'or pass --grpc HOST:PORT.'
  }
  return null
}

async function main(args: Arguments): Promise<void> {
  const wallet = args.key === null ? Wallet.random() : new Wallet(args.key)
  const rest = new PredexClient({ baseUrl: args.rest, wallet, chainId: args.chainId })
  const funded = await rest.faucet()
  await rest.approve(APPROVE_MICROS)
  const credentials = await rest.createApiKey()
  print(`wallet ${wallet.address}: ${funded.usdc_credited} USDC from the faucet, API key ${credentials.apiKey}`)
  const client = new PredexGrpcClient({ target: args.grpc, signer: { credentials, address: wallet.address } })
  const markets = await activeMarkets(client, args.marketsMax)
  if (markets.length === 0) throw new Error('no active market: start Predex with --demo, or create one')
  const splitMicros = args.sizeMicros * SPLIT_QUOTES
  for (const market of markets) await rest.split(market.conditionId, splitMicros)
  print(`${markets.length} active markets; minted ${microsText(splitMicros)} Yes + No shares of each`)
  const session = await client.session({ cancelOnDisconnect: 'session', deadManMs: DEAD_MAN_MS })
  print(`order-entry session open: cancel on disconnect SESSION, dead man ${session.opened?.deadManMs} ms`)
  const maker = new Maker(client, session, wallet, markets,
    { sizeMicros: args.sizeMicros, edgeTicks: args.edgeTicks, chainId: args.chainId, print })
  const running = maker.run()
  const stop = async (): Promise<void> => {
    await maker.stop()
    client.close()
  }
  process.once('SIGINT', () => void stop())
  void session.ended.then((error) => {
    if (error === null || maker.stopping) return
    print(`the session ended: ${error.message}`)
    void stop()
  })
  if (args.durationSec !== null) setTimeout(() => void stop(), args.durationSec * 1000).unref()
  await running
}

let args: Arguments | null = null
Promise.resolve().then(() => main(args = parse(process.argv.slice(2), process.env))).then(() => process.exit(0),
  (error: unknown) => {
    const body = (error as { body?: unknown }).body
    const detail = body === undefined ? '' : ` ${JSON.stringify(body)}`
    const unreachable = args === null ? null : unreachableText(error, args)
    process.stderr.write(`demo maker: ${unreachable ?? `${(error as Error).message}${detail}`}\n`)
    process.exit(1)
  })
