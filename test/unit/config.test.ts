/**
 * Configuration (src/config.ts against operations.md, "Configuration"): the defaults, flags over
 * environment variables, both flag forms, --no-demo, --help and its text, a ConfigError that
 * names the setting for every bad value, and a start-up line that never shows the admin key.
 */
import { availableParallelism } from 'node:os'
import t, { type Test } from 'tap'
import { ConfigError, configOf, describe, helpText, type Config } from '../../src/config.js'
import { DEMO_TRADE_INTERVAL_MS, DEMO_TRADE_INTERVAL_MS_MIN } from '../../src/limits.js'
import { VERIFIER_THREAD_NICE } from '../../src/limits.js'

function config(argv: readonly string[], env: Record<string, string | undefined> = {}): Config {
  const result = configOf(argv, env)
  if (result === 'help') throw new Error('unexpected help')
  return result
}

/** The table of operations.md: setting, flag, environment variable (null: none). */
const OPERATIONS_TABLE: readonly { flag: string; env: string | null }[] = [
  { flag: '--data-dir', env: 'DATA_DIR' },
  { flag: '--port', env: 'PORT' },
  { flag: '--grpc-port', env: 'GRPC_PORT' },
  { flag: '--host', env: 'HOST' },
  { flag: '--chain-id', env: 'CHAIN_ID' },
  { flag: '--admin-key', env: 'ADMIN_API_KEY' },
  { flag: '--sig-workers', env: 'SIG_WORKERS' },
  { flag: '--durability', env: 'DURABILITY' },
  { flag: '--demo', env: 'DEMO' },
  { flag: '--no-demo', env: null },
  { flag: '--faucet-amount', env: null },
  { flag: '--faucet-cooldown', env: null },
  { flag: '--unfilled-orders-retention-days', env: null },
  { flag: '--sig-backend', env: 'SIG_BACKEND' },
  { flag: '--log-level', env: 'LOG_LEVEL' },
  { flag: '--log-format', env: 'LOG_FORMAT' },
]

/** Expects a ConfigError whose message names `name` (the flag or the variable that was wrong). */
function throwsNaming(t: Test, run: () => unknown, name: string, why: string): void {
  try {
    run()
    t.fail(`${why}: no error`)
  } catch (error) {
    t.ok(error instanceof ConfigError, `${why}: a ConfigError (${(error as Error).name})`)
    t.ok((error as Error).message.includes(name), `${why}: "${(error as Error).message}" names ${name}`)
  }
}

t.test('defaults are those of operations.md', async (t) => {
  const c = config([])
  t.equal(c.port, 8080)
  t.equal(c.grpcPort, 9090)
  t.equal(c.host, '127.0.0.1')
  t.equal(c.chainId, 80002)
  t.equal(c.dataDir, './data')
  t.equal(c.durability, 'sync')
  t.equal(c.demo, null, 'demo: null, meaning on when the data directory is new')
  t.equal(c.faucetAmountUsdc, 1000)
  t.equal(c.faucetCooldownSec, 60)
  t.equal(c.adminKey, null, 'admin key: generated on first start')
  t.equal(c.sigWorkers, availableParallelism(), 'signature workers: number of cores')
  t.equal(c.sigNice, VERIFIER_THREAD_NICE, 'signature threads: nice 10')
  t.equal(c.authPastSec, 60, 'L2 window: 60 s past (api.md)')
  t.equal(c.authFutureSec, 10, 'L2 window: 10 s ahead (api.md)')
})

t.test('environment variables set every setting they name', async (t) => {
  const c = config([], {
    DATA_DIR: '/tmp/predex-x', PORT: '8181', GRPC_PORT: '9191', HOST: '0.0.0.0', CHAIN_ID: '137', ADMIN_API_KEY: 'k'.repeat(20),
    SIG_WORKERS: '3', DURABILITY: 'async', DEMO: 'false',
  })
  t.same({ dataDir: c.dataDir, port: c.port, grpcPort: c.grpcPort, host: c.host, chainId: c.chainId, adminKey: c.adminKey,
    sigWorkers: c.sigWorkers, durability: c.durability, demo: c.demo },
  { dataDir: '/tmp/predex-x', port: 8181, grpcPort: 9191, host: '0.0.0.0', chainId: 137, adminKey: 'k'.repeat(20),
    sigWorkers: 3, durability: 'async', demo: false })
  t.equal(config([], { PORT: '' }).port, 8080, 'an empty variable is unset')
  t.equal(config([], { DEMO: '1' }).demo, true)
})

