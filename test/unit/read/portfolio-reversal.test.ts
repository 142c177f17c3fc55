/**
 * A trade whose settlement failed is moved back in the portfolio history too: each side gets a
 * `reversal` milestone at the reversal's command, the opposite of its buy or sell at the trade's
 * price (the taker's fee included), so the history's USDC balance and positions end where the
 * engine's ledger is (balance less debts), and the trade's volume is no longer the wallet's. On a
 * real engine and read model in process (fakeWorld) that follow a chain (chainSync).
 */
import t from 'tap'
import { userRoutes } from '../../../src/api/rest/routes/users.js'
import type { RestRequest } from '../../../src/api/rest/route.js'
import { decimalOfMicros } from '../../../src/api/wire.js'
import type { ChainEntry, OrderInput, Side } from '../../../src/engine/command.js'
import { reversalOf } from '../../../src/engine/trade-reversal.js'
import { newMarketIds } from '../../../src/service/market-ids.js'
import { fakeWorld, USDC } from '../service/fake-context.js'

const ALICE = '0x' + 'a'.repeat(40)
const BOB = '0x' + 'b'.repeat(40)
const world = fakeWorld()
const ids = newMarketIds()
const yes = ids.yesTokenId

async function run(command: Parameters<typeof world.context.host.submit>[0]) {
  const outcome = await world.context.host.submit(command)
  if (!outcome.result.ok) throw new Error(`refused: ${JSON.stringify(outcome.result)}`)
  return outcome
}

function order(maker: string, side: Side, priceMicros: number, sharesMicros: number, n: number): OrderInput {
  const usdc = (priceMicros * sharesMicros) / USDC
  return { orderId: `0x${n.toString(16).padStart(64, '0')}`, owner: `key-${maker}`, maker, signer: maker, tokenId: yes,
    side, makerAmountMicros: side === 'BUY' ? usdc : sharesMicros, takerAmountMicros: side === 'BUY' ? sharesMicros : usdc,
    expirationSec: 0, feeRateBps: 100, timeInForce: 'GTC', postOnly: false, clientOrderId: '' }
}

function fact(kind: ChainEntry['kind'], from: string, tokenId: string, amountMicros: number): ChainEntry {
  return { kind, from, to: kind === 'usdc' ? from : '', tokenId, amountMicros, transactionHash: '', blockNumber: 0 }
}

async function historyOf(address: string): Promise<any[]> {
  const route = userRoutes.find((r) => r.path === '/users/:address/portfolio-history')!
  const request: RestRequest = { method: 'GET', path: '', params: [address], query: new URLSearchParams({ limit: '100' }),
    headers: () => undefined, body: new Uint8Array(0), compat: false, remoteAddress: '10.0.0.1' }
  return ((await route.handler(request, null, world.context)).body as { milestones: any[] }).milestones
}

t.test('each side gets a reversal milestone; the history ends at the ledger', async (t) => {
  await run({ kind: 'createMarket', market: { marketId: ids.marketId, conditionId: ids.conditionId, question: 'Q?',
    slug: 'q', description: '', yesTokenId: yes, noTokenId: ids.noTokenId, tickSizeMicros: 10_000,
    minOrderSizeMicros: USDC, feeRateBps: 100, negRisk: false, endDateMs: 0, status: 'Active' } })
  const entries: ChainEntry[] = []
  for (const who of [ALICE, BOB]) {
    entries.push({ ...fact('usdc', who, '', 100 * USDC), from: '' }, fact('usdcAllowance', who, '', 10 ** 15),
      fact('tokenApproval', who, '', 1))
  }
  entries.push(fact('split', ALICE, yes, 40 * USDC))
  await run({ kind: 'chainSync', toBlock: 1, entries })
  await run({ kind: 'placeOrder', order: order(ALICE, 'SELL', 600_000, 30 * USDC, 1) })
  const taken = await run({ kind: 'placeOrder', order: order(BOB, 'BUY', 600_000, 30 * USDC, 2) })
  const trade = taken.events.find((e) => e.type === 'trade')
  if (trade?.type !== 'trade') throw new Error('no trade')
  t.ok(trade.feeMicros > 0, 'bob paid a fee')
  const volumeBefore = world.context.read.portfolios.of(BOB)!.volumeMicros
  await run(reversalOf(trade))

  for (const address of [ALICE, BOB]) {
    const milestones = await historyOf(address)
    const last = milestones.at(-1)
    t.match(last, { kind: 'reversal', token_id: yes, shares: '30', price: '0.6' }, `${address}: a reversal milestone`)
    const account = world.engine.accountsByAddress.get(address)!
    t.equal(last.usdc_balance, decimalOfMicros(account.usdcMicros - account.usdcOwedMicros),
      `${address}: the history's USDC is the ledger's`)
    const shares = account.sharesOf(0, yes)
    t.equal(last.positions[yes] ?? '0', decimalOfMicros(shares.balanceMicros - shares.owedMicros),
      `${address}: its Yes position is the ledger's`)
  }
  const bobLast = (await historyOf(BOB)).at(-1)
  t.equal(bobLast.usdc_delta, decimalOfMicros(18 * USDC + trade.feeMicros), 'bob gets back what he paid, fee included')
  t.equal(world.context.read.portfolios.of(BOB)!.volumeMicros, volumeBefore - 18 * USDC, 'the volume is no longer his')
})
