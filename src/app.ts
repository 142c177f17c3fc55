/**
 * Predex assembled: the engine host (recovery first), the read model (loaded, caught up with the
 * journal, kept current by the engine's events), API credentials, the signature pool, the demo
 * markets on a new data directory, and the REST face. `start` resolves when the doors are open;
 * `stop` closes them, drains, flushes and exits cleanly. Tests start it in-process on port 0.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { makePrivateDir, restrictBelow } from './journal/data-dir.js'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { CredentialStore } from './auth/credentials.js'
import { masterKeyOf } from './auth/master-key-file.js'
import { systemClock, type Clock } from './clock.js'
import type { Config } from './config.js'
import { VerifierPool } from './crypto/verifier-pool.js'
import { ThreadCpu } from './thread-cpu.js'
import { ReplicaFeed } from './replication/replica-feed.js'
import type { ReplicationOptions } from './replication/jetstream-log.js'
import { HighAvailability } from './replication/high-availability.js'
import { EngineHost } from './host/engine-host.js'
import { catchUp } from './read/catch-up.js'
import { ReadModel } from './read/read-model.js'
import { ReadStore } from './read/read-store.js'
import { installSigBackend, type SigBackend } from './crypto/sig-backend.js'
import type { Log } from './log.js'
import { LogBudget } from './log-budget.js'
import { Metrics } from './metrics.js'
import { RestServer } from './api/rest/server.js'
import { RateLimiter } from './auth/rate-limit.js'
import { Gate } from './auth/gate.js'
import { FanOut } from './read/fanout.js'
import { allRoutes } from './api/rest/routes.js'
import type { ServiceContext } from './service/context.js'
import { openDemo, type DemoAccounts } from './demo/demo-set.js'
import { DemoQuoter } from './demo/quoter.js'
import { DemoTrader } from './demo/trader.js'
import { BookFeed } from './service/feeds/book-feed.js'
import { UserFeed } from './service/feeds/user-feed.js'
import { KeyRevocations } from './service/account/key-revocations.js'
import { MarketChannel } from './api/ws/market-channel.js'
import { UserChannel } from './api/ws/user-channel.js'
import { GrpcServer } from './api/grpc/server.js'
import type { GrpcFace } from './api/grpc/call.js'
import { StreamSlots } from './api/grpc/stream-slots.js'
import { GRPC_BOOK_STREAMS_PER_ADDRESS_MAX, GRPC_STREAMS_PER_KEY_MAX, HEARTBEAT_SWEEP_INTERVAL_MS } from './limits.js'
import { LoadShedder } from './service/trading/load-shedder.js'
import { checkPlacementLoad } from './service/trading/trading.js'
import { Heartbeats } from './service/trading/heartbeats.js'
import { ExpiryTimer } from './service/trading/expiry-timer.js'
import { checkPortsFree } from './api/port-check.js'
import { openChain, type Chain } from './chain/chain.js'
import type { ChainMirror } from './service/testnet/chain-mirror.js'
import type { Settlement } from './service/testnet/settlement.js'
import { OpenedParts } from './opened-parts.js'
import { VERSION } from './version.js'

/** package.json's version, read from the file (src/version.ts): one source for the package and /health. */
export { VERSION } from './version.js'

export interface Predex {
  readonly port: number
  /** The gRPC face's port (the bound one when --grpc-port 0). */
  readonly grpcPort: number
  readonly adminKey: string
  readonly context: ServiceContext
  /** The demo account's quoter (null with --no-demo, or a data directory without the demo). */
  readonly demo: DemoQuoter | null
  /** The demo trader (null as the quoter is, or with --demo-trade-interval-ms 0). */
  readonly demoTrader: DemoTrader | null
  stop(): Promise<void>
}

/**
 * `clock`: the wall and monotonic time of the faces and services (tests pass their own). A start
 * that fails part way closes what it had opened, in reverse order, and rejects: no half-started
 * server is left serving (main.ts then exits non-zero).
 */
