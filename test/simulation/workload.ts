/**
 * A seeded workload for the engine simulation: an endless, realistic stream of commands that
 * exercises every rule of docs/engine.md. It steers with what the engine answers (`observe`):
 * which orders rest, which ids were accepted, market statuses, balances (the `balance` events
 * are exact, so the workload's view of funds is too). It never decides outcomes itself; it only
 * aims, so its bookkeeping can stay simple.
 *
 * The stream: a setup (markets, API keys, credits, approvals, splits), then a mix dominated by
 * GTC limit orders around a moving mid on both tokens and both sides (so normal, mint and merge
 * matches all happen), with cancels, batches, immediate orders, post-only and GTD orders,
 * self-trades, duplicates, client order ids (a few per API key, so that a live one is often
 * repeated and an ended one reused) and cancels by them, invalid inputs for every validation step, ledger operations (also
 * through the gasless relay: mostly the owner's next nonce before the deadline, sometimes a
 * replayed or future nonce, a passed deadline or a malformed request), admin changes, and every
 * `lifecycleEvery` commands one market is closed, resolved, redeemed and replaced by a fresh one.
 * With `amendsAndReplaces` (the simulation's seeds), also amends (about 3 % of the random mix: of
 * live orders, to a new size or by a reduction, some refused) and cancel-replaces (about 3 %: of
 * live orders by re-quotes, crossing, post-only, immediate or faulty new orders; some of ended,
 * unknown or someone else's orders). With `selfTradeModes` (the simulation's seeds too), orders
 * carry a self-trade prevention mode now and then (about 15 %, a malformed one on 0.5 %), and
 * those aimed at their own account's best order mostly do. With `massQuotes`, also mass quotes
 * (about 2.5 %: a trader re-quotes a small ladder on a market, keeping some of its live quotes
 * there, naming now and then ended or unknown ids; some malformed). With `orderGroups`, also order
 * groups (about 2.5 %: small fill limits, so that fills trigger them often; manual trigger, reset,
 * update, delete; invalid limits and ids, unknown groups; a key filled to its 16), most triggered
 * groups reset a little later, and 30 % of the orders of a key with groups join one of them.
 *
 * The command families are modules of workload/ (orders, invalid-orders, cancels, amends, quotes,
 * ledger, admin; setup and the agenda, the random mix, learning), functions over one WorkloadState
 * (workload/state.ts: the view, the stamp, the random source, small helpers).
 */
import type { Command } from '../../src/engine/command.js'
import type { EngineEvent } from '../../src/engine/event.js'
import type { CommandResult } from '../../src/engine/result.js'
import { Code } from '../../src/engine/codes.js'
import { WorkloadState, ordersOf, RECENT_MAX, type WorkloadOptions } from './workload/state.js'
import { dueAgenda, schedule, setup, stamp } from './workload/setup.js'
import { random } from './workload/mix.js'
import { learn, rememberSent } from './workload/learning.js'

export type { WorkloadOptions }

