/**
 * Learning from what the engine did: which orders rest, which ids were accepted, market statuses,
 * balances (exact, from the balance events), order groups.
 * Part of the simulation's workload (../workload.ts): functions over one WorkloadState.
 */
import type { Command, MarketStatus, OrderInput, TimeInForce } from '../../../src/engine/command.js'
import type { EngineEvent, OrderGroupChanged, OrderStatus } from '../../../src/engine/event.js'
import type { CommandResult, PlaceResult } from '../../../src/engine/result.js'
import { MICROS_PER_PIP, PIPS_PER_UNIT } from '../../../src/engine/limits.js'
import { type MarketView, RECENT_MAX, type Stamp, WorkloadState, onGrid, ordersOf, tokenPips } from './state.js'

export function rememberSent(w: WorkloadState, command: Command, result: CommandResult): void {
  const orders = ordersOf(command)
  let results: readonly PlaceResult[] = []
  if (command.kind === 'placeOrder') results = [result as PlaceResult]
  else if ('results' in result) results = result.results
  else if ('placed' in result) results = [result.placed]
  else if ('newQuotes' in result) results = result.newQuotes
  orders.forEach((input, i) => {
    w.sent.push({ input, accepted: results[i]?.ok === true })
    if (w.sent.length > RECENT_MAX) w.sent.shift()
  })
}

export function learn(w: WorkloadState, e: EngineEvent): void {
  switch (e.type) {
    case 'orderAccepted':
      return learnAccepted(w, e.orderId, e.marketId, e.priceMicros, e.timeInForce, e.originalSizeMicros)
    case 'orderUpdate':
      return learnUpdate(w, e.orderId, e.maker, e.status, e.remainingMicros)
    case 'trade':
      return learnTrade(w, e.marketId, e.tokenId, e.priceMicros)
    case 'balance':
      return learnBalance(w, e.address, e.asset, e.balanceMicros, e.heldMicros)
    case 'allowance': {
      const a = w.accounts.find((x) => x.address === e.address)
      if (a !== undefined) {
        a.allowance = e.usdcAllowanceMicros
        a.approved = e.sharesApproved
      }
      return
    }
    case 'marketCreated':
      return learnMarket(w, e.market.marketId, e.market.status, e.market.tickSizeMicros, e.market.feeRateBps)
    case 'marketUpdated':
      return learnMarket(w, e.marketId, e.status, e.tickSizeMicros, e.feeRateBps)
    case 'apiKey':
      if (e.action === 'registered') w.apiKeys.push({ apiKey: e.apiKey, address: e.address, nonce: e.nonce })
      else w.apiKeys.splice(w.apiKeys.findIndex((k) => k.apiKey === e.apiKey), 1)
      return
    case 'orderGroup':
      return learnGroup(w, e)
    default:
      return
  }
}

export function learnAccepted(
  w: WorkloadState,
  orderId: string,
  marketId: string,
  priceMicros: number,
  tif: TimeInForce,
  originalSizeMicros: number,
): void {
  if (tif === 'FOK' || tif === 'FAK') return
  const input = findSentInput(w, orderId)
  const token = input === undefined ? undefined : w.tokens.get(input.tokenId)
  if (input === undefined || token === undefined) return
  const pips = priceMicros / MICROS_PER_PIP
  w.live.set(orderId, {
    input,
    marketId,
    bid: (input.side === 'BUY') === (token.outcome === 'Yes'),
    yesPips: token.outcome === 'Yes' ? pips : PIPS_PER_UNIT - pips,
    number: w.nextOrderNumber++,
    remainingMicros: originalSizeMicros,
  })
}

/** The input of an order being accepted: it is in the command being observed. */
export function findSentInput(w: WorkloadState, orderId: string): OrderInput | undefined {
  return w.pendingInput.get(orderId)
}

export function learnUpdate(w: WorkloadState, orderId: string, maker: string, status: OrderStatus, remainingMicros: number): void {
  if (status === 'LIVE') {
    const o = w.live.get(orderId)
    if (o !== undefined) o.remainingMicros = remainingMicros
    return
  }
  w.live.delete(orderId)
  w.ended.push({ id: orderId, maker })
  if (w.ended.length > RECENT_MAX) w.ended.shift()
}

/** A group's change; a triggered group is mostly reset a little later, so that it trades again. */
export function learnGroup(w: WorkloadState, e: OrderGroupChanged): void {
  let ofKey = w.groups.get(e.owner)
  if (e.action === 'deleted') {
    ofKey?.delete(e.groupId)
    return
  }
  if (ofKey === undefined) {
    ofKey = new Map()
    w.groups.set(e.owner, ofKey)
  }
  ofKey.set(e.groupId, { triggered: e.triggered })
  if (e.action !== 'triggered' || !w.rng.chance(0.8)) return
  const address = w.accounts.find((x) => x.apiKey === e.owner)?.address ?? e.owner
  const reset = (t: Stamp): Command => ({ kind: 'orderGroup', ...t, action: 'reset', address, owner: e.owner,
    groupId: e.groupId, contractsLimitMicros: 0, notionalLimitMicros: 0, windowMs: 0, freezeMs: 0 })
  w.agenda.push({ at: w.seq + w.rng.int(2, 30), build: reset })
}

export function learnTrade(w: WorkloadState, marketId: string, tokenId: string, priceMicros: number): void {
  const m = w.markets.get(marketId)
  if (m === undefined) return
  m.midPips = tokenPips(w, tokenId, priceMicros / MICROS_PER_PIP)
}

export function learnBalance(w: WorkloadState, address: string, asset: string, balance: number, held: number): void {
  const a = w.accounts.find((x) => x.address === address)
  if (a === undefined) return
  if (asset === 'USDC') a.usdc = { balance, held }
  else a.shares.set(asset, { balance, held })
}

export function learnMarket(w: WorkloadState, marketId: string, status: MarketStatus, tickSizeMicros: number, feeRateBps: number): void {
  const existing = w.markets.get(marketId)
  if (existing !== undefined) {
    existing.status = status
    existing.tickPips = tickSizeMicros / MICROS_PER_PIP
    existing.feeRateBps = feeRateBps
    existing.midPips = onGrid(existing, existing.midPips)
    return
  }
  const input = w.marketInputs.find((x) => x.marketId === marketId)
  if (input === undefined) return
  const view: MarketView = { input, status, tickPips: tickSizeMicros / MICROS_PER_PIP, feeRateBps, midPips: 0 }
  view.midPips = onGrid(view, w.rng.int(2_000, 8_000))
  w.markets.set(marketId, view)
  w.tokens.set(input.yesTokenId, { marketId, outcome: 'Yes' })
  w.tokens.set(input.noTokenId, { marketId, outcome: 'No' })
}