t.test('flags win over environment variables', async (t) => {
  const env = { PORT: '8181', CHAIN_ID: '137', DURABILITY: 'async', DEMO: 'true', DATA_DIR: '/from/env' }
  const c = config(['--port', '7000', '--chain-id', '80002', '--durability', 'sync', '--no-demo', '--data-dir', '/from/flag'], env)
  t.equal(c.port, 7000)
  t.equal(c.chainId, 80002)
  t.equal(c.durability, 'sync')
  t.equal(c.demo, false)
  t.equal(c.dataDir, '/from/flag')
  t.equal(config([], env).port, 8181, 'without the flag the variable holds')
})

t.test('--flag=value and --flag value are the same', async (t) => {
  t.same(config(['--port=7001', '--grpc-port=7002', '--host=::1', '--faucet-amount=50', '--faucet-cooldown=0']),
    config(['--port', '7001', '--grpc-port', '7002', '--host', '::1', '--faucet-amount', '50', '--faucet-cooldown', '0']))
  const c = config(['--port=7001', '--faucet-amount=50', '--faucet-cooldown=0'])
  t.equal(c.port, 7001)
  t.equal(c.faucetAmountUsdc, 50)
  t.equal(c.faucetCooldownSec, 0)
  t.equal(config(['--admin-key=abc=def=0123456789']).adminKey, 'abc=def=0123456789', 'only the first = splits')
})

t.test('--demo and --no-demo', async (t) => {
  t.equal(config(['--no-demo']).demo, false)
  t.equal(config(['--demo']).demo, true)
  t.equal(config(['--demo', '--port', '1']).demo, true, '--demo before another flag takes no value')
  t.equal(config(['--demo', 'false']).demo, false)
  t.equal(config(['--demo=off']).demo, false)
  t.equal(config(['--no-demo'], { DEMO: 'true' }).demo, false, '--no-demo wins over DEMO')
  t.equal(config(['--demo'], { DEMO: 'false' }).demo, true, '--demo wins over DEMO')
})

t.test('--demo-trade-interval-ms: 0 turns the demo trader off, else at least DEMO_TRADE_INTERVAL_MS_MIN', async (t) => {
  t.equal(config([]).demoTradeIntervalMs, DEMO_TRADE_INTERVAL_MS)
  t.equal(config(['--demo-trade-interval-ms', '0']).demoTradeIntervalMs, 0)
  t.equal(config([], { DEMO_TRADE_INTERVAL_MS: '250' }).demoTradeIntervalMs, 250)
  throwsNaming(t, () => configOf(['--demo-trade-interval-ms', String(DEMO_TRADE_INTERVAL_MS_MIN - 1)], {}),
    '--demo-trade-interval-ms', 'below the minimum')
  t.match(helpText(), /--demo-trade-interval-ms <value> +DEMO_TRADE_INTERVAL_MS /, 'listed by --help')
})

t.test('--help gives help, and its text lists every flag and variable of operations.md', async (t) => {
  t.equal(configOf(['--help'], {}), 'help')
  t.equal(configOf(['-h'], {}), 'help')
  t.equal(configOf(['--port', '7000', '--help'], {}), 'help')
  const text = helpText()
  for (const { flag, env } of OPERATIONS_TABLE) {
    t.match(text, new RegExp(`${flag}(?![a-z-])`), `help lists ${flag}`)
    if (env !== null) t.match(text, new RegExp(`\\b${env}\\b`), `help lists ${env}`)
  }
  t.match(text, /8080/, 'help shows defaults')
  t.match(text, /80002/)
  t.match(text, /\bsync\b/)
})

