/**
 * Configuration: flags and environment variables (flags win), each validated at start with a
 * clear error, the effective values logged once (operations.md). `npm start -- --help` prints
 * this table.
 */
import { availableParallelism } from 'node:os'
import { CHAINS } from './crypto/contracts.js'
import { MasterKey } from './crypto/master-key.js'
import { ENDED_ORDERS_RETAINED } from './engine/limits.js'
import { CHAIN_BLOCK_MS, CHAIN_CONFIRMATIONS, CHAIN_CONFIRMATIONS_MAX, DEMO_TRADE_INTERVAL_MS,
  DEMO_TRADE_INTERVAL_MS_MIN, DEMO_TRADES_PER_MINUTE_MAX, LOOP_LAG_MS_MAX_DEFAULT, NATS_REPLICAS_MAX,
  UNFILLED_ORDERS_RETENTION_DAYS, VERIFIER_THREAD_NICE } from './limits.js'
import { LOG_LEVELS, type LogFormat, type LogLevel } from './log.js'
import type { SigBackendChoice } from './crypto/sig-backend.js'
import type { ChainKind } from './chain/chain.js'
import { validStreamName } from './replication/stream-names.js'

// Here rather than imported: --help must not load the curve code.
const SIG_BACKENDS = ['auto', 'native', 'noble'] as const satisfies readonly SigBackendChoice[]
// And here rather than from src/chain: --help must not load viem.
const CHAIN_CHOICES = ['builtin', 'local', 'rpc'] as const satisfies readonly ChainKind[]
export type ChainChoice = typeof CHAIN_CHOICES[number]

export interface Config {
  readonly dataDir: string
  readonly port: number
  readonly grpcPort: number
  readonly host: string
  readonly chainId: number
  /** What holds balances and settles trades (src/chain/chain.ts): the engine's own ledger, or anvil. */
  readonly chain: ChainChoice
  /** The local chain's block time; an external chain's is how often Predex looks at it. */
  readonly chainBlockMs: number
  /** Blocks on top of one before the ledger follows it and a settlement is CONFIRMED. */
  readonly chainConfirmations: number
  /** --chain rpc: the node's JSON-RPC URL, the contracts file, and the operator's key file. */
  readonly chainRpcUrl: string | null
  readonly chainContracts: string | null
  readonly chainOperatorKeyFile: string | null
  /** Null: use the one stored in the data directory, or generate one. */
  readonly adminKey: string | null
  /** What API secrets derive from (src/crypto/master-key.ts). Null: the data directory's, or a new one. */
  readonly masterKey: MasterKey | null
  readonly sigWorkers: number
  /** The signature threads' nice value (0-19): above 0 they yield the CPU to the front end and the engine. */
  readonly sigNice: number
  /** How signers are recovered (src/crypto/sig-backend.ts). */
  readonly sigBackend: SigBackendChoice
  readonly durability: 'sync' | 'async'
  /** What the journal keeps: docs/host.md, "Retention". */
  readonly journalRetention: 'all' | 'snapshots'
  /** Ended order ids the engine remembers, for a new data directory (null: ENDED_ORDERS_RETAINED). */
  readonly endedOrdersRetained: number | null
  /** NATS servers of the replicated command log (docs/replication.md); null: the local journal alone. */
  readonly natsServers: readonly string[] | null
  /** The JetStream stream of the command log. */
  readonly natsStream: string
  /** Its copies when this node creates it. */
  readonly natsReplicas: number
  /**
   * primary: takes writes; replica: follows the primary's stream (needs natsServers), serves reads;
   * standby: a replica that takes over when the primary's lease lapses.
   */
  readonly role: 'primary' | 'replica' | 'standby'
  /** Where the primary answers (its REST base URL), told to writes sent to a replica; null: unknown. */
  readonly primaryUrl: string | null
  readonly unfilledOrdersRetentionDays: number
  /** Null: on when the data directory is new. */
  readonly demo: boolean | null
  /** Ms between the demo trader's trades (0: it does not trade; the quotes go on). */
  readonly demoTradeIntervalMs: number
  readonly faucetAmountUsdc: number
  readonly faucetCooldownSec: number
  readonly authPastSec: number
  readonly authFutureSec: number
  /** Per-key and per-address request budgets (limits.ts RATE_RULES); off only for benchmarks. */
  readonly rateLimits: boolean
  /** Shed order placements while the event loop lags more than this, in ms (0: never). */
  readonly shedLagMs: number
  readonly logLevel: LogLevel
  /** Null: pretty when standard output is a terminal, JSON lines otherwise. */
  readonly logFormat: LogFormat | null
}

