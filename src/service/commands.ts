/**
 * Submitting engine commands for the use cases: through the typed door (the result type follows
 * the command's kind), waiting until durable, with the commit latency recorded; and turning an
 * engine rejection into the catalogue error every face answers with.
 */
import { transactionOf } from '../chain/transaction.js'
import type { UnstampedCommand } from '../engine/command.js'
import type {
  Amended,
  BatchPlaced,
  QuotesSet,
  Canceled,
  CommandResult,
  Done,
  OrderPlaced,
  PlaceResult,
  Rejection,
} from '../engine/result.js'
import { PredexError } from '../errors.js'
import type { OutcomeOf } from '../host/engine-door.js'
import type { ServiceContext } from './context.js'
import { withFix } from './trading/refusal-fix.js'

/** Submits one command and waits until it is durable. */
export async function submit<C extends UnstampedCommand>(
  context: ServiceContext,
  command: C,
): Promise<OutcomeOf<C['kind']>> {
  const started = performance.now()
  const outcome = await context.host.submit(command)
  context.metrics.observeEngineAck((performance.now() - started) / 1000)
  return outcome
}

/** The catalogue error of an engine rejection, with what to do about it where that is known (refusal-fix.ts). */
export function rejectionError(rejection: Rejection): PredexError {
  return new PredexError(rejection.code, rejection.message, withFix(rejection.code, rejection.context))
}

/** The result if the engine accepted the command; its rejection as a catalogue error otherwise. */
export function accepted(result: PlaceResult): OrderPlaced
export function accepted(result: BatchPlaced | Rejection): BatchPlaced
export function accepted(result: Canceled | Rejection): Canceled
export function accepted(result: QuotesSet | Rejection): QuotesSet
export function accepted(result: Amended | Rejection): Amended
export function accepted(result: Done | Rejection): Done
export function accepted(result: CommandResult): Exclude<CommandResult, Rejection> {
  if (result.ok) return result
  throw rejectionError(result)
}

/**
 * The transaction a command's trades are in, as a placement answers it (`transactionsHashes`): on
 * the builtin chain the command's own (src/chain/transaction.ts); on a real chain none yet, '' (the
 * trades settle in transactions of their own later: each trade's `transaction_hash`).
 */
export function matchTransactionOf(context: ServiceContext, seq: number): string {
  return context.chain.clients === null ? transactionOf(context.chainId, seq).transactionHash : ''
}
