/**
 * `reverseTrade` (src/engine/trade-reversal.ts): a trade whose settlement failed on chain is
 * moved back exactly, whatever its kind (normal, mint, merge) and fee; what a side already spent
 * on is owed and paid back by the next reversal, in either order; orders that held what went
 * back give way; anything that no match could have made is refused and changes nothing; debts
 * survive a snapshot (version 7). The harness checks every invariant after every command.
 */
import t from 'tap'
import { Harness, addressOf, USDC } from '../../support/harness.js'
import type { ChainEntry } from '../../../src/engine/command.js'
import type { Trade } from '../../../src/engine/event.js'
import { decodeSnapshot, encodeSnapshot, stateHashOf } from '../../../src/engine/snapshot.js'
import { reversalOf } from '../../../src/engine/trade-reversal.js'
import { decodeStampedCommand, encodeStampedCommand } from '../../../src/codec/command-codec.js'

const alice = addressOf(1)
const bob = addressOf(2)
const carol = addressOf(3)
const UNLIMITED = Number.MAX_SAFE_INTEGER
const NO_TX = { transactionHash: '', blockNumber: 0 }

function fact(kind: ChainEntry['kind'], from: string, to: string, tokenId: string, amountMicros: number): ChainEntry {
  return { kind, from, to, tokenId, amountMicros, ...NO_TX }
}

/** A ledger that follows a chain: each wallet minted 100 USDC, approved, and split 20 full sets. */
function onChain(feeRateBps = 0) {
  const h = new Harness()
  const m = h.market({ feeRateBps })
  const entries: ChainEntry[] = []
  for (const who of [alice, bob, carol]) {
    entries.push(fact('usdc', '', who, '', 100 * USDC), fact('usdcAllowance', who, '', '', UNLIMITED),
      fact('tokenApproval', who, '', '', 1), fact('split', who, '', m.yes, 20 * USDC))
  }
  h.apply({ kind: 'chainSync', toBlock: 1, entries })
  return { h, m }
}

/** Every wallet's USDC and token balances less what it owes, the fees and the market's collateral. */
function ledgerOf(h: Harness) {
  const accounts = [...h.engine.accountsByAddress.values()].map((a) => ({
    address: a.address,
    usdc: a.usdcMicros - a.usdcOwedMicros,
    shares: [...a.shares.values()].map((s) => [s.tokenId, s.balanceMicros - s.owedMicros]).sort(),
  }))
  return { accounts, fees: h.engine.feesMicros, collateral: h.engine.markets.map((m) => m.collateralMicros) }
}

function tradesOf(applied: ReturnType<Harness['apply']>): Trade[] {
  return Harness.eventsOf(applied, 'trade')
}

function reverse(h: Harness, trade: Trade) {
  return h.apply(reversalOf(trade))
}

t.test('a normal trade with a fee moves back exactly; the orders stay as they ended', async (t) => {
  const { h, m } = onChain(100)
  const before = ledgerOf(h)
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 10 * USDC,
    feeRateBps: 100 }))
  const taken = h.place(h.order({ maker: bob, tokenId: m.yes, side: 'BUY', priceMicros: 600_000,
    sizeMicros: 10 * USDC, feeRateBps: 100 }))
  const [trade] = tradesOf(taken)
  t.ok(trade !== undefined && trade.feeMicros > 0, 'the taker paid a fee')
  t.notSame(ledgerOf(h), before)
  const reversed = reverse(h, trade!)
  t.strictSame(reversed.result, { ok: true })
  t.strictSame(Harness.eventsOf(reversed, 'tradeReversed'), [{ type: 'tradeReversed', tradeId: trade!.tradeId,
    marketId: m.marketId, takerAddress: bob, makerAddress: alice }])
  t.strictSame(ledgerOf(h), before, 'USDC, shares, fees and collateral as before the match')
  t.strictSame(Harness.eventsOf(reversed, 'orderUpdate'), [], 'no order reopens or changes')
})