t.test('--unfilled-orders-retention-days: 90 by default, 0 keeps for ever, no fraction or negative', async (t) => {
  t.equal(config([], {}).unfilledOrdersRetentionDays, 90)
  t.equal(config(['--unfilled-orders-retention-days', '0'], {}).unfilledOrdersRetentionDays, 0)
  t.equal(config(['--unfilled-orders-retention-days=7'], {}).unfilledOrdersRetentionDays, 7)
  throwsNaming(t, () => configOf(['--unfilled-orders-retention-days', '1.5'], {}), '--unfilled-orders-retention-days',
    '1.5 days')
  throwsNaming(t, () => configOf(['--unfilled-orders-retention-days', '-1'], {}), '--unfilled-orders-retention-days',
    '-1 days')
})

t.test('bad values throw a ConfigError naming the setting', async (t) => {
  throwsNaming(t, () => configOf(['--port', '70000'], {}), '--port', 'port 70000')
  throwsNaming(t, () => configOf(['--port=-1'], {}), '--port', 'port -1')
  throwsNaming(t, () => configOf(['--port', 'eighty'], {}), '--port', 'port eighty')
  throwsNaming(t, () => configOf([], { PORT: '70000' }), 'PORT', 'PORT=70000')
  throwsNaming(t, () => configOf(['--grpc-port', '65536'], {}), '--grpc-port', 'grpc port 65536')
  throwsNaming(t, () => configOf(['--chain-id', '1'], {}), '--chain-id', 'chain 1')
  throwsNaming(t, () => configOf([], { CHAIN_ID: '1' }), 'CHAIN_ID', 'CHAIN_ID=1')
  throwsNaming(t, () => configOf(['--chain', 'mainnet'], {}), '--chain', 'an unknown chain')
  throwsNaming(t, () => configOf(['--chain-block-ms', '50'], {}), '--chain-block-ms', 'blocks faster than 100 ms')
  throwsNaming(t, () => configOf(['--chain', 'local', '--demo'], {}), '--demo', 'the demo on a real chain')
  throwsNaming(t, () => configOf(['--chain', 'local', '--role', 'replica', '--nats-servers', 'a:1'], {}), '--chain',
    'a real chain beside a replica')
  t.equal(config(['--chain', 'local']).chain, 'local')
  const rpc = ['--chain', 'rpc', '--chain-rpc-url', 'http://127.0.0.1:8545', '--chain-contracts', 'c.json',
    '--chain-operator-key-file', 'key']
  t.match(config(rpc), { chain: 'rpc', chainRpcUrl: 'http://127.0.0.1:8545', chainContracts: 'c.json',
    chainOperatorKeyFile: 'key' })
  throwsNaming(t, () => configOf(rpc.slice(0, 4), {}), '--chain-operator-key-file', 'rpc without its files')
  throwsNaming(t, () => configOf(['--chain', 'local', '--chain-contracts', 'c.json'], {}), '--chain-contracts',
    'a contracts file for a chain that takes none')
  throwsNaming(t, () => configOf(['--chain-rpc-url', 'ftp://x'], {}), '--chain-rpc-url', 'a URL that is not http')
  t.equal(config([]).chainConfirmations, 2, 'two confirmations by default')
  t.equal(config(['--chain-confirmations', '12']).chainConfirmations, 12)
  throwsNaming(t, () => configOf(['--chain-confirmations', '0'], {}), '--chain-confirmations', 'no confirmation')
  throwsNaming(t, () => configOf(['--chain-rpc-url', 'not a url'], {}), '--chain-rpc-url', 'not a URL')
  t.equal(config([]).chain, 'builtin', 'the builtin chain by default')
  throwsNaming(t, () => configOf(['--durability', 'maybe'], {}), '--durability', 'durability maybe')
  throwsNaming(t, () => configOf([], { DURABILITY: 'maybe' }), 'DURABILITY', 'DURABILITY=maybe')
  throwsNaming(t, () => configOf(['--demo', 'maybe'], {}), '--demo', 'demo maybe')
  throwsNaming(t, () => configOf([], { DEMO: 'maybe' }), 'DEMO', 'DEMO=maybe')
  throwsNaming(t, () => configOf(['--sig-workers', '0'], {}), '--sig-workers', 'no signature workers')
  throwsNaming(t, () => configOf(['--sig-nice', '20'], {}), '--sig-nice', 'a nice value past 19')
  throwsNaming(t, () => configOf(['--faucet-amount', '0'], {}), '--faucet-amount', 'faucet amount 0')
  throwsNaming(t, () => configOf(['--faucet-cooldown', '1.5'], {}), '--faucet-cooldown', 'faucet cooldown 1.5')
  throwsNaming(t, () => configOf(['--auth-window-past', '0'], {}), '--auth-window-past', 'no past window')
  throwsNaming(t, () => configOf(['--bogus'], {}), '--bogus', 'unknown flag')
  throwsNaming(t, () => configOf(['--bogus=1'], {}), '--bogus', 'unknown flag with a value')
  throwsNaming(t, () => configOf(['7000'], {}), '7000', 'a stray value')
  throwsNaming(t, () => configOf(['--port'], {}), '--port', 'missing value at the end')
  throwsNaming(t, () => configOf(['--port='], {}), '--port', 'empty value')
  throwsNaming(t, () => configOf(['--data-dir', '--no-demo'], {}), '--data-dir', 'missing value before another flag')
  throwsNaming(t, () => configOf(['--host', '--port', '8081'], {}), '--host', 'missing value before another flag')
  throwsNaming(t, () => configOf(['--admin-key', 'short'], {}), '--admin-key', 'admin key too short')
  throwsNaming(t, () => configOf([], { ADMIN_API_KEY: 'short' }), 'ADMIN_API_KEY', 'ADMIN_API_KEY too short')
  t.equal(config(['--admin-key', 'a'.repeat(16)]).adminKey, 'a'.repeat(16), '16 characters are enough')
  t.equal(config(['--port', '0']).port, 0, 'port 0: any free port')
  t.equal(config(['--port', '65535']).port, 65535)
})

