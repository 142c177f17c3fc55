/**
 * The newcomer's path, as the README and examples/README.md give it: `npm start` on a new data
 * directory (the demo set, quoted), then each example of examples/ run as its own process, as a
 * reader runs it, against that server: the Polymarket bots (clob-client-v2 and the V1 clob-client,
 * from a new key: faucet and approve under /compat, API key, book, a bid that rests, its cancel),
 * the SDK's first trade (scripts/first-trade.mjs, which runs the same file), and the gRPC maker
 * for two seconds. Each must exit 0, print the outcome, and the server must show it (no order of
 * the bots left open, the SDK's trade in its wallet's trades). And /compat/faucet is the native
 * faucet: one cooldown for both paths.
 *
 * The examples import the build (dist/), as they do for a reader after `npm start`: built here
 * when stale. Bounded: the server's start and each example have a deadline.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Wallet } from '../../src/crypto/wallet.js'
import { ensureBuilt, ROOT } from '../support/compiled.js'

const START_MS_MAX = 60_000
const EXAMPLE_MS_MAX = 60_000
const HASH = '0x[0-9a-f]{64}'

interface Finished {
  readonly code: number | null
  readonly output: string
}

/** Runs `node <args>` from the repository's root; kills it past `ms` (code null then). */
function run(args: readonly string[], ms = EXAMPLE_MS_MAX): { child: ChildProcess; output: () => string;
  finished: Promise<Finished> } {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (text: string) => { output += text })
  child.stderr!.setEncoding('utf8').on('data', (text: string) => { output += text })
  const timer = setTimeout(() => child.kill('SIGKILL'), ms)
  const finished = new Promise<Finished>((resolve) => child.once('exit', (code) => {
    clearTimeout(timer)
    resolve({ code, output })
  }))
  return { child, output: () => output, finished }
}

ensureBuilt()
const dataDir = mkdtempSync(join(tmpdir(), 'predex.examples-'))
// `npm start` as the README has it, on free ports. Placements are never shed (--shed-lag-ms 0): beside
// the suite's other files the event loop can run 50 ms late, and the examples do not retry a 503.
const server = run(['scripts/start.mjs', '--data-dir', dataDir, '--port', '0', '--grpc-port', '0',
  '--sig-workers', '1', '--sig-nice', '0', '--shed-lag-ms', '0'], 10 * 60_000)
t.teardown(async () => {
  server.child.kill('SIGTERM')
  const killer = setTimeout(() => server.child.kill('SIGKILL'), 20_000)
  await server.finished
  clearTimeout(killer)
  rmSync(dataDir, { recursive: true, force: true })
})

async function listening(): Promise<{ base: string; grpc: string }> {
  const deadline = Date.now() + START_MS_MAX
  for (;;) {
    const rest = /REST listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1]
    const grpc = /gRPC listening on (127\.0\.0\.1:\d+)/.exec(server.output())?.[1]
    if (rest !== undefined && grpc !== undefined) return { base: rest, grpc }
    if (server.child.exitCode !== null || Date.now() > deadline) throw new Error(`no server:\n${server.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const { base, grpc } = await listening()
const json = async (path: string, init?: RequestInit): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${base}${path}`, init)
  return { status: response.status, body: await response.json() }
}

// All at once: each has a wallet of its own, and the file's time is the slowest one's, not their sum.
const started = Date.now()
const examples = {
  v2: run(['examples/polymarket-v2-bot.mjs', base]),
  v1: run(['examples/polymarket-v1-bot.mjs', base]),
  sdk: run(['scripts/first-trade.mjs', base]),
  maker: run(['examples/grpc-maker.mjs', base, '--grpc', grpc, '--seconds', '2']),
}

/** The wallet an example printed first (`wallet 0x…`), lower-case as the server keys it. */
function walletOf(output: string): string {
  const address = /^wallet (0x[0-9a-fA-F]{40})/m.exec(output)?.[1]
  if (address === undefined) throw new Error(`no wallet line in:\n${output}`)
  return address.toLowerCase()
}