t.test('a mint is undone as a merge and a merge as a mint: collateral and supply as before', async (t) => {
  const { h, m } = onChain()
  const before = ledgerOf(h)
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 5 * USDC }))
  const [mint] = tradesOf(h.place(h.order({ maker: bob, tokenId: m.no, side: 'BUY', priceMicros: 600_000,
    sizeMicros: 5 * USDC })))
  t.equal(mint?.matchType, 'mint')
  const merged = h.engine.markets[0]!.mergedMicros
  reverse(h, mint!)
  t.strictSame(ledgerOf(h), before)
  t.equal(h.engine.markets[0]!.mergedMicros, merged + 5 * USDC, 'counted as a merge')

  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 450_000, sizeMicros: 7 * USDC }))
  const [merge] = tradesOf(h.place(h.order({ maker: carol, tokenId: m.no, side: 'SELL', priceMicros: 550_000,
    sizeMicros: 7 * USDC })))
  t.equal(merge?.matchType, 'merge')
  const minted = h.engine.markets[0]!.mintedMicros
  reverse(h, merge!)
  t.strictSame(ledgerOf(h), before)
  t.equal(h.engine.markets[0]!.mintedMicros, minted + 7 * USDC, 'counted as a mint')
})

t.test('shares sold on before the reversal are owed; the next reversal pays them back, in either order', async (t) => {
  for (const order of ['first then second', 'second then first']) {
    const { h, m } = onChain()
    const before = ledgerOf(h)
    // Bob buys 30 Yes from alice (he had 20), then sells all 50 to carol.
    h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 20 * USDC }))
    const [first] = tradesOf(h.place(h.order({ maker: bob, tokenId: m.yes, side: 'BUY', priceMicros: 500_000,
      sizeMicros: 20 * USDC })))
    h.place(h.order({ maker: carol, tokenId: m.yes, side: 'BUY', priceMicros: 700_000, sizeMicros: 40 * USDC }))
    const [second] = tradesOf(h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 700_000,
      sizeMicros: 40 * USDC })))
    const reversals = order === 'first then second' ? [first!, second!] : [second!, first!]
    reverse(h, reversals[0]!)
    const bobAccount = h.engine.accountsByAddress.get(bob)!
    if (order === 'first then second') {
      t.equal(bobAccount.sharesOf(0, m.yes).owedMicros, 20 * USDC, `${order}: bob owes the 20 Yes he sold on`)
      t.equal(bobAccount.sharesOf(0, m.yes).balanceMicros, 0)
    } else {
      t.equal(bobAccount.usdcOwedMicros, 0, `${order}: bob gives back carol's 28 from his 98`)
    }
    reverse(h, reversals[1]!)
    t.strictSame(ledgerOf(h), before, `${order}: everyone as before both trades`)
    t.equal(bobAccount.sharesOf(0, m.yes).owedMicros, 0, `${order}: nothing owed`)
    t.equal(bobAccount.usdcOwedMicros, 0)
  }
})

t.test('orders that held what went back give way, newest first', async (t) => {
  const { h, m } = onChain()
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 20 * USDC }))
  const [trade] = tradesOf(h.place(h.order({ maker: bob, tokenId: m.yes, side: 'BUY', priceMicros: 500_000,
    sizeMicros: 20 * USDC })))
  // Alice got 10 USDC (90): her buys hold 50 and 40; the reversal leaves her 80, so the newest goes.
  const buyNo = (priceMicros: number, sizeMicros: number) =>
    h.place(h.order({ maker: alice, tokenId: m.no, side: 'BUY', priceMicros, sizeMicros }))
  const older = buyNo(250_000, 200 * USDC)
  const newer = buyNo(400_000, 100 * USDC)
  const reversed = reverse(h, trade!)
  const idOf = (applied: ReturnType<Harness['apply']>) => Harness.eventsOf(applied, 'orderAccepted')[0]!.orderId
  t.strictSame(Harness.eventsOf(reversed, 'orderUpdate').map((u) => [u.orderId, u.reason]), [[idOf(newer), 'funds']])
  t.equal(h.engine.accountsByAddress.get(alice)?.usdcHeldMicros, 50 * USDC, `${idOf(older)} still holds its 50`)
})

