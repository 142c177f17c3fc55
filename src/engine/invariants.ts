/**
 * The invariants of docs/engine.md, checked from scratch against the state: conservation of
 * USDC and shares, non-negative balances, holds equal to what open orders reserve, sound
 * books, and the index of live orders by client order id holding exactly the resting ones. The
 * simulation runs this after every command; production can run it at checkpoints. It recomputes
 * everything independently of the engine's running totals, and throws an AssertionError naming
 * the first violation.
 */
import type { Account } from './account.js'
import { assert } from '../stdx/assert.js'
import type { Engine } from './engine.js'
import { MICROS_PER_LOT, PIPS_PER_UNIT } from './limits.js'
import type { Market } from './market.js'
import { NO_ROW, type OrderRow, type OrderTable } from './order-table.js'

export function checkInvariants(engine: Engine): void {
  const usdcHeld = new Map<Account, number>()
  const sharesHeld = new Map<Account, Map<number, number>>()
  let openOrders = 0
  let withClientOrderId = 0
  let inGroups = 0
  const o = engine.orderTable
  for (const market of engine.markets) {
    openOrders += checkBook(o, market, (order) => {
      addHold(o, order, usdcHeld, sharesHeld)
      if (o.group[order] !== null) inGroups++
      if (o.clientOrderId[order] !== '') {
        withClientOrderId++
        checkClientOrderId(engine, order)
      }
    })
  }
  assert(openOrders === engine.openOrderCount, () => `open order count ${engine.openOrderCount} != ${openOrders}`)
  checkGroups(engine, inGroups)
  // Between commands no taker is in flight: the rows in use are exactly the resting orders.
  assert(o.inUse === openOrders, () => `order rows in use ${o.inUse} != resting orders ${openOrders}`)
  assert(engine.orders.live === openOrders, () => `live orders ${engine.orders.live} != resting ${openOrders}`)
  // The order index holds the live orders and at most the bound of ended ones, nothing else.
  assert(engine.orders.ended <= engine.orders.endedRetained,
    () => `ended orders kept ${engine.orders.ended} > bound ${engine.orders.endedRetained}`)
  assert(engine.orders.size === engine.orders.live + engine.orders.ended,
    () => `order index ${engine.orders.size} != live ${engine.orders.live} + ended ${engine.orders.ended}`)
  // Each resting order with a client id is found by it (above), and the index holds no other entry.
  assert(engine.orders.liveWithClientOrderId === withClientOrderId,
    () => `client order id index ${engine.orders.liveWithClientOrderId} != live orders with one ${withClientOrderId}`)
  const supply = new Map<number, number>()
  let usdcTotal = 0
  for (const account of engine.accounts) {
    checkAccount(o, account, usdcHeld.get(account) ?? 0, sharesHeld.get(account), engine.chainBlock > 0)
    // What an account owes (account.ts) is the part of its value below 0.
    usdcTotal += account.usdcMicros - account.usdcOwedMicros
    for (const shares of account.shares.values()) {
      supply.set(shares.tokenIndex, (supply.get(shares.tokenIndex) ?? 0) + shares.balanceMicros - shares.owedMicros)
    }
  }
  let collateral = 0
  for (const market of engine.markets) {
    checkConservation(market, supply.get(market.index * 2) ?? 0, supply.get(market.index * 2 + 1) ?? 0,
      engine.chainBlock > 0)
    collateral += market.collateralMicros
  }
  assert(engine.feesMicros >= 0, 'fees are not negative')
  assert(usdcTotal + collateral + engine.feesMicros === engine.creditedMicros,
    () => `USDC conservation: balances ${usdcTotal} + collateral ${collateral} + fees ${engine.feesMicros}`
      + ` != credited ${engine.creditedMicros}`)
}