for (const [name, file] of [['v2', 'polymarket-v2-bot'], ['v1', 'polymarket-v1-bot']] as const) {
  t.test(`examples/${file}.mjs: a new key to a resting order and its cancel, through /compat`, async (t) => {
    const { code, output } = await examples[name].finished
    t.comment(`${file}: ${Date.now() - started} ms`)
    t.equal(code, 0, code === 0 ? 'exit 0' : `exit 0; it printed:\n${output}`)
    t.match(output, /faucet: \{"address":"0x[0-9a-f]{40}","usdc_credited":"1000"/, 'the faucet credited 1 000 USDC')
    t.match(output, /approve \(relay\): \{"transaction_hash":"0x[0-9a-f]{64}","block_number":\d+,"status":"CONFIRMED"\}/,
      'the signed approve ran')
    t.match(output, /api key: "[0-9a-f-]{36}"/, 'an API key')
    t.match(output, /balance and allowance: \{"balance":"1000000000","allowance":"9007199254740991"/,
      'the client reads the credit and the unlimited allowance')
    const orderId = new RegExp(`order BUY [\\d.]+ Yes @ [\\d.]+: .*"orderID":"(${HASH})","status":"live"`).exec(output)?.[1]
    t.ok(orderId, 'a post-only bid rests')
    t.match(output, `open orders: [{"id":"${orderId}","status":"LIVE"}]`, 'listed as open')
    t.match(output, `cancel: {"canceled":["${orderId}"],"not_canceled":{}}`, 'and canceled')
    const open = await json(`/users/${walletOf(output)}/orders`)
    t.same(open.body.data, [], 'the server holds no open order of the wallet')
  })
}

t.test('examples/sdk-first-trade.mjs (through scripts/first-trade.mjs): a new wallet buys 10 Yes', async (t) => {
  const { code, output } = await examples.sdk.finished
  t.comment(`sdk-first-trade: ${Date.now() - started} ms`)
  t.equal(code, 0, code === 0 ? 'exit 0' : `exit 0; it printed:\n${output}`)
  t.match(output, /approve 1000 USDC \(relay\): .*"status":"CONFIRMED"/, 'approved through the relay')
  t.match(output, new RegExp(`order: .*"status":"matched".*"transactionsHashes":\\["${HASH}"\\]`), 'the order traded')
  const trades = await json(`/users/${walletOf(output)}/trades`)
  t.equal(trades.body.data.length, 1, 'one trade of the wallet on the server')
  t.match(trades.body.data[0], { side: 'BUY', size: '10' }, 'a buy of 10 shares')
})

t.test('examples/grpc-maker.mjs --seconds 2: a bid and an ask acknowledged over gRPC, both canceled', async (t) => {
  const { code, output } = await examples.maker.finished
  t.comment(`grpc-maker: ${Date.now() - started} ms`)
  t.equal(code, 0, code === 0 ? 'exit 0' : `exit 0; it printed:\n${output}`)
  const acks = [...output.matchAll(new RegExp(`^ack (BUY|SELL) 10 Yes @ [\\d.]+: live (${HASH})$`, 'gm'))]
  t.same(acks.map((m) => m[1]), ['BUY', 'SELL'], 'a live bid and a live ask')
  t.match(output, `canceled 2 of 2: ${acks.map((m) => m[2]).join(' ')}`, 'both canceled on the way out')
  t.same((await json(`/users/${walletOf(output)}/orders`)).body.data, [], 'nothing of the maker left open')
})

t.test('/compat/faucet is the native faucet: the same credit, one cooldown for both paths', async (t) => {
  const address = Wallet.random().address.toLowerCase()
  const post = (path: string) => json(path, { method: 'POST', body: JSON.stringify({ address, amount: '5' }) })
  const credited = await post('/compat/faucet')
  t.equal(credited.status, 200)
  t.match(credited.body, { address, usdc_credited: '5', eth_credited: '0.1' })
  for (const path of ['/compat/faucet', '/faucet']) {
    const again = await post(path)
    t.equal(again.status, 429, `${path} inside the cooldown: 429`)
    t.equal(again.body.code, 'FAUCET_COOLDOWN')
  }
  t.same((await json(`/compat/relay/nonce?address=${address}`)).body, { address, nonce: 0 }, '/compat/relay/nonce')
})