t.test('what no match could have made is refused, and changes nothing', async (t) => {
  const { h, m } = onChain()
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 10 * USDC }))
  const [trade] = tradesOf(h.place(h.order({ maker: bob, tokenId: m.yes, side: 'BUY', priceMicros: 500_000,
    sizeMicros: 10 * USDC })))
  const good = reversalOf(trade!)
  const cases: [string, Record<string, unknown>][] = [
    ['tradeId', { tradeId: '' }],
    ['tokenId', { tokenId: 'not-listed' }],
    ['makerTokenId', { makerTokenId: 'not-listed' }],
    ['sizeMicros', { sizeMicros: 10 * USDC + 1 }],
    ['sizeMicros', { sizeMicros: 0 }],
    ['takerAddress', { takerAddress: addressOf(99) }],
    ['makerAddress', { makerAddress: bob }],
    ['side', { side: 'buy' }],
    ['priceMicros', { priceMicros: 1_000_000 }],
    ['makerPriceMicros', { makerPriceMicros: 500_001 }],
    ['makerSide', { makerSide: 'BUY' }],
    ['makerSide', { makerPriceMicros: 400_000 }],
    ['feeMicros', { feeMicros: 1 }],
    ['feeMicros', { feeMicros: -1 }],
  ]
  for (const [field, change] of cases) {
    const before = ledgerOf(h)
    const applied = h.apply({ ...good, ...change } as typeof good)
    t.match(applied.result, { ok: false, code: 'TRADE_REVERSAL_INVALID', context: { field } },
      `${JSON.stringify(change)}: ${field}`)
    t.strictSame(ledgerOf(h), before, 'nothing changed')
    t.notOk(h.engine.changed, 'nothing journaled')
  }
  const builtin = new Harness()
  builtin.market()
  t.match(builtin.apply(good).result, { ok: false, code: 'TRADE_REVERSAL_INVALID', context: { field: 'chain' } },
    'on the builtin network a match is final')
})

t.test('debts and a collateral below 0 survive a snapshot (version 7); the command round-trips', async (t) => {
  const { h, m } = onChain()
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 450_000, sizeMicros: 20 * USDC }))
  const [merge] = tradesOf(h.place(h.order({ maker: carol, tokenId: m.no, side: 'SELL', priceMicros: 550_000,
    sizeMicros: 20 * USDC })))
  // On chain every wallet still holds its 20 full sets and merges them: the chain's collateral
  // is 0, the ledger's (which burnt 20 in the match) below 0 until the reversal.
  h.apply({ kind: 'chainSync', toBlock: 2, entries: [fact('merge', alice, '', m.yes, 20 * USDC),
    fact('merge', carol, '', m.no, 20 * USDC), fact('merge', bob, '', m.no, 20 * USDC)] })
  t.ok(h.engine.markets[0]!.collateralMicros < 0, 'collateral below 0 for now')
  const bytes = encodeSnapshot(h.engine)
  t.equal(bytes[8], 7)
  const loaded = decodeSnapshot(bytes)
  t.equal(stateHashOf(loaded), stateHashOf(h.engine))
  t.equal(loaded.accountsByAddress.get(alice)?.sharesOf(0, m.yes).owedMicros, 20 * USDC)
  t.equal(loaded.markets[0]!.collateralMicros, h.engine.markets[0]!.collateralMicros)
  const command = { ...reversalOf(merge!), seq: 9, timeMs: 1 }
  t.strictSame(decodeStampedCommand(encodeStampedCommand(command)), command)
  reverse(h, merge!)
  t.equal(h.engine.markets[0]!.collateralMicros, 0, 'the chain\'s collateral')
  t.equal(encodeSnapshot(h.engine)[8], 6, 'no debt left: version 6 again')
})
