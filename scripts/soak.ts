/**
 * The soak run (issue 14): a mixed workload against a real Predex process (market makers quoting
 * and cancelling, takers crossing, WebSocket readers on both channels, the faucet, readers) for
 * `--minutes`, with kill -9 and a restart on the same data directory at random moments. At the end
 * it kills the server once more, restarts it, and checks: every acknowledged order and cancel is
 * kept; the server's state hash equals a replay of its journal from seq 1 in a fresh engine; the
 * resident set is flat (trend after each start's warm-up under a stated bound); no 5xx but a shed
 * 503, and every WebSocket frame well formed. Exit code 0 only when every check holds.
 *
 *   npm run soak -- --minutes 10 [--quiet-minutes M] [--seed N] [--port P] [--keep-dir] [--json]
 *
 * --quiet-minutes: the last M minutes without a kill (one long incarnation, to see the memory trend
 * past the first minute of a process).
 *
 * The seed (printed) fixes the traders' wallets and every choice of the workload and of the kill
 * times; the timing of a real server on a shared machine does the rest.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PredexClient } from '../src/client/predex-client.js'
import { acknowledgedKept, memoryFlat, memoryUnderCeiling, replayAgrees, type Check } from './soak/checks.js'
import { freePort, SOAK_ADMIN_KEY, SoakServer } from './soak/server.js'
import { SoakSockets } from './soak/sockets.js'
import { faucetStep, Ledger, makerStep, pause, readStep, rngOf, takerStep, traderOf, type Rng, type Trader }
  from './soak/workload.js'

/**
 * The shortest incarnation whose memory is judged: a fresh server fills its bounded caches for
 * some 150 s under this load, and the second half of its life is what is fitted.
 */
const SOAK_JUDGED_MS_MIN = 240_000
/**
 * The bound on the own memory's trend over that half: samples are taken without a collection and
 * jitter by about 20 MB, so a 2-minute fit of a flat server reads up to some 13 MB/min; a server
 * still filling its caches reads 70 to 130, and one growing with history (before the read model
 * moved to disk) read 80.
 */
const SOAK_ANON_SLOPE_MB_PER_MIN_MAX = 20
/** The own memory's ceiling (RssAnon; it plateaus at some 550 MB under this load). */
const SOAK_ANON_MB_MAX = 1_024
const MAKERS = 4
const TAKERS = 3

interface SoakFlags {
  readonly minutes: number
  readonly seed: number
  readonly port: number
  readonly keepDir: boolean
  readonly json: boolean
  /** The last minutes of the workload run without a kill: one long incarnation, for the memory trend. */
  readonly quietMinutes: number
}

function flagsOf(argv: readonly string[]): SoakFlags {
  const value = (flag: string): number | null => {
    const index = argv.indexOf(flag)
    if (index < 0) return null
    const number = Number(argv[index + 1])
    if (!Number.isFinite(number) || number < 0) throw new Error(`${flag} needs a number`)
    return number
  }
  const minutes = value('--minutes') ?? 5
  if (minutes <= 0) throw new Error('--minutes needs a positive number')
  return { minutes, seed: value('--seed') ?? Math.floor(Math.random() * 2 ** 31), port: value('--port') ?? 0,
    keepDir: argv.includes('--keep-dir'), json: argv.includes('--json'),
    quietMinutes: Math.min(minutes, value('--quiet-minutes') ?? 0) }
}

function say(line: string): void {
  process.stderr.write(`soak: ${line}\n`)
}

async function marketsOn(server: SoakServer): Promise<string[]> {
  const admin = new PredexClient({ baseUrl: server.base, adminKey: SOAK_ADMIN_KEY })
  const tokens: string[] = []
  for (const question of ['Will the soak hold?', 'Will memory stay flat?']) {
    const market = await admin.createMarket({ question, tick_size: '0.01', min_order_size: '5' })
    tokens.push(market.yes_token_id, market.no_token_id)
  }
  return tokens
}

/** Each trader's loop, the faucet's and the reader's, until `running()` is false. */
function actors(traders: readonly Trader[], tokens: readonly string[], rng: Rng, ledger: Ledger,
  running: () => boolean): Promise<void>[] {
  const loop = async (step: () => Promise<void>, pauseMs: number): Promise<void> => {
    while (running()) {
      await step()
      await pause(Math.floor(rng() * pauseMs))
    }
  }
  return [
    ...traders.map((trader) => loop(() => trader.role === 'maker' ? makerStep(trader, tokens, rng, ledger)
      : takerStep(trader, tokens, rng, ledger), 20)),
    loop(() => faucetStep(traders, rng, ledger), 500),
    loop(() => readStep(traders, tokens, rng, ledger), 50),
  ]
}

/** kill -9 at random moments (every 15-40 s), each followed by a restart, until `endMs`. */
async function killer(server: SoakServer, rng: Rng, endMs: number, running: () => boolean): Promise<number[]> {
  const restartMs: number[] = []
  for (;;) {
    const waitMs = 15_000 + rng() * 25_000
    if (performance.now() + waitMs > endMs - 5_000) return restartMs
    await pause(waitMs)
    if (!running()) return restartMs
    restartMs.push(await restart(server))
    say(`kill -9 and restart #${restartMs.length}, back in ${restartMs.at(-1)!.toFixed(0)} ms`)
  }
}

async function restart(server: SoakServer): Promise<number> {
  const startedMs = performance.now()
  await server.kill()
  await server.start()
  return performance.now() - startedMs
}