export async function startPredex(config: Config, log: Log,
  clock: Clock = systemClock): Promise<Predex> {
  const signatures = signatureBackendOf(config, log) // first: a backend that cannot load opens nothing
  // Before the data directory: a port another process holds refuses the start with nothing opened.
  await checkPortsFree(config.host, [
    { port: config.port, face: 'REST and WebSocket', setting: '--port / PORT' },
    { port: config.grpcPort, face: 'gRPC', setting: '--grpc-port / GRPC_PORT' },
  ])
  const opened = new OpenedParts(log)
  try {
    return await startParts(config, log, clock, signatures, opened)
  } catch (error) {
    await opened.closeAll()
    throw error
  }
}

async function startParts(config: Config, log: Log, clock: Clock, signatures: SigBackend,
  opened: OpenedParts): Promise<Predex> {
  const isNew = !existsSync(join(config.dataDir, 'data.mdb'))
  makePrivateDir(config.dataDir)
  const adminKey = adminKeyOf(config, log)
  // Before the journal opens: a missing or wrong master key refuses the start with nothing left open.
  const masterKey = masterKeyOf(config.dataDir, config.masterKey, log)
  const ha = await HighAvailability.open(config, masterKey, log, opened) // a primary takes the lease before it writes
  const { chain, settlement } = await chainOf(config, clock, log, opened)
  const host = await hostOf(config, log)
  opened.add(() => host.stop())
  const { store, read } = await openReadModel(config, host, log)
  opened.add(() => stopHostThenStore(host, store))
  // From here on every durable outcome reaches the read model; the channels register once they exist.
  const fanOut = new FanOut({ source: host, read, save: () => store.saveSoon(read), log })
  await host.eventsFlowing() // the demo's and every later command's events reach the read model
  const feed = await replicaFeedOf(config, host, log, opened)
  const credentials = await CredentialStore.load(host, masterKey)
  const threads = new ThreadCpu()
  const pool = poolOf(config, signatures, threads, () => metrics)
  opened.add(() => pool.close())
  const heartbeats = new Heartbeats({ context: () => context, clock, log }) // the context is read at a lapse
  const shedder = shedderOf(config, log)
  opened.add(() => shedder.stop())
  const metrics = metricsOf({ host, read, store, pool, heartbeats, shedder, threads, feed })
  const context: ServiceContext = { host, read, credentials, pool, chain, settlement, metrics, heartbeats, log, shedder,
    replica: feed, ...contextBasics(config, clock) }
  const [demoAccounts, mirror] = [await demoOf(config, context, isNew, log),
    await followChain({ config, context, chain, fanOut, settlement, opened })]
  const gate = gateOf(config, credentials, adminKey, clock, log)
  const server = new RestServer({ routes: allRoutes, context, metrics, log, gate,
    admitPlacement: (address) => checkPlacementLoad(context, address) })
  const feeds = feedsOf(context, fanOut)
  opened.add(feeds.stop)
  const channels = channelsOf(server, context, gate, feeds)
  const port = await server.listen(config.host, config.port)
  opened.add(() => server.close())
  const { grpc, grpcRefusalLines } = grpcOf(context, gate, feeds, log)
  opened.add(() => grpc.close())
  const grpcPort = await grpc.listen(config.host, config.grpcPort)
  await warnAboutSetup(config, server, log)
  const timers = startHostTimers(context, fanOut, clock, log,
    demoAccounts === null ? null : { accounts: demoAccounts, tradeIntervalMs: config.demoTradeIntervalMs },
    config.role === 'primary')
  ha?.started(host, feed, advertisedUrl(config, port), timers.enableWrites)
  let stopped: Promise<void> | null = null
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      shedder.stop()
      await timers.stop() // the heartbeats' cancels and an expiry under way reach the engine before it stops
      for (const channel of channels) channel.closeAll()
      await grpc.close()
      feeds.stop()
      grpcRefusalLines.flush()
      await server.close()
      await feed?.stop() // a replica stops following before its engine stops
      await mirror?.stop() // so does the chain's mirror, and settlement
      await settlement?.stop()
      await host.stop()
      await ha?.stop() // after the last group: a standby takes over from a complete stream
      await pool.close()
      await store.close()
      await chain.stop()
    })()
    return stopped
  }
  return { port, grpcPort, adminKey, context, demo: timers.demo, demoTrader: timers.demoTrader, stop }
}

