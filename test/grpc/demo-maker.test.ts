/**
 * `npm run demo:maker` against a Predex with the demo markets: the maker (a child process, the
 * build when it is fresh, else the sources) funds a new wallet through the REST SDK, quotes a bid
 * and an ask on both outcomes of every active market over its order-entry session, reports a
 * fill when a taker buys from it, and on SIGINT exits 0 after dropping the session without
 * `close`, so that the server's cancel on disconnect leaves none of its orders open. Without
 * --rest and --grpc it goes where PORT and GRPC_PORT say, and an address it cannot reach is named
 * with the variable that sets it (exit 1), where it used to say only "fetch failed".
 */
import t from 'tap'
import { execFile, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { decimalText } from '../../src/client/decimal.js'
import { freshCompiled, ROOT } from '../support/compiled.js'
import { placeLimit, startServer, USDC } from '../support/rest-harness.js'

const WAIT_MS = 30_000

// The demo trader off: its fills of the maker's quotes would print FILL lines of their own sizes
// beside the one this test makes and counts on (src/demo/trader.ts has its own test).
const server = await startServer({ argv: ['--demo', '--demo-trade-interval-ms', '0'] })
t.teardown(() => server.stop())
const read = server.predex.context.read
const markets = [...read.markets.values()].filter((market) => market.status === 'Active')
t.equal(markets.length, 3, 'the demo set: three active markets')

const compiled = freshCompiled('scripts/demo-maker.js', ['src', 'scripts'])
// Else the sources through the tests' loader (the child's working directory is the repository's).
const entry = compiled !== null ? [compiled]
  : ['--import', './scripts/ts-loader.mjs', join(ROOT, 'scripts/demo-maker.ts')]
const child = spawn(process.execPath, [...entry, '--rest', server.base, '--grpc', `127.0.0.1:${server.predex.grpcPort}`,
  '--duration-sec', '120'], { cwd: ROOT, env: { ...process.env },
  stdio: ['ignore', 'pipe', 'pipe'] })
const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
t.teardown(() => {
  if (child.exitCode === null) child.kill('SIGKILL')
})
let output = ''
child.stdout.setEncoding('utf8').on('data', (text: string) => { output += text })
child.stderr.setEncoding('utf8').on('data', (text: string) => { output += text })

/** Polls `check` every 100 ms until it answers a value, or fails after `ms`. */
async function until<T>(check: () => T | null | undefined, what: string, ms = WAIT_MS): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = check()
    if (value !== null && value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the maker printed:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const ordersOf = (address: string) => [...read.items('ordersByMaker', address)].map((id) => read.order(id)!)

t.test('it quotes both outcomes of every active market, reports a fill, and Ctrl-C cancels its orders',
  async (t) => {
    const address = await until(() => /wallet (0x[0-9a-fA-F]{40})/.exec(output)?.[1]?.toLowerCase(), 'the wallet')
    const quoting = await until(() => {
      const live = ordersOf(address).filter((order) => order.status === 'LIVE')
      const covered = markets.every((market) => [market.yesTokenId, market.noTokenId].every((tokenId) =>
        ['BUY', 'SELL'].every((side) => live.some((order) => order.tokenId === tokenId && order.side === side))))
      return covered ? live : null
    }, 'a bid and an ask on both outcomes of every market')
    t.ok(quoting.length >= 12, `${quoting.length} live quotes`)
    // The maker prints a market's quotes once their acks reach it, which can be after the read model
    // shows them LIVE here (one more hop): wait for the line rather than expect it at once.
    await until(() => (/QUOTE/.test(output) ? true : null), 'the quote lines')
    t.match(output, /QUOTE .* Yes .* No /, 'it prints its quotes')

    const ask = quoting.find((order) => order.tokenId === markets[0]!.yesTokenId && order.side === 'SELL')!
    const taker = await server.trader(1_000 * USDC)
    const price = decimalText({ units: BigInt(ask.priceMicros), scale: 6 })
    const bought = await placeLimit(server, taker, markets[0]!, { side: 'BUY', price, size: '5' }, 'FAK')
    t.equal(bought.status, 200, `a taker buys 5 Yes at the maker's ask ${price}`)
    await until(() => (/FILL/.test(output) ? true : null), 'the fill line')
    // Its Yes ask, or (a mint) its No bid at the complement: the maker sold Yes or bought No.
    t.match(output, /FILL .* (SELL Yes|BUY No) 5 @ .* pos Yes .* P&L /, 'it prints the fill with its position and P&L')
    // The re-quote after the fill is one mass quote: the quotes the fill did not touch are sent again and kept.
    await until(() => (/QUOTE .* kept [1-9]/.test(output) ? true : null), 'a re-quote that keeps untouched quotes')
    t.match(output, /QUOTE .* kept [1-9]\d*, cancelled \d+/, 'the untouched quotes kept their places')

    // What rests when Ctrl-C comes: after it the maker sends nothing, so only the server can cancel these.
    const resting = await until(() => {
      const live = ordersOf(address).filter((order) => order.status === 'LIVE')
      return live.length >= 12 ? live : null
    }, 'the quotes after the fill')
    child.kill('SIGINT')
    const code = await until(() => child.exitCode, 'the maker to exit after SIGINT', 15_000)
    t.equal(code, 0, 'Ctrl-C: exit 0')
    t.equal(await exited, 0)
    t.match(output, /STOP .*cancel on disconnect/, 'it says cancel on disconnect does the cleanup')
    await until(() => (ordersOf(address).every((order) => order.status !== 'LIVE') ? true : null),
      'every order of the maker to end', 10_000)
    t.same(resting.map((order) => read.order(order.orderId)!.status), resting.map(() => 'CANCELED'),
      `the ${resting.length} quotes resting at Ctrl-C ended CANCELED`)
    t.match(output, /DONE +(\d+)\/\1 quotes canceled by the server/, 'and the maker saw each cancel on its user stream')
  })

/** A port nobody listens on: one the system gave, closed again. */
async function closedPort(): Promise<number> {
  const socket = createServer()
  await new Promise<void>((resolve) => socket.listen(0, '127.0.0.1', resolve))
  const { port } = socket.address() as { port: number }
  await new Promise((resolve) => socket.close(resolve))
  return port
}

/** The maker run to its end with `env` over PORT and GRPC_PORT unset: its exit status and what it wrote. */
function makerRun(args: readonly string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const { PORT: _port, GRPC_PORT: _grpcPort, ...rest } = process.env
  return new Promise((resolve) => execFile(process.execPath, [...entry, ...args], { cwd: ROOT, timeout: 30_000,
    env: { ...rest, ...env } },
  (error, _stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? -1), stderr })))
}

t.test('PORT and GRPC_PORT point it at the server; an address it cannot reach is named, exit 1', async (t) => {
  const [restPort, grpcPort] = [await closedPort(), await closedPort()]
  const [noRest, noGrpc] = await Promise.all([
    makerRun(['--duration-sec', '1'], { PORT: String(restPort), GRPC_PORT: String(server.predex.grpcPort) }),
    // REST is there (funding works), the gRPC port is not.
    makerRun(['--duration-sec', '1'], { PORT: String(server.predex.port), GRPC_PORT: String(grpcPort) }),
  ])
  t.equal(noRest.code, 1, noRest.stderr)
  t.match(noRest.stderr, `cannot reach Predex's REST API at http://127.0.0.1:${restPort} (ECONNREFUSED)`)
  t.match(noRest.stderr, 'set PORT', 'and how to point it elsewhere')
  t.equal(noGrpc.code, 1, noGrpc.stderr)
  t.match(noGrpc.stderr, `cannot reach Predex's gRPC API at 127.0.0.1:${grpcPort}`)
  t.match(noGrpc.stderr, 'set GRPC_PORT')
})