interface Setting {
  readonly key: keyof Config
  readonly flag: string
  readonly env: string | null
  readonly help: string
  readonly defaultText: string
  readonly parse: (text: string) => Config[keyof Config]
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

function integer(min: number, max: number): (text: string) => number {
  return (text) => {
    if (!/^[0-9]+$/.test(text)) throw new ConfigError(`expected an integer, got "${text}"`)
    const value = Number(text)
    if (value < min || value > max) throw new ConfigError(`expected ${min}..${max}, got ${value}`)
    return value
  }
}

function boolean(text: string): boolean {
  if (['1', 'true', 'on', 'yes'].includes(text)) return true
  if (['0', 'false', 'off', 'no'].includes(text)) return false
  throw new ConfigError(`expected true or false, got "${text}"`)
}

const SETTINGS: readonly Setting[] = [
  { key: 'dataDir', flag: '--data-dir', env: 'DATA_DIR', help: 'where the journal, snapshots and read models live',
    defaultText: './data', parse: (text) => text },
  { key: 'port', flag: '--port', env: 'PORT', help: 'REST and WebSocket port (0: any free port)', defaultText: '8080',
    parse: integer(0, 65535) },
  { key: 'grpcPort', flag: '--grpc-port', env: 'GRPC_PORT', help: 'gRPC port', defaultText: '9090',
    parse: integer(0, 65535) },
  { key: 'host', flag: '--host', env: 'HOST', help: 'address to bind', defaultText: '127.0.0.1',
    parse: (text) => text },
  { key: 'chainId', flag: '--chain-id', env: 'CHAIN_ID',
    help: `chain id orders are signed for (${Object.keys(CHAINS).join(' or ')})`,
    defaultText: '80002', parse: (text) => {
      const value = integer(1, 2 ** 31)(text)
      if (CHAINS[value] === undefined) {
        throw new ConfigError(`unsupported chain ${value}: use ${Object.keys(CHAINS).join(' or ')}`)
      }
      return value
    } },
  { key: 'chain', flag: '--chain', env: 'CHAIN',
    help: 'builtin: the engine\'s ledger is the test network; local: a local EVM chain (anvil from npm, on a '
      + 'loopback port, its state in <data-dir>/chain) with Predex\'s contracts at the addresses the clients sign '
      + 'for; rpc: an external EVM chain (--chain-rpc-url, --chain-contracts, --chain-operator-key-file) '
      + '(docs/testnet.md, "Chains")',
    defaultText: 'builtin', parse: (text) => {
      const choice = CHAIN_CHOICES.find((name) => name === text)
      if (choice === undefined) throw new ConfigError(`expected ${CHAIN_CHOICES.join(' or ')}, got "${text}"`)
      return choice
    } },
  { key: 'chainBlockMs', flag: '--chain-block-ms', env: 'CHAIN_BLOCK_MS',
    help: 'with --chain local: ms between two blocks; with --chain rpc: ms between two looks at the chain',
    defaultText: String(CHAIN_BLOCK_MS), parse: integer(100, 60_000) },
  { key: 'chainConfirmations', flag: '--chain-confirmations', env: 'CHAIN_CONFIRMATIONS',
    help: 'with a real chain: blocks on top of one before the ledger follows it and a settlement is CONFIRMED '
      + '(a reorg shallower changes nothing the ledger has)', defaultText: String(CHAIN_CONFIRMATIONS),
    parse: integer(1, CHAIN_CONFIRMATIONS_MAX) },
  { key: 'chainRpcUrl', flag: '--chain-rpc-url', env: 'CHAIN_RPC_URL',
    help: 'with --chain rpc: the node\'s JSON-RPC URL (http or https)', defaultText: 'none', parse: (text) => {
      let url: URL
      try {
        url = new URL(text)
      } catch {
        throw new ConfigError(`expected an http or https URL, got "${text}"`)
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('expected an http or https URL')
      return text
    } },
  { key: 'chainContracts', flag: '--chain-contracts', env: 'CHAIN_CONTRACTS',
    help: 'with --chain rpc: a JSON file naming where Predex\'s contracts are ({collateral, conditionalTokens, '
      + 'settler}), as npm run deploy:contracts writes it', defaultText: 'none', parse: (text) => text },
  { key: 'chainOperatorKeyFile', flag: '--chain-operator-key-file', env: 'CHAIN_OPERATOR_KEY_FILE',
    help: 'with --chain rpc: a file (mode 0600) holding the operator\'s private key (0x and 64 hex digits): the key '
      + 'that deployed the contracts, which mints, settles and relays', defaultText: 'none', parse: (text) => text },
  { key: 'adminKey', flag: '--admin-key', env: 'ADMIN_API_KEY', help: 'the admin API key (EXCHANGE-ADMIN-KEY)',
    defaultText: 'generated on first start, stored in <data-dir>/admin-key, never printed', parse: (text) => {
      if (text.length < 16) throw new ConfigError('the admin key must have at least 16 characters')
      return text
    } },
  { key: 'masterKey', flag: '--master-key', env: 'PREDEX_MASTER_KEY',
    help: 'the master key API secrets derive from: 64 hex characters (openssl rand -hex 32); lose it and ' +
      'every API key must be created again',
    defaultText: 'generated on first start, stored in <data-dir>/master-key, never printed', parse: (text) => {
      // The message never repeats the text: it is a secret, and it may be nearly right.
      const key = MasterKey.fromHex(text)
      if (key === null) throw new ConfigError('the master key must be 64 hex characters (32 bytes)')
      return key
    } },
  { key: 'sigWorkers', flag: '--sig-workers', env: 'SIG_WORKERS', help: 'signature verification threads',
    defaultText: 'number of cores', parse: integer(1, 64) },
  { key: 'sigNice', flag: '--sig-nice', env: 'SIG_NICE',
    help: 'nice value of the signature threads, 0 to 19: above 0 they yield the CPU to the front end\'s thread and '
      + 'the engine under load (and to every other busy process on the machine)',
    defaultText: String(VERIFIER_THREAD_NICE), parse: integer(0, 19) },
  { key: 'sigBackend', flag: '--sig-backend', env: 'SIG_BACKEND',
    help: 'signature recovery: native (libsecp256k1, about 10 x faster per check), noble (JavaScript), or auto '
      + '(native when its binding loads, else noble; the choice is logged)',
    defaultText: 'auto', parse: (text) => {
      const choice = SIG_BACKENDS.find((name) => name === text)
      if (choice === undefined) throw new ConfigError(`expected auto, native or noble, got "${text}"`)
      return choice
    } },
  { key: 'durability', flag: '--durability', env: 'DURABILITY',
    help: 'sync: acknowledge after the flush; async: benchmarks only', defaultText: 'sync', parse: (text) => {
      if (text !== 'sync' && text !== 'async') throw new ConfigError(`expected sync or async, got "${text}"`)
      return text
    } },
  { key: 'journalRetention', flag: '--journal-retention', env: 'JOURNAL_RETENTION',
    help: 'snapshots: keep the commands after the oldest kept snapshot; all: every command since the first',
    defaultText: 'snapshots', parse: (text) => {
      if (text !== 'all' && text !== 'snapshots') throw new ConfigError(`expected all or snapshots, got "${text}"`)
      return text
    } },
  { key: 'natsServers', flag: '--nats-servers', env: 'NATS_SERVERS',
    help: 'replicate the command log to a NATS JetStream stream on these servers (host:port, comma-separated): a '
      + 'command is acknowledged once the local journal flushed it and a quorum of the stream holds it',
    defaultText: 'none: the local journal alone', parse: (text) => {
      const servers = text.split(',').map((server) => server.trim()).filter((server) => server !== '')
      if (servers.length === 0 || servers.some((server) => !/^(nats:\/\/)?[A-Za-z0-9.\-[\]:]+:\d{1,5}$/.test(server))) {
        throw new ConfigError(`expected host:port[,host:port...], got "${text}"`)
      }
      return servers
    } },
  { key: 'natsStream', flag: '--nats-stream', env: 'NATS_STREAM',
    help: 'the JetStream stream of the replicated command log (letters, digits, - and _)', defaultText: 'PREDEX',
    parse: (text) => {
      if (!validStreamName(text)) throw new ConfigError(`expected 1-64 letters, digits, - or _, got "${text}"`)
      return text
    } },
  { key: 'natsReplicas', flag: '--nats-replicas', env: 'NATS_REPLICAS',
    help: `copies of that stream when this node creates it (1, 3 or 5; a quorum is a majority)`, defaultText: '3',
    parse: (text) => {
      const replicas = integer(1, NATS_REPLICAS_MAX)(text)
      if (replicas % 2 === 0) throw new ConfigError(`expected an odd number (a quorum is a majority), got ${replicas}`)
      return replicas
    } },
  { key: 'role', flag: '--role', env: 'ROLE',
    help: 'primary: takes writes (with --nats-servers, while it holds the lease); replica: follows the primary\'s '
      + 'command stream into its own journal and serves market data, users\' data and the streams, refusing writes '
      + '(503 NOT_PRIMARY); standby: a replica that takes over when the primary\'s lease lapses',
    defaultText: 'primary', parse: (text) => {
      if (text !== 'primary' && text !== 'replica' && text !== 'standby') {
        throw new ConfigError(`expected primary, replica or standby, got "${text}"`)
      }
      return text
    } },
  { key: 'primaryUrl', flag: '--primary-url', env: 'PRIMARY_URL',
    help: 'a replica\'s: the primary\'s REST base URL, named in the refusal of a write', defaultText: 'none',
    parse: (text) => {
      if (!/^https?:\/\/[^\s]+$/.test(text)) throw new ConfigError(`expected an http(s) URL, got "${text}"`)
      return text
    } },
  { key: 'endedOrdersRetained', flag: '--ended-orders-retained', env: null,
    help: 'ended order ids the engine remembers for duplicate detection, fixed when the data directory is made '
      + '(about 130 bytes of memory each)', defaultText: String(ENDED_ORDERS_RETAINED),
    parse: integer(0, 100_000_000) },
  { key: 'unfilledOrdersRetentionDays', flag: '--unfilled-orders-retention-days', env: null,
    help: 'days an order that ended with nothing filled stays readable, then it is removed from the read store '
      + '(0: kept for ever)', defaultText: String(UNFILLED_ORDERS_RETENTION_DAYS), parse: integer(0, 36_500) },
  { key: 'demo', flag: '--demo', env: 'DEMO',
    help: 'create the demo markets; a demo account keeps their books quoted around the last trade and another '
      + 'trades now and then (--no-demo: none of it)',
    defaultText: 'made when the data directory is new, quoted whenever it exists', parse: boolean },
  { key: 'demoTradeIntervalMs', flag: '--demo-trade-interval-ms', env: 'DEMO_TRADE_INTERVAL_MS',
    help: 'ms between the demo trader\'s small FAK orders against the demo quotes, so prices and candles move '
      + `(at most ${DEMO_TRADES_PER_MINUTE_MAX} a minute; 0: no demo trades, the quotes stay)`,
    defaultText: String(DEMO_TRADE_INTERVAL_MS), parse: (text) => {
      const value = integer(0, 3_600_000)(text)
      if (value !== 0 && value < DEMO_TRADE_INTERVAL_MS_MIN) {
        throw new ConfigError(`expected 0 or ${DEMO_TRADE_INTERVAL_MS_MIN}..3600000, got ${value}`)
      }
      return value
    } },
  { key: 'rateLimits', flag: '--rate-limits', env: 'RATE_LIMITS',
    help: 'answer 429 past the per-key and per-address budgets (off: benchmarks only)',
    defaultText: 'true', parse: boolean },
  { key: 'shedLagMs', flag: '--shed-lag-ms', env: 'SHED_LAG_MS',
    help: 'refuse new order placements (503 SERVER_BUSY, Retry-After) while the event loop runs this many ms late, '
      + 'before their bodies are read; reads and cancels go on (0: never shed)',
    defaultText: String(LOOP_LAG_MS_MAX_DEFAULT), parse: integer(0, 60_000) },
  { key: 'faucetAmountUsdc', flag: '--faucet-amount', env: null, help: 'USDC per faucet request', defaultText: '1000',
    parse: integer(1, 1_000_000) },
  { key: 'faucetCooldownSec', flag: '--faucet-cooldown', env: null,
    help: 'seconds between faucet requests of one address', defaultText: '60', parse: integer(0, 86_400) },
  { key: 'authPastSec', flag: '--auth-window-past', env: 'AUTH_WINDOW_PAST',
    help: 'seconds a signed request may be old', defaultText: '60', parse: integer(1, 3_600) },
  { key: 'authFutureSec', flag: '--auth-window-future', env: 'AUTH_WINDOW_FUTURE',
    help: 'seconds a signed request may be ahead', defaultText: '10', parse: integer(0, 3_600) },
  { key: 'logLevel', flag: '--log-level', env: 'LOG_LEVEL',
    help: `${LOG_LEVELS.join(', ')}: debug adds a line per request`, defaultText: 'info', parse: (text) => {
      const level = LOG_LEVELS.find((name) => name === text)
      if (level === undefined) throw new ConfigError(`expected one of ${LOG_LEVELS.join(', ')}, got "${text}"`)
      return level
    } },
  { key: 'logFormat', flag: '--log-format', env: 'LOG_FORMAT', help: 'json (a JSON object per line) or pretty',
    defaultText: 'pretty on a terminal, json otherwise', parse: (text) => {
      if (text !== 'json' && text !== 'pretty') throw new ConfigError(`expected json or pretty, got "${text}"`)
      return text
    } },
]

/** Every flag `npm start --` accepts: the docs are checked against it (test/unit/scripts/docs-truth.test.ts). */
export const SERVER_FLAGS: readonly string[] = [...SETTINGS.map((setting) => setting.flag), '--no-demo', '--help']

const DEFAULTS: Config = {
  dataDir: './data', port: 8080, grpcPort: 9090, host: '127.0.0.1', chainId: 80002, chain: 'builtin',
  chainBlockMs: CHAIN_BLOCK_MS, chainConfirmations: CHAIN_CONFIRMATIONS, chainRpcUrl: null, chainContracts: null,
  chainOperatorKeyFile: null, adminKey: null, masterKey: null,
  sigWorkers: availableParallelism(), sigNice: VERIFIER_THREAD_NICE, sigBackend: 'auto', durability: 'sync',
  journalRetention: 'snapshots',
  endedOrdersRetained: null,
  natsServers: null, natsStream: 'PREDEX', natsReplicas: 3, role: 'primary', primaryUrl: null,
  unfilledOrdersRetentionDays: UNFILLED_ORDERS_RETENTION_DAYS,
  demo: null,
  demoTradeIntervalMs: DEMO_TRADE_INTERVAL_MS,
  faucetAmountUsdc: 1000, faucetCooldownSec: 60,
  authPastSec: 60, authFutureSec: 10, rateLimits: true, shedLagMs: LOOP_LAG_MS_MAX_DEFAULT,
  logLevel: 'info', logFormat: null,
}

/** The configuration from argv and env, or 'help'. Throws ConfigError naming the setting. */
export function configOf(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Config | 'help' {
  const config: Record<string, unknown> = { ...DEFAULTS }
  for (const setting of SETTINGS) {
    const value = setting.env === null ? undefined : env[setting.env]
    if (value !== undefined && value !== '') config[setting.key] = parseNamed(setting, value, setting.env!)
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--help' || arg === '-h') return 'help'
    if (arg === '--no-demo') {
      config.demo = false
      continue
    }
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined]
    const setting = SETTINGS.find((s) => s.flag === flag)
    if (setting === undefined) throw new ConfigError(`unknown option ${arg} (see --help)`)
    const next = argv[i + 1]
    if (setting.key === 'demo' && inline === undefined && (next === undefined || next.startsWith('--'))) {
      config.demo = true
      continue
    }
    const value = inline ?? argv[++i]
    // `--data-dir --no-demo` is a missing value, not a directory named "--no-demo" (use `--flag=--x` for that).
    if (value === undefined || (inline === undefined && value.startsWith('--'))) {
      throw new ConfigError(`${flag} needs a value`)
    }
    config[setting.key] = parseNamed(setting, value, flag)
  }
  if (config.role !== 'primary' && config.natsServers === null) {
    throw new ConfigError(`--role ${String(config.role)} follows the primary's command stream: give --nats-servers`)
  }
  checkRpcChain(config)
  if (config.chain !== 'builtin' && config.demo === true) {
    throw new ConfigError(`--demo credits its accounts in the ledger alone, which --chain ${String(config.chain)} `
      + 'follows from the chain: not together yet')
  }
  if (config.role !== 'primary' && config.chain !== 'builtin') {
    throw new ConfigError(`--chain ${String(config.chain)} runs beside the primary alone: a ${String(config.role)} ` +
      'follows its command stream')
  }
  return config as unknown as Config
}

/** An external chain needs its node, its contracts and its operator's key; no other chain takes them. */
function checkRpcChain(config: Record<string, unknown>): void {
  const given = ['--chain-rpc-url', '--chain-contracts', '--chain-operator-key-file']
    .filter((_, i) => config[['chainRpcUrl', 'chainContracts', 'chainOperatorKeyFile'][i]!] !== null)
  if (config.chain === 'rpc' && given.length < 3) {
    throw new ConfigError('--chain rpc needs --chain-rpc-url, --chain-contracts and --chain-operator-key-file')
  }
  if (config.chain !== 'rpc' && given.length > 0) {
    throw new ConfigError(`${given.join(', ')}: for --chain rpc only (this is --chain ${String(config.chain)})`)
  }
}

function parseNamed(setting: Setting, value: string, source: string): Config[keyof Config] {
  try {
    return setting.parse(value)
  } catch (error) {
    throw new ConfigError(`${source}: ${(error as Error).message}`)
  }
}

export function helpText(): string {
  const rows = SETTINGS.map((s) => {
    const usage = s.flag + (s.key === 'demo' ? ' / --no-demo' : ' <value>')
    return `  ${usage.padEnd(30)} ${(s.env ?? '').padEnd(19)} ${s.help} (default: ${s.defaultText})`
  })
  return ['Usage: npm start -- [options]', '', `  ${'flag'.padEnd(30)} ${'environment'.padEnd(19)} meaning`, ...rows,
    '', 'Flags win over environment variables.'].join('\n')
}

/** The effective configuration for the start-up log (the admin and master keys are never printed here). */
export function describe(config: Config): string {
  return Object.entries(effectiveSettings(config)).map(([key, value]) => `${key}=${value}`).join(' ')
}

/** The same, as fields of the start-up log line. */
export function effectiveSettings(config: Config): Record<string, string> {
  const shown = { ...config,
    adminKey: config.adminKey === null ? '(from the data directory)' : '(from the configuration)',
    masterKey: config.masterKey === null ? '(from the data directory)' : '(from the configuration)',
    demo: config.demo === null ? 'when new' : config.demo,
    logFormat: config.logFormat ?? 'by terminal' }
  return Object.fromEntries(Object.entries(shown).map(([key, value]) => [key, String(value)]))
}
