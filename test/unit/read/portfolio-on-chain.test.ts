/**
 * The portfolio history on a real chain, on a real engine and read model in process (fakeWorld)
 * that follow a chain (chainSync):
 * - a trade whose settlement failed is moved back in the history too: each side gets a
 *   `reversal` milestone at the reversal's command, the opposite of its buy or sell at the trade's
 *   price (the taker's fee included), so the history's USDC balance and positions end where the
 *   engine's ledger is (balance less debts), and the trade's volume is no longer the wallet's;
 * - each milestone names the chain's transaction: a ledger milestone its fact's, a trade's its
 *   settlement's ('' and block 0 while it has none, as a FAILED trade), not the journal's.
 */
import t from 'tap'
import { userRoutes } from '../../../src/api/rest/routes/users.js'
import type { RestRequest } from '../../../src/api/rest/route.js'
import type { Milestone } from '../../../src/api/shapes/user.js'
import { decimalOfMicros } from '../../../src/api/wire.js'
import type { ChainEntry, OrderInput, Side } from '../../../src/engine/command.js'
import { reversalOf } from '../../../src/engine/trade-reversal.js'
import { newMarketIds } from '../../../src/service/market-data/market-ids.js'
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

/** Settlement as the faces read it: trade id -> its transaction (none: not in a block). */
const settled = new Map<string, { transactionHash: string; blockNumber: number }>()
const settlement = {
  of: (tradeId: string, matchedMs: number) => {
    const found = settled.get(tradeId)
    return { status: found === undefined ? 'FAILED' : 'CONFIRMED', transactionHash: found?.transactionHash ?? null,
      blockNumber: found?.blockNumber ?? null, updatedMs: matchedMs }
  },
}

async function historyOf(address: string): Promise<readonly Milestone[]> {
  const route = userRoutes.find((r) => r.path === '/users/:address/portfolio-history')!
  const request: RestRequest = { method: 'GET', path: '', params: [address], query: new URLSearchParams({ limit: '100' }),
    headers: () => undefined, body: new Uint8Array(0), compat: false, remoteAddress: '10.0.0.1' }
  const context = { ...world.context, settlement } as unknown as typeof world.context
  const { body } = await route.handler(request, null, context)
  if (body === null) throw new Error('the portfolio history is not sent as JSON made beforehand')
  return body.milestones
}

const MINT_TX = { transactionHash: `0x${'11'.repeat(32)}`, blockNumber: 5 }
const SPLIT_TX = { transactionHash: `0x${'22'.repeat(32)}`, blockNumber: 6 }

t.test('each side gets a reversal milestone; the history ends at the ledger', async (t) => {
  await run({ kind: 'createMarket', market: { marketId: ids.marketId, conditionId: ids.conditionId, question: 'Q?',
    slug: 'q', description: '', yesTokenId: yes, noTokenId: ids.noTokenId, tickSizeMicros: 10_000,
    minOrderSizeMicros: USDC, feeRateBps: 100, negRisk: false, endDateMs: 0, status: 'Active' } })
  const entries: ChainEntry[] = []
  for (const who of [ALICE, BOB]) {
    entries.push({ ...fact('usdc', who, '', 100 * USDC), from: '', ...MINT_TX },
      fact('usdcAllowance', who, '', 10 ** 15), fact('tokenApproval', who, '', 1))
  }
  entries.push({ ...fact('split', ALICE, yes, 40 * USDC), ...SPLIT_TX })
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
    const last = milestones.at(-1)!
    t.match(last, { kind: 'reversal', token_id: yes, shares: '30', price: '0.6' }, `${address}: a reversal milestone`)
    const account = world.engine.accountsByAddress.get(address)!
    t.equal(last.usdc_balance, decimalOfMicros(account.usdcMicros - account.usdcOwedMicros),
      `${address}: the history's USDC is the ledger's`)
    const shares = account.sharesOf(0, yes)
    t.equal(last.positions[yes] ?? '0', decimalOfMicros(shares.balanceMicros - shares.owedMicros),
      `${address}: its Yes position is the ledger's`)
  }
  const bobLast = (await historyOf(BOB)).at(-1)!
  t.equal(bobLast.usdc_delta, decimalOfMicros(18 * USDC + trade.feeMicros), 'bob gets back what he paid, fee included')
  t.equal(world.context.read.portfolios.of(BOB)!.volumeMicros, volumeBefore - 18 * USDC, 'the volume is no longer his')
})

t.test('each milestone names the chain\'s transaction: its fact\'s, or its trade\'s settlement', async (t) => {
  await run({ kind: 'placeOrder', order: order(ALICE, 'SELL', 500_000, 4 * USDC, 3) })
  const taken = await run({ kind: 'placeOrder', order: order(BOB, 'BUY', 500_000, 4 * USDC, 4) })
  const trade = taken.events.find((e) => e.type === 'trade')
  if (trade?.type !== 'trade') throw new Error('no trade')
  settled.set(trade.tradeId, { transactionHash: `0x${'33'.repeat(32)}`, blockNumber: 9 })
  const alice = await historyOf(ALICE)
  const txOf = (m: any) => [m.kind, m.transaction_hash, m.block_number]
  t.strictSame(alice.map(txOf), [
    ['deposit', MINT_TX.transactionHash, 5],
    ['mint', SPLIT_TX.transactionHash, 6],
    ['sell', '', 0],
    ['reversal', '', 0],
    ['sell', `0x${'33'.repeat(32)}`, 9],
  ], 'the faucet\'s mint, the split, the FAILED trade and its reversal (no transaction), the settled trade')
})