t.test('describe() gives the effective values and never the admin key', async (t) => {
  const secret = 'super-secret-admin-key-0123456789'
  const fromFlag = describe(config(['--admin-key', secret, '--port', '7000']))
  t.notMatch(fromFlag, secret, 'the key from a flag is not printed')
  t.notMatch(fromFlag, secret.slice(0, 12), 'not even a prefix of it')
  t.match(fromFlag, /port=7000/)
  t.match(fromFlag, /chainId=80002/)
  t.match(fromFlag, /durability=sync/)
  const fromEnv = describe(config([], { ADMIN_API_KEY: secret }))
  t.notMatch(fromEnv, secret, 'the key from the environment is not printed')
  t.match(describe(config([])), /adminKey=\(from the data directory\)/)
  t.match(describe(config([])), /demo=when new/)
})

t.test('--sig-backend, --log-level and --log-format: their values, and a bad one named', async (t) => {
  t.equal(config([]).sigBackend, 'auto', 'auto by default: native when its binding loads')
  t.equal(config(['--sig-backend=auto']).sigBackend, 'auto')
  t.equal(config(['--sig-backend', 'noble']).sigBackend, 'noble')
  t.equal(config([], { SIG_BACKEND: 'native' }).sigBackend, 'native')
  throwsNaming(t, () => config(['--sig-backend', 'fast']), '--sig-backend', 'an unknown backend')
  t.equal(config([]).logLevel, 'info')
  t.equal(config(['--log-level=debug']).logLevel, 'debug')
  throwsNaming(t, () => config([], { LOG_LEVEL: 'loud' }), 'LOG_LEVEL', 'an unknown level')
  t.equal(config([]).logFormat, null, 'by terminal by default')
  t.equal(config(['--log-format', 'pretty']).logFormat, 'pretty')
  throwsNaming(t, () => config(['--log-format', 'xml']), '--log-format', 'an unknown format')
})