/**
 * The feeds every face's streams render (the WebSocket channels, gRPC's streams), made once and
 * registered with the fan-out, and the API keys' revocations, which end order-entry sessions: the
 * user feed numbers and keeps every wallet's updates from now on, so a client can resume. On a real
 * chain a trade's later settlement statuses reach it too.
 */
function feedsOf(context: ServiceContext, fanOut: FanOut):
  { books: BookFeed; users: UserFeed; revocations: KeyRevocations; stop: () => void } {
  const books = new BookFeed(context)
  const users = new UserFeed(context)
  const revocations = new KeyRevocations()
  const stops = [fanOut.register(books), fanOut.register(users), fanOut.register(revocations),
    context.settlement?.onChange((tradeId, settlement) => users.settlementChanged(tradeId, settlement))
      ?? (() => undefined)]
  return { books, users, revocations, stop: () => { for (const stop of stops) stop() } }
}

/** The WebSocket channels, /ws/market and /ws/user, rendering the feeds. */
function channelsOf(server: RestServer<ServiceContext>, context: ServiceContext, gate: Gate,
  feeds: { books: BookFeed; users: UserFeed }): readonly [MarketChannel, UserChannel] {
  const marketChannel = new MarketChannel(server.uws, context, feeds.books)
  server.uws.ws('/ws/market', marketChannel.behavior())
  const userChannel = new UserChannel(context, gate, feeds.users)
  server.uws.ws('/ws/user', userChannel.behavior())
  return [marketChannel, userChannel]
}

/** The context's settings and clock. */
function contextBasics(config: Config, clock: Clock): Pick<ServiceContext, 'chainId' | 'version' | 'startedMs' |
  'nowMs' | 'isLinked' | 'faucet'> {
  return { chainId: config.chainId, version: VERSION, startedMs: clock.wallMs(), nowMs: () => clock.wallMs(),
    isLinked: () => false,
    faucet: { amountMicrosMax: config.faucetAmountUsdc * 1_000_000, cooldownMs: config.faucetCooldownSec * 1000,
      creditsPerHourMax: config.rateLimits ? undefined : null } }
}

/**
 * On a real chain: settlement takes every trade from here on (registered, then caught up to the
 * read model's seq in the same turn, so no trade falls between), and the ledger follows the chain,
 * telling settlement which trades are confirmed. Both stop before the engine.
 */
async function followChain(parts: { config: Config; context: ServiceContext; chain: Chain; fanOut: FanOut;
  settlement: Settlement | null; opened: OpenedParts }): Promise<ChainMirror | null> {
  const { config, context, chain, fanOut, settlement, opened } = parts
  if (chain.clients === null || settlement === null) return null
  const unregister = fanOut.register(settlement)
  opened.add(unregister)
  await settlement.resume(config.dataDir, context.read.seq, (orderId) => {
    const order = context.read.order(orderId)
    return order !== undefined && order.status !== 'LIVE'
  }, async (command) => (await context.host.submit(command)).result)
  const { ChainMirror } = await import('./service/testnet/chain-mirror.js')
  const mirror = await ChainMirror.start(context, chain, (trades) => settlement.confirmed(trades))
  if (mirror !== null) opened.add(() => mirror.stop())
  return mirror
}

/**
 * The chain behind the test network (--chain), stopped last: settlement under way ends before it;
 * and on a real chain, settlement, whose store opens before the intake keeps orders in it.
 */
async function chainOf(config: Config, clock: Clock, log: Log, opened: OpenedParts):
  Promise<{ chain: Chain; settlement: Settlement | null }> {
  const chain = await openChain({ kind: config.chain, chainId: config.chainId, dataDir: config.dataDir,
    blockMs: config.chainBlockMs, confirmations: config.chainConfirmations, rpcUrl: config.chainRpcUrl,
    contractsFile: config.chainContracts,
    operatorKeyFile: config.chainOperatorKeyFile }, log)
  opened.add(() => chain.stop())
  if (chain.clients === null) return { chain, settlement: null }
  const { Settlement } = await import('./service/testnet/settlement.js') // viem, loaded only for a real chain
  const settlement = Settlement.open(chain.clients, config.dataDir, () => clock.wallMs(), log)
  opened.add(() => settlement.stop())
  return { chain, settlement }
}

/**
 * As in stop(): the host stops before the read store closes, so its last events reach an open
 * store. host.stop() is idempotent: a failed start's later closer of the host alone does nothing.
 */
