/**
 * kill -9 of the primary in the middle of a clob-client session (issue 34, "not done until"): an
 * unmodified `@polymarket/clob-client` (V1) keyed on the primary places post-only orders one after
 * another; the primary is killed with SIGKILL while it does. The standby takes over, and the same
 * wallet and API key, on a client pointed at the new primary (what a load balancer following
 * /health would do), find every order the old primary acknowledged open there with its size and
 * price, and go on: a new order, then cancel-all. Both nodes share the master key API secrets
 * derive from (as `npm run cluster:local` does), so the key made on one is good on the other.
 * Bounded: every start and wait has a deadline.
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { maxUint256, zeroHash } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { ClobClient, OrderType, Side, type ApiKeyCreds } from '@polymarket/clob-client'
import { ensureBuilt } from '../support/compiled.js'
import { walletOf } from '../compat/support.js'
import { startNats } from '../support/nats.js'
import { startPredex, type PredexProcess } from '../support/predex-process.js'

const CHAIN_ID = 80002
const ADMIN_KEY = 'clob-session-test-admin-key-0123456789'
/** The bound on a takeover, with room for the catch-up under a loaded CI machine. */
const TAKEOVER_WAIT_MS = 9_000
const ORDERS_BEFORE_KILL = 12

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

async function call(node: PredexProcess, method: string, path: string, body?: unknown,
  headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(`${node.base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(10_000) })
  const answer = await response.json()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`)
  return answer
}

ensureBuilt()
const nats = await startNats(t)
const nodeArgs = ['--no-demo', '--rate-limits', 'false', '--admin-key', ADMIN_KEY, '--master-key',
  randomBytes(32).toString('hex'), '--nats-servers', nats.url, '--nats-replicas', '1']
const primary = await startPredex(t, nodeArgs)
const standby = await startPredex(t, [...nodeArgs, '--role', 'standby'])

t.test('kill -9 of the primary mid clob-client session: every acknowledged order is on the new primary',
  async (t) => {
    await call(primary, 'POST', '/admin/markets', { question: 'Does the session survive?', tick_size: '0.01',
      min_order_size: '5', fee_rate_bps: 0, neg_risk: false }, { 'EXCHANGE-ADMIN-KEY': ADMIN_KEY })
    const wallet = walletOf(generatePrivateKey())
    const owner = wallet.account!.address
    await call(primary, 'POST', '/compat/faucet', { address: owner })
    const { nonce } = await call(primary, 'GET', `/compat/relay/nonce?address=${owner}`)
    const relay = { owner, action: 'approve', conditionId: zeroHash, amount: maxUint256, nonce: BigInt(nonce),
      deadline: BigInt(Math.floor(Date.now() / 1000) + 300) }
    const signature = await wallet.signTypedData({ account: wallet.account!,
      domain: { name: 'Predex Relay', version: '1', chainId: CHAIN_ID },
      types: { Relay: [{ name: 'owner', type: 'address' }, { name: 'action', type: 'string' },
        { name: 'conditionId', type: 'bytes32' }, { name: 'amount', type: 'uint256' }, { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' }] },
      primaryType: 'Relay', message: relay })
    await call(primary, 'POST', '/compat/relay', { owner, action: 'approve', condition_id: zeroHash,
      amount: relay.amount.toString(), nonce: relay.nonce.toString(), deadline: relay.deadline.toString(), signature })

    const creds = await new ClobClient(`${primary.base}/compat`, CHAIN_ID, wallet).createOrDeriveApiKey() as ApiKeyCreds
    t.type(creds.key, 'string', 'an API key from the primary')
    const before = new ClobClient(`${primary.base}/compat`, CHAIN_ID, wallet, creds)
    const market = (await before.getMarkets()).data.find((m: any) => m.question === 'Does the session survive?')
    const tokenId: string = market.tokens.find((token: any) => token.outcome === 'Yes').token_id

    // The session: post-only buys at 0.01 to 0.40, one at a time, each acknowledgement recorded;
    // the kill lands while they go on.
    const acknowledged = new Map<string, { price: number; size: number }>()
    let failures = 0
    let stop = false
    const session = (async () => {
      for (let i = 0; !stop; i++) {
        const price = (1 + (i % 40)) / 100
        const size = 5 + (i % 7)
        const answer = await before.createAndPostOrder({ tokenID: tokenId, side: Side.BUY, price, size }, undefined,
          OrderType.GTC, false, true).catch((error: unknown) => ({ error: String(error) }))
        if (answer?.success === true && typeof answer.orderID === 'string') acknowledged.set(answer.orderID, { price, size })
        else if (++failures > 0) await sleep(20)
      }
    })()
    while (acknowledged.size < ORDERS_BEFORE_KILL) await sleep(10)
    primary.child.kill('SIGKILL')
    const killedMs = Date.now()
    await primary.exited
    stop = true
    await session
    t.ok(acknowledged.size >= ORDERS_BEFORE_KILL, `${acknowledged.size} orders acknowledged before the kill ` +
      `(${failures} calls failed after it)`)

    while ((await call(standby, 'GET', '/health').catch(() => null))?.role !== 'primary') {
      if (Date.now() - killedMs > TAKEOVER_WAIT_MS) break
      await sleep(20)
    }
    t.comment(`the standby took over ${Date.now() - killedMs} ms after the kill`)
    const after = new ClobClient(`${standby.base}/compat`, CHAIN_ID, wallet, creds)
    const open = await after.getOpenOrders({ asset_id: tokenId })
    t.ok(Array.isArray(open), 'the API key made on the old primary is good on the new one')
    const found = new Map(open.map((order) => [order.id, order]))
    const lost = [...acknowledged.keys()].filter((id) => !found.has(id))
    t.same(lost, [], `all ${acknowledged.size} acknowledged orders are open on the new primary`)
    const changed = [...acknowledged].filter(([id, { price, size }]) => found.has(id) &&
      (Number(found.get(id)!.price) !== price || Number(found.get(id)!.original_size) !== size))
    t.same(changed, [], 'each with its price and size')

    const next = await after.createAndPostOrder({ tokenID: tokenId, side: Side.BUY, price: 0.45, size: 5 }, undefined,
      OrderType.GTC, false, true)
    t.equal(next.success, true, 'the session goes on: a new order on the new primary')
    const cancelled = await after.cancelAll()
    t.equal(cancelled.canceled.length, found.size + 1, 'and cancel-all takes every open order, old and new')
  })