function progress(ledger: Ledger, server: SoakServer, startedMs: number, minutes: number): NodeJS.Timeout {
  return setInterval(() => {
    const elapsedS = (performance.now() - startedMs) / 1000
    const rss = server.samples.at(-1)?.rssBytes ?? 0
    say(`${elapsedS.toFixed(0)} s of ${(minutes * 60).toFixed(0)}: ${ledger.orders.size} orders and `
      + `${ledger.canceled.size} cancels acknowledged, ${ledger.faucetCredits} faucet credits, `
      + `${ledger.unreachable} requests found no server, rss ${(rss / 2 ** 20).toFixed(0)} MB`)
  }, 10_000)
}

async function main(): Promise<number> {
  const flags = flagsOf(process.argv.slice(2))
  const dataDir = mkdtempSync(join(tmpdir(), 'predex-soak-'))
  say(`seed ${flags.seed} (--seed ${flags.seed} replays its choices), ${flags.minutes} min, data in ${dataDir}`)
  const server = new SoakServer(dataDir, flags.port === 0 ? await freePort() : flags.port)
  await server.start()
  const rng = rngOf(flags.seed)
  const ledger = new Ledger()
  const sockets = new SoakSockets(server.port)
  try {
    const tokens = await marketsOn(server)
    const traders = await Promise.all(Array.from({ length: MAKERS + TAKERS },
      (_, i) => traderOf(server.base, flags.seed, i, i < MAKERS ? 'maker' : 'taker')))
    sockets.market(tokens)
    for (const trader of traders) sockets.user(trader)
    const checks = await soak(server, traders, tokens, rng, ledger, flags)
    checks.push(...socketChecks(sockets, ledger))
    return report(flags, server, ledger, sockets, checks)
  } finally {
    sockets.stop()
    if (server.pid !== null) await server.stop()
    if (flags.keepDir) say(`data kept in ${dataDir}`)
    else rmSync(dataDir, { recursive: true, force: true })
  }
}

async function soak(server: SoakServer, traders: readonly Trader[], tokens: readonly string[], rng: Rng,
  ledger: Ledger, flags: SoakFlags): Promise<Check[]> {
  const startedMs = performance.now()
  const endMs = startedMs + flags.minutes * 60_000
  const running = (): boolean => performance.now() < endMs
  const ticker = progress(ledger, server, startedMs, flags.minutes)
  const restarts = killer(server, rng, endMs - flags.quietMinutes * 60_000, running)
  await Promise.all(actors(traders, tokens, rng, ledger, running))
  const restartMs = await restarts
  clearInterval(ticker)
  // Every acknowledgement goes through one more crash before it is checked.
  restartMs.push(await restart(server))
  say(`workload over; kill -9 and restart #${restartMs.length} before the checks`)
  const kept = await acknowledgedKept(traders, ledger)
  const admin = new PredexClient({ baseUrl: server.base, adminKey: SOAK_ADMIN_KEY })
  const served = await admin.adminStateHash()
  await server.stop()
  const replayed = await replayAgrees(server.dataDirectory, served)
  return [
    { name: 'restarts', ok: restartMs.length >= 2, detail: `${restartMs.length} kill -9 restarts, `
      + `slowest back in ${Math.max(...restartMs).toFixed(0)} ms` },
    kept, replayed,
    memoryFlat(server.samples, SOAK_JUDGED_MS_MIN, SOAK_ANON_SLOPE_MB_PER_MIN_MAX),
    memoryUnderCeiling(server.samples, SOAK_ANON_MB_MAX),
  ]
}

function socketChecks(sockets: SoakSockets, ledger: Ledger): Check[] {
  const { frames, badFrames, connects } = sockets.tally
  return [
    { name: 'no server errors', ok: ledger.serverErrors.length === 0,
      detail: ledger.serverErrors.length === 0 ? `none (${ledger.shed} shed with 503)`
        : ledger.serverErrors.slice(0, 5).join('; ') },
    { name: 'WebSocket frames well formed', ok: frames > 0 && badFrames.length === 0,
      detail: `${frames} frames over ${connects} connections${badFrames.length > 0 ? `; bad: ${badFrames.join(' | ')}` : ''}` },
  ]
}

function report(flags: SoakFlags, server: SoakServer, ledger: Ledger, sockets: SoakSockets, checks: Check[]): number {
  for (const check of checks) say(`${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`)
  const summary = {
    seed: flags.seed, minutes: flags.minutes, ok: checks.every((check) => check.ok),
    orders_acknowledged: ledger.orders.size, cancels_acknowledged: ledger.canceled.size,
    faucet_credits: ledger.faucetCredits, reads: ledger.reads, unreachable: ledger.unreachable, shed: ledger.shed,
    refusals: Object.fromEntries(ledger.refusals), ws_frames: sockets.tally.frames,
    /** [seconds into the run, incarnation, VmRSS MB, RssAnon MB] */
    rss_samples: server.samples.map((s) => [Math.round(s.elapsedMs / 1000), s.incarnation,
      Math.round(s.rssBytes / 2 ** 20), Math.round(s.rssAnonBytes / 2 ** 20)]),
    checks: checks.map((check) => ({ name: check.name, ok: check.ok, detail: check.detail })),
  }
  process.stdout.write(`${flags.json ? JSON.stringify(summary) : JSON.stringify(summary, null, 2)}\n`)
  return summary.ok ? 0 : 1
}

process.exitCode = await main()
