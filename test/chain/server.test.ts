/**
 * `--chain local` on a real server process (issue 35 point 1): Predex starts anvil, places its
 * contracts and says so in /health; a restart on the same data directory finds the same chain
 * (a balance set before is still there, the contracts are kept, not written again); and anvil
 * never outlives the exchange that started it, on a clean stop or on kill -9. Bounded: every
 * wait has a deadline.
 */
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { ensureBuilt } from '../support/compiled.js'
import { startPredex, type PredexProcess } from '../support/predex-process.js'
import { eventually } from '../support/eventually.js'
import { CHAINS } from '../../src/crypto/contracts.js'

const ARGS = ['--no-demo', '--chain', 'local', '--chain-block-ms', '100']
const WATCHED = '0x00000000000000000000000000000000000beef5'
const STATE_WRITE_WAIT_MS = 1_500
const ANVIL_EXIT_MS_MAX = 10_000
const WAIT_MS_MAX = 10_000

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS_MAX
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS_MAX} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

interface ChainHealth {
  readonly kind: string
  readonly rpc_url: string
  readonly chain_id: number
  readonly head_block: number | null
  readonly rpc_error: string | null
}

async function chainOf(node: PredexProcess): Promise<ChainHealth> {
  const response = await fetch(`${node.base}/health`, { signal: AbortSignal.timeout(5_000) })
  return ((await response.json()) as { chain: ChainHealth }).chain
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(5_000) })
  const answer = await response.json() as { result?: unknown; error?: unknown }
  if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`)
  return answer.result
}

function commandLineOf(pid: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return null
  }
}

/** Pids of the anvil processes whose state file is in `dataDir`. */
function anvilsOf(dataDir: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const cmdline = commandLineOf(entry)
    if (cmdline === null) continue // ended while we looked
    const args = cmdline.split('\0')
    if (args[0]?.endsWith('/anvil') === true && cmdline.includes(dataDir)) pids.push(Number(entry))
  }
  return pids
}

ensureBuilt()

t.test('/health names the local chain; a restart finds the same chain; anvil ends with the exchange', async (t) => {
  const first = await startPredex(t, ARGS)
  const chain = await chainOf(first)
  t.equal(chain.kind, 'local')
  t.equal(chain.chain_id, 80002)
  t.match(chain.rpc_url, /^http:\/\/127\.0\.0\.1:\d+$/, 'anvil listens on loopback')
  t.equal(chain.rpc_error, null)
  t.type(chain.head_block, 'number')
  const exchangeCode = await rpc(chain.rpc_url, 'eth_getCode', [CHAINS[80002]!.exchange, 'latest']) as string
  t.ok(exchangeCode.length > 1000, 'the V1 exchange has code at the address clients sign for')
  t.equal(await rpc(chain.rpc_url, 'eth_chainId', []), '0x13882', 'chain id 80002')
  const headAtStart = chain.head_block!
  await waitFor(async () => (await chainOf(first)).head_block! >= headAtStart + 2, 'blocks are being made')
  await rpc(chain.rpc_url, 'anvil_setBalance', [WATCHED, '0x3039'])
  await new Promise((resolve) => setTimeout(resolve, STATE_WRITE_WAIT_MS)) // anvil writes its state every second
  const headBefore = (await chainOf(first)).head_block!
  t.strictSame(anvilsOf(first.dataDir).length, 1, 'one anvil for this data directory')

  first.child.kill('SIGTERM')
  await first.exited
  await eventually(() => anvilsOf(first.dataDir).length === 0, ANVIL_EXIT_MS_MAX, 'anvil stops with a clean stop')

  const second = await startPredex(t, ARGS, first.dataDir)
  const again = await chainOf(second)
  t.ok(again.head_block! >= headBefore, `the chain goes on from block ${headBefore} (now ${again.head_block})`)
  t.equal(await rpc(again.rpc_url, 'eth_getBalance', [WATCHED, 'latest']), '0x3039', 'a balance set before is kept')
  t.match(second.output(), /"kept":6/, 'the contracts found in place are not written again')

  second.child.kill('SIGKILL')
  await second.exited
  await eventually(() => anvilsOf(first.dataDir).length === 0, ANVIL_EXIT_MS_MAX,
    'anvil stops when the exchange is killed with -9')
  t.pass('anvil stopped after the kill')
})