/** Every rejection code this workload sets out to provoke (the simulation checks each occurs). */
export const TARGETED_CODES: readonly Code[] = [
  Code.INVALID_ORDER_PAYLOAD,
  Code.INVALID_ORDER_AMOUNTS,
  Code.INVALID_ORDER_PRICE,
  Code.INVALID_ORDER_MIN_TICK_SIZE,
  Code.INVALID_ORDER_MIN_SIZE,
  Code.INVALID_ORDER_SIZE_MAX,
  Code.INVALID_ORDER_EXPIRATION,
  Code.INVALID_ORDER_FEE_RATE,
  Code.INVALID_ORDER_DUPLICATED,
  Code.CLIENT_ORDER_ID_DUPLICATED,
  Code.INVALID_ORDER_NOT_ENOUGH_BALANCE,
  Code.INVALID_POST_ONLY_ORDER_TYPE,
  Code.INVALID_POST_ONLY_ORDER,
  Code.FOK_ORDER_NOT_FILLED,
  Code.FAK_ORDER_NOT_FILLED,
  Code.TOKEN_NOT_FOUND,
  Code.MARKET_NOT_READY,
  Code.MARKET_CANCEL_ONLY,
  Code.MARKET_CLOSED,
  Code.BATCH_TOO_LARGE,
  Code.CANCEL_TOO_MANY,
  Code.MARKET_NOT_FOUND,
  Code.MARKET_EXISTS,
  Code.MARKET_INVALID,
  Code.MARKET_STATUS_TRANSITION,
  Code.MARKET_TICK_SIZE_INVALID,
  Code.MARKET_TICK_SIZE_OFF_GRID,
  Code.MARKET_FEE_RATE_INVALID,
  Code.LEDGER_AMOUNT_INVALID,
  Code.LEDGER_BALANCE_LIMIT,
  Code.LEDGER_INSUFFICIENT_BALANCE,
  Code.LEDGER_ALLOWANCE_BELOW_HOLDS,
  Code.LEDGER_MARKET_RESOLVED,
  Code.LEDGER_MARKET_NOT_RESOLVED,
  Code.LEDGER_NOTHING_TO_REDEEM,
  Code.RELAY_INVALID,
  Code.RELAY_DEADLINE_PASSED,
  Code.RELAY_NONCE_MISMATCH,
  Code.API_KEY_EXISTS,
  Code.API_KEY_NOT_FOUND,
  Code.API_KEY_INVALID,
  // With `amendsAndReplaces` only.
  Code.AMEND_SIZE_INVALID,
  Code.AMEND_NOT_REDUCING,
]

/** The codes the workload provokes too with `massQuotes` and `orderGroups` (refusals of commands and of orders). */
export const QUOTE_AND_GROUP_CODES: readonly Code[] = [
  Code.MASS_QUOTE_INVALID,
  Code.MASS_QUOTE_TOO_LARGE,
  Code.ORDER_GROUP_INVALID,
  Code.ORDER_GROUP_NOT_FOUND,
  Code.ORDER_GROUP_EXISTS,
  Code.ORDER_GROUPS_FULL,
  Code.ORDER_GROUP_TRIGGERED,
]

export class Workload {
  private readonly w: WorkloadState

  constructor(options: WorkloadOptions) {
    this.w = new WorkloadState(options)
    setup(this.w, options.accounts ?? 12)
  }

  /** The next command: seq 1, 2, ...; time never decreasing. */
  next(): Command {
    const w = this.w
    const s = stamp(w)
    schedule(w, s.seq)
    const build = w.queue.shift() ?? dueAgenda(w, s.seq)
    return build !== undefined ? build(s) : random(w, s)
  }

  /** Learns from what the engine did with `command`. */
  observe(command: Command, result: CommandResult, events: readonly EngineEvent[]): void {
    const w = this.w
    // orderAccepted events carry no token or side; the inputs come from the command.
    w.pendingInput = new Map(ordersOf(command).map((o) => [o.orderId, o]))
    for (const e of events) learn(w, e)
    rememberSent(w, command, result)
    if (command.kind === 'relay' && result.ok) {
      const owner = command.action.address
      w.relayNonces.set(owner, (w.relayNonces.get(owner) ?? 0) + 1)
      w.relayed.push({ kind: 'relay', nonce: command.nonce, deadlineSec: command.deadlineSec, action: command.action })
      if (w.relayed.length > RECENT_MAX) w.relayed.shift()
    }
  }
}

/**
 * The self-trades of one applied command, as `<taker's mode> <who was cancelled>`: `maker` for
 * each resting order cancelled, `taker` for a taker stopped on its own order (cancel-taker,
 * cancel-both). For the simulation's tallies: an orderUpdate with reason self-trade names the
 * taker itself, or a maker in the walk of the order accepted last.
 */
export function selfTradesOf(command: Command, events: readonly EngineEvent[]): string[] {
  const modes = new Map(ordersOf(command).map((o) => [o.orderId, o.selfTradePrevention ?? 'cancel-maker']))
  const out: string[] = []
  let taker = ''
  for (const e of events) {
    if (e.type === 'orderAccepted') taker = e.orderId
    else if (e.type === 'orderUpdate' && e.reason === 'self-trade') {
      out.push(`${String(modes.get(taker))} ${e.orderId === taker ? 'taker' : 'maker'}`)
    }
  }
  return out
}
