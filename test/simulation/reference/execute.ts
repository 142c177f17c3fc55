/**
 * A command's way through the model: the stamp, the clock (GTD expiry first), the command, then
 * the aggregated balance and book-level events.
 */
import type { Command } from '../../../src/engine/command.js'
import type { EngineEvent } from '../../../src/engine/event.js'
import type { CommandResult } from '../../../src/engine/result.js'
import { Code } from '../../../src/engine/codes.js'
import { CANCEL_IDS_MAX } from '../../../src/engine/limits.js'
import { registerApiKey, revokeApiKey } from './accounts.js'
import { balanceChanges, balanceRows, levelChanges, levelRows } from './aggregates.js'
import { amend, cancelReplace } from './amend.js'
import { cancelClientIds, cancelIds, cancelMarketOrders, cancelWhere } from './cancels.js'
import { orderGroup } from './groups.js'
import { approve, credit, merge, redeem, relay, split } from './ledger.js'
import { createMarket, resolveMarket, setFeeRate, setMarketStatus, setTickSize } from './markets.js'
import { end, place, placeBatch } from './matching.js'
import { massQuote } from './quotes.js'
import { DONE, ReferenceState, type Step, refuse, rejection } from './state.js'

export function applyCommand(r: ReferenceState, command: Command): { result: CommandResult; events: EngineEvent[] } {
  checkStamp(r, command)
  const balancesBefore = r.balancesAfterLast ?? balanceRows(r)
  const booksBefore = r.booksAfterLast ?? levelRows(r)
  const step: Step = { events: [], trades: 0 }
  expire(r, step)
  const result = execute(r, command, step)
  r.balancesAfterLast = balanceRows(r)
  r.booksAfterLast = levelRows(r)
  step.events.push(...balanceChanges(balancesBefore, r.balancesAfterLast),
    ...levelChanges(booksBefore, r.booksAfterLast))
  return { result, events: step.events }
}

export function checkStamp(r: ReferenceState, command: Command): void {
  if (command.seq !== r.seq + 1) {
    throw new Error(`reference: seq ${command.seq} after ${r.seq}`)
  }
  if (!Number.isSafeInteger(command.timeMs) || command.timeMs < r.timeMs) {
    throw new Error(`reference: time ${command.timeMs} after ${r.timeMs}`)
  }
  r.seq = command.seq
  r.timeMs = command.timeMs
}

export function execute(r: ReferenceState, command: Command, step: Step): CommandResult {
  switch (command.kind) {
    case 'placeOrder':
      return place(r, command.order, step)
    case 'placeOrders':
      return placeBatch(r, command.orders, step)
    case 'cancelOrder':
      return cancelIds(r, command.address, [command.orderId], step)
    case 'cancelOrders':
      if (command.orderIds.length > CANCEL_IDS_MAX) {
        // SPEC: "more than CANCEL_IDS_MAX ids" counts the ids as sent, repeats included.
        return rejection(refuse(Code.CANCEL_TOO_MANY, { max: CANCEL_IDS_MAX }))
      }
      return cancelIds(r, command.address, command.orderIds, step)
    case 'cancelByClientOrderId':
      return cancelClientIds(r, command, step)
    case 'cancelAll':
      return cancelWhere(r, command.address, 'cancel-all', () => true, step)
    case 'cancelMarketOrders':
      return cancelMarketOrders(r, command, step)
    case 'expire':
      return DONE // the clock already ran
    case 'createMarket':
      return createMarket(r, command, step)
    case 'setMarketStatus':
      return setMarketStatus(r, command, step)
    case 'setTickSize':
      return setTickSize(r, command, step)
    case 'setFeeRate':
      return setFeeRate(r, command, step)
    case 'resolveMarket':
      return resolveMarket(r, command, step)
    case 'credit':
      return credit(r, command, step)
    case 'approve':
      return approve(r, command, step)
    case 'split':
      return split(r, command, step)
    case 'merge':
      return merge(r, command, step)
    case 'redeem':
      return redeem(r, command, step)
    case 'registerApiKey':
      return registerApiKey(r, command, step)
    case 'revokeApiKey':
      return revokeApiKey(r, command, step)
    case 'relay':
      return relay(r, command, step)
    case 'amendOrder':
      return amend(r, command, step)
    case 'cancelReplace':
      return cancelReplace(r, command, step)
    case 'massQuote':
      return massQuote(r, command, step)
    case 'orderGroup':
      return orderGroup(r, command, step)
    default:
      // A command kind the model does not know (one newer than it): an error of the test, not a
      // refusal to compare.
      throw new Error(`reference: ${(command as { readonly kind: string }).kind} is not modelled yet`)
  }
}

export function expire(r: ReferenceState, step: Step): void {
  const now = BigInt(r.timeMs)
  const due = r.live
    .filter((o) => o.input.timeInForce === 'GTD' && BigInt(o.input.expirationSec) * 1000n <= now)
    .sort((a, b) => a.input.expirationSec - b.input.expirationSec || a.number - b.number)
  for (const o of due) end(r, o, 'CANCELED', 'expired', step)
}