function checkClientOrderId(engine: Engine, order: OrderRow): void {
  const o = engine.orderTable
  assert(engine.orders.liveByClientOrderId(o.owner[order]!, o.clientOrderId[order]!) === order,
    () => `order ${o.orderId[order]} is found by its owner's client order id`)
}

function addHold(o: OrderTable, order: OrderRow, usdcHeld: Map<Account, number>,
  sharesHeld: Map<Account, Map<number, number>>): void {
  const account = o.account[order]!
  const orderShares = o.shares[order]!
  assert(orderShares.joined && account.shares.get(orderShares.tokenIndex) === orderShares,
    () => `order ${o.orderId[order]}: its token balance is its account's`)
  if (o.isBuy[order] === 1) {
    usdcHeld.set(account, (usdcHeld.get(account) ?? 0) + o.pips[order]! * o.lots[order]!)
    return
  }
  let held = sharesHeld.get(account)
  if (held === undefined) sharesHeld.set(account, (held = new Map()))
  const tokenIndex = o.shares[order]!.tokenIndex
  held.set(tokenIndex, (held.get(tokenIndex) ?? 0) + o.lots[order]! * MICROS_PER_LOT)
}

function checkAccount(o: OrderTable, account: Account, usdcHeld: number,
  sharesHeld: Map<number, number> | undefined, onChain: boolean): void {
  const where = (): string => `account ${account.address}`
  assert(account.usdcMicros >= 0 && account.usdcHeldMicros >= 0 && account.usdcAllowanceMicros >= 0,
    () => `${where()}: USDC amounts are not negative`)
  assert(account.gasMicros >= 0, () => `${where()}: gas is not negative`)
  // Debts arise only from a chain's facts and failed settlements, and credits pay them back first.
  assert(account.usdcOwedMicros >= 0 && (account.usdcOwedMicros === 0 || account.usdcMicros === 0),
    () => `${where()}: USDC owed ${account.usdcOwedMicros} only with no balance`)
  assert(onChain || account.usdcOwedMicros === 0, () => `${where()}: nothing owed on the builtin network`)
  assert(account.usdcHeldMicros === usdcHeld,
    () => `${where()}: USDC held ${account.usdcHeldMicros} != orders ${usdcHeld}`)
  assert(usdcHeld <= Math.min(account.usdcMicros, account.usdcAllowanceMicros),
    () => `${where()}: USDC held within balance and allowance`)
  // On a real chain the two are separate approvals of separate contracts (chain-sync.ts).
  assert(onChain || account.sharesApproved === account.usdcAllowanceMicros > 0,
    () => `${where()}: share approval follows the allowance`)
  for (const shares of account.shares.values()) {
    assert(shares.joined && shares.account === account,
      () => `${where()}: ${shares.tokenId} balance is joined to its account`)
    const held = sharesHeld?.get(shares.tokenIndex) ?? 0
    assert(shares.balanceMicros >= 0, () => `${where()}: ${shares.tokenId} balance is not negative`)
    assert(shares.owedMicros >= 0 && (shares.owedMicros === 0 || shares.balanceMicros === 0) &&
      (onChain || shares.owedMicros === 0), () => `${where()}: ${shares.tokenId} owed ${shares.owedMicros}`)
    assert(shares.heldMicros === held,
      () => `${where()}: ${shares.tokenId} held ${shares.heldMicros} != orders ${held}`)
    assert(held <= shares.balanceMicros, () => `${where()}: ${shares.tokenId} held within balance`)
  }
  for (let order = account.openHead; order !== NO_ROW; order = o.accountNext[order]!) {
    assert(o.live[order] === 1 && o.account[order] === account, () => `${where()}: open list holds its live orders`)
    const next = o.accountNext[order]!
    assert(next === NO_ROW || o.orderNumber[next]! > o.orderNumber[order]!,
      () => `${where()}: open list in acceptance order`)
  }
}

