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
 */
import { PredexClient } from '../src/client/predex-client.js'
import { PredexGrpcClient } from '../src/client/grpc/predex-grpc-client.js'
import { microsOf } from '../src/client/grpc/local-book.js'
import { Wallet } from '../src/client/wallet.js'
import type { Market } from '../src/gen/predex/v1/market_data_pb.js'
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
  [--size SHARES] [--edge-ticks N] [--markets N] [--chain-id N]`
/** The session's dead-man interval: quotes outlive a silent maker by at most this long. */
const DEAD_MAN_MS = 5_000
/** USDC approved for the exchange (micro-units): far more than the faucet gives. */
const APPROVE_MICROS = 1_000_000_000_000n
/** Shares of each outcome minted per market, in quote sizes: a few sells can fill before they run out. */
const SPLIT_QUOTES = 5n

function parse(argv: readonly string[]): Arguments {
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
    rest: values.get('rest') ?? 'http://127.0.0.1:8080',
    grpc: values.get('grpc') ?? '127.0.0.1:9090',
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

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2))
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

main().then(() => process.exit(0), (error: unknown) => {
  const body = (error as { body?: unknown }).body
  const detail = body === undefined ? '' : ` ${JSON.stringify(body)}`
  process.stderr.write(`demo maker: ${(error as Error).message}${detail}\n`)
  process.exit(1)
})