async function stopHostThenStore(host: EngineHost, store: ReadStore): Promise<void> {
  await host.stop()
  await store.close()
}

/** The authentication gate: the time window, the admin key, API keys looked up in `credentials`, rate budgets. */
function gateOf(config: Config, credentials: CredentialStore, adminKey: string, clock: Clock, log: Log): Gate {
  return new Gate({
    chainId: config.chainId, window: { pastSec: config.authPastSec, futureSec: config.authFutureSec }, adminKey,
    lookup: (apiKey) => credentials.lookup(apiKey), log,
    clock: { nowSec: () => Math.floor(clock.wallMs() / 1000), nowMs: () => clock.monotonicMs() },
    limiter: config.rateLimits ? new RateLimiter() : null,
  })
}

/** What an operator must know about this start: rate limits off, a uWS build that drops some headers. */
async function warnAboutSetup(config: Config, server: RestServer<ServiceContext>, log: Log): Promise<void> {
  if (!config.rateLimits) {
    log.warn('rate limits are off (--rate-limits false): benchmarks only, never in production')
  }
  if (!(await server.probeUnderscoreHeaders(config.host))) {
    log.warn('this uWebSockets.js build drops requests whose header names contain "_" (POLY_ADDRESS, ...), so ' +
      '@polymarket/clob-client cannot authenticate. Run `node scripts/patch-uws.mjs` (npm ci does) on Linux x64.')
  }
}

/** Sheds placements while the event loop lags (service/trading/load-shedder.ts); says when it starts and stops. */
function shedderOf(config: Config, log: Log): LoadShedder {
  const shedder = new LoadShedder({ lagMsMax: config.shedLagMs,
    onChange: (shedding, lagMs) => log.warn(shedding ? 'overloaded: shedding order placements' : 'no longer shedding',
      { lagMs: Math.round(lagMs), lagMsMax: config.shedLagMs }) })
  shedder.start()
  return shedder
}

/** The read model on its store, brought up to the journal. */
async function openReadModel(config: Config, host: EngineHost, log: Log):
  Promise<{ store: ReadStore; read: ReadModel }> {
  const store = new ReadStore(config.dataDir, { onDurable: (seq) => host.readDurable(seq),
    unfilledOrdersRetentionDays: config.unfilledOrdersRetentionDays })
  const read = new ReadModel(store)
  store.loadInto(read)
  restrictBelow(config.dataDir) // its stores are open: no file of it is left readable by others
  await loadReadModel(host, read, store, config.dataDir, log)
  return { store, read }
}

/** The verification pool: its verdicts timed on /metrics, its threads named for the CPU by thread. */
function poolOf(config: Config, signatures: SigBackend, threads: ThreadCpu, metrics: () => Metrics): VerifierPool {
  return new VerifierPool({ chainId: config.chainId, threads: config.sigWorkers, nice: config.sigNice,
    backend: signatures, onVerdict: (result, seconds) => metrics().observeVerification(result, seconds),
    onThread: (tid) => threads.add('verify', tid) })
}

