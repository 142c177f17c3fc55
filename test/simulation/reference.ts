/**
 * The reference model of the matching engine: an independent, deliberately naive implementation
 * of docs/engine.md that the simulation runs next to `src/engine` and compares event for event.
 *
 * It is written to be obviously correct, not fast:
 * - State is plain data: arrays and maps of records, money in BigInt (converted to `number`
 *   only when an event, a result or the summary is emitted).
 * - Holds are never tracked: they are recomputed from the open orders whenever needed (a BUY
 *   holds `pips x lots` USDC, a SELL `lots x 10_000` shares), so "holds equal what open orders
 *   reserve" is true by construction.
 * - The walk finds the best maker afresh at every step by scanning all open orders of the market.
 * - `balance` and `bookLevel` events come from diffing full copies of the balances and of the
 *   native books taken before the command against the state after it.
 *
 * It imports only types and constants from src/engine, never engine logic.
 *
 * Accounts (summary().accounts): docs/engine.md creates an account with the first accepted
 * command that gives it something (a credit, an approval, a fill). A fill needs funds, which only
 * a credit brings, so here an account appears with an accepted `credit` or `approve` (relayed or
 * not); rejected commands, cancels and API keys create nothing.
 * SPEC: addresses in ledger and cancel commands are not validated (no rule or code is given for
 * a malformed one).
 *
 * Points where docs/engine.md leaves a choice open are marked `// SPEC:` with the reading taken.
 *
 * Its rules are modules of reference/, laid out as src/engine is: execute (a command's way),
 * validation, matching and fills, cancels, amend, quotes, groups, markets, ledger, accounts,
 * aggregates, summary; functions over one ReferenceState (reference/state.ts).
 */
import type { Command } from '../../src/engine/command.js'
import type { EngineEvent } from '../../src/engine/event.js'
import type { CommandResult } from '../../src/engine/result.js'
import type { StateSummary } from '../../src/engine/summary.js'
import { applyCommand } from './reference/execute.js'
import { ReferenceState } from './reference/state.js'
import { summaryOf } from './reference/summary.js'

export class ReferenceEngine {
  private readonly r = new ReferenceState()

  apply(command: Command): { result: CommandResult; events: EngineEvent[] } {
    return applyCommand(this.r, command)
  }

  summary(): StateSummary {
    return summaryOf(this.r)
  }
}