/** Checks a market's book; calls `onOrder` for each resting order and returns how many. */
function checkBook(o: OrderTable, market: Market, onOrder: (order: OrderRow) => void): number {
  const book = market.book
  const bid = book.bestBid()
  const ask = book.bestAsk()
  assert(bid === null || ask === null || bid.pips < ask.pips, () => `market ${market.marketId}: best bid < best ask`)
  if (market.status === 'Closed' || market.status === 'Resolving' || market.status === 'Resolved') {
    assert(bid === null && ask === null, () => `market ${market.marketId}: no resting orders once trading stopped`)
  }
  let count = 0
  const levelsSeen = [0, 0] // asks, bids
  for (const level of book.levels()) {
    levelsSeen[level.isBid ? 1 : 0]!++
    let lots = 0
    let noLots = 0
    let previousNumber = 0
    for (let order = level.head; order !== NO_ROW; order = o.next[order]!) {
      const id = (): string => o.orderId[order]!
      assert(o.live[order] === 1 && o.level[order] === level && o.lots[order]! > 0,
        () => `order ${id()} rests with lots`)
      assert(o.yesPips(order) === level.pips && level.pips % market.tickPips === 0, () => `order ${id()} on grid`)
      assert(o.isBid(order) === level.isBid, () => `order ${id()} on its side`)
      assert(o.orderNumber[order]! > previousNumber, () => `level ${level.pips} is in time order`)
      assert(level.pips > 0 && level.pips < PIPS_PER_UNIT, 'level price inside (0, 1)')
      previousNumber = o.orderNumber[order]!
      lots += o.lots[order]!
      if (o.isNo[order] === 1) noLots += o.lots[order]!
      onOrder(order)
      count++
    }
    assert(level.lots === lots && level.noLots === noLots, () => `level ${level.pips}: totals equal the sum of orders`)
  }
  // A count too high shows here; one too low cuts the walk short, and the open-order totals miss its orders.
  assert(levelsSeen[1] === book.levelCount(true) && levelsSeen[0] === book.levelCount(false),
    () => `market ${market.marketId}: level counts ${book.levelCount(true)}/${book.levelCount(false)} != `
      + `${levelsSeen[1]}/${levelsSeen[0]}`)
  return count
}

/**
 * Supplies are balances less debts. On a real chain they, and the collateral, may be below 0 for
 * a while: the ledger is the chain plus the trades not settled yet, and a merge matched here may
 * burn shares that wallets then merge or redeem on chain themselves before its settlement fails.
 */
function checkConservation(market: Market, yesSupply: number, noSupply: number, onChain: boolean): void {
  const where = (): string => `market ${market.marketId}`
  const outstanding = market.mintedMicros - market.mergedMicros
  assert(yesSupply === outstanding - market.redeemedYesMicros, () => `${where()}: Yes supply ${yesSupply}`)
  assert(noSupply === outstanding - market.redeemedNoMicros, () => `${where()}: No supply ${noSupply}`)
  const winning = market.winningOutcome === null ? outstanding
    : market.winningOutcome === 'Yes' ? yesSupply : noSupply
  assert(market.collateralMicros === winning,
    () => `${where()}: collateral ${market.collateralMicros} backs the shares`)
  assert(onChain || market.collateralMicros >= 0, () => `${where()}: collateral is not negative`)
}

/** Each group's list holds exactly the resting orders that name it, and nothing else. */
function checkGroups(engine: Engine, inGroups: number): void {
  const o = engine.orderTable
  let listed = 0
  for (const group of engine.orderGroups.values()) {
    let count = 0
    for (let row = group.head; row !== NO_ROW; row = o.groupNext[row]!) {
      assert(o.live[row] === 1 && o.group[row] === group, () => `group ${group.groupId} lists only its resting orders`)
      count++
    }
    assert(count === group.restingCount, () => `group ${group.groupId} counts ${group.restingCount} != ${count}`)
    listed += count
  }
  assert(listed === inGroups, () => `orders in groups ${inGroups} != listed ${listed}`)
}