/** The process's metrics, with the gauges read at each scrape. */
function metricsOf(parts: { host: EngineHost; read: ReadModel; store: ReadStore; pool: VerifierPool;
  heartbeats: Heartbeats; shedder: LoadShedder; threads: ThreadCpu; feed: ReplicaFeed | null }): Metrics {
  const { host, read, store, pool, heartbeats, shedder, threads, feed } = parts
  const metrics = new Metrics()
  metrics.engine(host.stats)
  metrics.threadCpu(threads, () => host.stats.threads())
  metrics.gauge('predex_engine_seq', 'Sequence number of the last durable command the front end has seen',
    () => read.seq)
  metrics.gauge('predex_engine_pending_requests', 'Commands submitted and not yet answered',
    () => host.load.pendingRequests)
  metrics.gauge('predex_engine_ring_used_bytes', 'Bytes queued in the command ring', () => host.load.ringBytesUsed)
  metrics.gauge('predex_engine_ring_capacity_bytes', 'Size of the command ring', () => host.load.ringBytes)
  metrics.gauge('predex_signature_pool_pending_orders', 'Orders waiting for or in signature verification',
    () => pool.queueSize)
  metrics.gauge('predex_signature_pool_running_tasks', 'Verification tasks (batches of orders) on the threads',
    () => pool.tasksRunningCount)
  metrics.gauge('predex_signature_pool_threads', 'Threads of the verification pool', () => pool.threads)
  metrics.gauge('predex_read_model_lag_commands', 'Commands the engine applied that the read model has not yet',
    () => Math.max(0, host.stats.appliedSeq - read.seq))
  metrics.gauge('predex_read_store_lag_commands', 'Commands in the read model not yet durable in its store',
    () => Math.max(0, read.seq - store.durableSeq))
  metrics.gauge('predex_heartbeat_chains', 'API keys whose heartbeat chain is watched', () => heartbeats.watched)
  metrics.gauge('predex_node_primary', 'Whether this node takes writes (1: the primary) or follows one (0)',
    () => (host.isReplica ? 0 : 1))
  metrics.gauge('predex_replica_lag_commands', 'A replica\'s commands heard of and not yet applied (0 on a primary)',
    () => (host.isReplica ? feed?.lag().seqsBehind ?? 0 : 0))
  metrics.gauge('predex_replica_lag_seconds', 'How old a replica\'s newest applied command is while it is behind',
    () => (host.isReplica ? (feed?.lag().msBehind ?? 0) / 1000 : 0))
  metrics.gauge('predex_load_shedding', 'Whether order placements are being shed (1) for event-loop lag',
    () => (shedder.isShedding ? 1 : 0))
  metrics.counter('predex_load_shed_placements_total', 'Order placements refused with SERVER_BUSY for event-loop lag',
    () => shedder.refused)
  return metrics
}

/** The gRPC server over the service, rendering the feeds' streams, with its stream slots and refusal-line budget. */
function grpcOf(context: ServiceContext, gate: Gate, feeds: Pick<GrpcFace, 'books' | 'users' | 'revocations'>,
  log: Log):
  { grpc: GrpcServer; grpcRefusalLines: LogBudget } {
  const grpcRefusalLines = new LogBudget(log, { what: 'gRPC refusals' })
  const { books, users, revocations } = feeds
  const grpc = new GrpcServer({ context, gate, books, users, revocations, log, refusalLines: grpcRefusalLines,
    keyStreams: new StreamSlots('streams of this API key', GRPC_STREAMS_PER_KEY_MAX),
    addressStreams: new StreamSlots('book streams of this address', GRPC_BOOK_STREAMS_PER_ADDRESS_MAX) })
  return { grpc, grpcRefusalLines }
}

/** Where this node answers REST, as written into the primary's lease for the other nodes to name. */
function advertisedUrl(config: Config, port: number): string {
  return `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`
}

/** The engine host: a primary with NATS servers replicates its command log; a replica journals what it follows. */
function hostOf(config: Config, log: Log): Promise<EngineHost> {
  return EngineHost.start({ dataDir: config.dataDir, durability: config.durability,
    journalRetention: config.journalRetention, endedOrdersRetained: config.endedOrdersRetained, log,
    snapshotReplicaAtStart: true, replication: config.role === 'primary' ? replicationOf(config) : null,
    promotable: config.role === 'standby' })
}

function replicationOf(config: Config): ReplicationOptions | null {
  return config.natsServers === null ? null
    : { servers: config.natsServers, stream: config.natsStream, replicas: config.natsReplicas }
}

/**
 * A replica's feed of the primary's stream (null on a primary), started once the read model
 * listens: the primary's events reach it like any others.
 */
async function replicaFeedOf(config: Config, host: EngineHost, log: Log, opened: OpenedParts):
  Promise<ReplicaFeed | null> {
  if (config.role === 'primary' || config.natsServers === null) return null
  const feed = await ReplicaFeed.start(host,
    { servers: config.natsServers, stream: config.natsStream, primary: config.primaryUrl,
      role: config.role === 'standby' ? 'standby' : 'replica' }, log)
  opened.add(() => feed.stop())
  return feed
}

