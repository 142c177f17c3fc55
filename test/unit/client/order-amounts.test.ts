/**
 * The SDK's order amounts against the reference's worked examples (section 4.5, computed with
 * the installed clob-client), and against clob-client's own helpers on seeded random orders.
 */
import t from 'tap'
import { limitOrderAmounts, marketOrderAmounts, ROUNDING, type TickSize } from '../../../src/client/order-amounts.js'
import { getMarketOrderRawAmounts, getOrderRawAmounts } from '@polymarket/clob-client/dist/order-builder/helpers.js'
import { Side } from '@polymarket/clob-client'
import { parseUnits } from 'viem'

t.test('the reference worked examples', (t) => {
  const limits: [string, number, number, TickSize, string, string][] = [
    ['BUY', 10.123, 0.55, '0.01', '5566000', '10120000'],
    ['SELL', 10.123, 0.55, '0.01', '10120000', '5566000'],
    ['BUY', 100, 0.29, '0.01', '29000000', '100000000'],
    ['BUY', 10, 0.555, '0.01', '5600000', '10000000'],
    ['BUY', 33.333, 0.333, '0.001', '11098890', '33330000'],
    ['SELL', 7.777, 0.123, '0.001', '7770000', '955710'],
    ['BUY', 5, 0.5, '0.1', '2500000', '5000000'],
    ['BUY', 12.345, 0.1234, '0.0001', '1522756', '12340000'],
  ]
  for (const [side, size, price, tick, maker, taker] of limits) {
    t.same(limitOrderAmounts(side as 'BUY' | 'SELL', size, price, tick), { makerAmount: maker, takerAmount: taker }, `limit ${side} ${size} @ ${price}`)
  }
  const markets: [string, number, number, TickSize, string, string][] = [
    ['BUY', 50, 0.53, '0.01', '50000000', '94339600'],
    ['BUY', 10, 0.57, '0.01', '10000000', '17543800'],
    ['BUY', 100, 0.3333, '0.001', '100000000', '300300300'],
    ['SELL', 20.129, 0.45, '0.01', '20120000', '9054000'],
    ['SELL', 10, 0.555, '0.01', '10000000', '5500000'],
  ]
  for (const [side, amount, price, tick, maker, taker] of markets) {
    t.same(marketOrderAmounts(side as 'BUY' | 'SELL', amount, price, tick), { makerAmount: maker, takerAmount: taker }, `market ${side} ${amount} @ ${price}`)
  }
  t.throws(() => limitOrderAmounts('BUY', 10, 0.005, '0.01'), /invalid price \(0.005\), min: 0.01 - max: 0.99/)
  t.throws(() => marketOrderAmounts('SELL', 10, 0.995, '0.01'), /invalid price/)
  t.end()
})

t.test('the same amounts as clob-client on seeded random orders', (t) => {
  let a = 20261123
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = a
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
  t.comment('seed 20261123')
  const ticks = Object.keys(ROUNDING) as TickSize[]
  let differences = 0
  let compared = 0
  for (let i = 0; i < 5_000; i++) {
    const tick = ticks[Math.floor(next() * 4)]!
    const side = next() < 0.5 ? 'BUY' : 'SELL'
    const decimals = 1 + Math.floor(next() * 4)
    const tickValue = Number(tick)
    const price = Number((tickValue + next() * (1 - 2 * tickValue)).toFixed(decimals))
    if (price < tickValue || price > 1 - tickValue) continue
    const size = Number((1 + next() * 500).toFixed(Math.floor(next() * 4)))
    const config = ROUNDING[tick]
    const theirs = getOrderRawAmounts(side === 'BUY' ? Side.BUY : Side.SELL, size, price, config)
    const ours = limitOrderAmounts(side, size, price, tick)
    compared++
    const same = parseUnits(theirs.rawMakerAmt.toString(), 6).toString() === ours.makerAmount &&
      parseUnits(theirs.rawTakerAmt.toString(), 6).toString() === ours.takerAmount
    if (!same && differences++ < 5) t.comment(`limit ${side} ${size} @ ${price} (${tick}): ours ${JSON.stringify(ours)}, clob-client ${theirs.rawMakerAmt}/${theirs.rawTakerAmt}`)
    const m = getMarketOrderRawAmounts(side === 'BUY' ? Side.BUY : Side.SELL, size, price, config)
    const mo = marketOrderAmounts(side, size, price, tick)
    compared++
    const sameMarket = parseUnits(m.rawMakerAmt.toString(), 6).toString() === mo.makerAmount &&
      parseUnits(m.rawTakerAmt.toString(), 6).toString() === mo.takerAmount
    if (!sameMarket && differences++ < 5) t.comment(`market ${side} ${size} @ ${price} (${tick}): ours ${JSON.stringify(mo)}, clob-client ${m.rawMakerAmt}/${m.rawTakerAmt}`)
  }
  t.comment(`${compared} orders compared, ${differences} differ`)
  t.equal(differences, 0, 'identical amounts')
  t.end()
})