/** The demo's accounts, or null: none asked for, or not a primary (a replica writes nothing; it follows). */
function demoOf(config: Config, context: ServiceContext, isNew: boolean, log: Log): Promise<DemoAccounts | null> {
  // On a real chain the demo's credits would be the ledger's alone (config.ts refuses --demo there).
  if (config.demo === false || config.role !== 'primary' || config.chain !== 'builtin') return Promise.resolve(null)
  return openDemo(context, config.dataDir, config.demo ?? isNew, log)
}

/**
 * What runs on the host's clock (unref'd timers: they never keep the process up): the sweep for
 * lapsed heartbeat chains, GTD expiry, which watches the durable events, and the demo's quoter and
 * trader. `stop` stops them all, once what they have under way is done. `writes`: false on a
 * replica, whose primary expires GTD orders itself (the expiry is a command).
 */
function startHostTimers(context: ServiceContext, fanOut: FanOut, clock: Clock, log: Log,
  demoSetup: { accounts: DemoAccounts; tradeIntervalMs: number } | null, writes: boolean):
  { stop: () => Promise<void>; demo: DemoQuoter | null; demoTrader: DemoTrader | null; enableWrites: () => void } {
  const { heartbeats } = context
  const sweep = setInterval(() => void heartbeats.sweep(), HEARTBEAT_SWEEP_INTERVAL_MS)
  sweep.unref()
  let expiry: ExpiryTimer | null = null
  let unregister = (): void => undefined
  // A follower's primary expires GTD orders; a standby that takes over starts doing it (from the read model).
  const enableWrites = (): void => {
    if (expiry !== null) return
    expiry = new ExpiryTimer({ context, clock, log })
    unregister = fanOut.register(expiry)
    expiry.start()
  }
  if (writes) enableWrites()
  const demo = demoSetup === null ? null : new DemoQuoter({ context, account: demoSetup.accounts.maker, log })
  demo?.start()
  const demoTrader = demo === null || demoSetup === null || demoSetup.tradeIntervalMs === 0 ? null
    : new DemoTrader({ context, account: demoSetup.accounts.taker, intervalMs: demoSetup.tradeIntervalMs,
      afterTrade: () => demo.requote(), log })
  demoTrader?.start()
  const stop = async (): Promise<void> => {
    clearInterval(sweep)
    unregister()
    // The trader first: a trade under way still gets its pass from the quoter, before the quoter stops.
    await demoTrader?.stop()
    await Promise.all([heartbeats.stop(), expiry?.stop(), demo?.stop()])
  }
  return { stop, demo, demoTrader, enableWrites }
}

/** Markets and books from the engine, then the events the read model missed (if any). */
async function loadReadModel(host: EngineHost, read: ReadModel, store: ReadStore, dataDir: string,
  log: Log): Promise<void> {
  const projected = catchUp(dataDir, read, host.recovered.seq)
  if (projected > 0) log.info('read model: projected the commands it had missed', { commands: projected })
  read.seq = host.recovered.seq
  store.save(read) // what the catch-up projected, with the seq it reached
  const markets = await host.query({ kind: 'markets' })
  if (markets.kind !== 'markets') throw new Error('unexpected answer to markets')
  for (const market of markets.markets) {
    read.putMarket(market)
    for (const tokenId of [market.yesTokenId, market.noTokenId]) {
      const answer = await host.query({ kind: 'book', tokenId, unified: false, depthMax: Number.MAX_SAFE_INTEGER })
      if (answer.kind === 'book' && answer.book !== null) read.setBook(answer.book)
    }
  }
}

/** This thread's and the pool's signature backend, logged: the speed of every signed request depends on it. */
function signatureBackendOf(config: Config, log: Log): SigBackend {
  const { backend, fallbackReason } = installSigBackend(config.sigBackend)
  if (fallbackReason === null) log.info('signature backend', { backend, chosen: config.sigBackend })
  else log.warn('signature backend: libsecp256k1 did not load; noble is about 20 x slower', { backend, fallbackReason })
  return backend
}

/** The admin key: configured, or stored in the data directory, or generated now (never logged: a secret). */
function adminKeyOf(config: Config, log: Log): string {
  if (config.adminKey !== null) return config.adminKey
  const file = join(config.dataDir, 'admin-key')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  const key = randomBytes(24).toString('base64url')
  writeFileSync(file, key + '\n', { mode: 0o600 })
  log.warn('admin API key generated (not shown: read it from the file)', { file })
  return key
}
