/**
 * The checks the engine's unit tests share (test/unit/engine): the engine's state without its
 * clock, an account or a market of it, an exact rejection, and a command that must change
 * nothing (refused, or accepted as a no-op) and emit nothing.
 */
import type { Test } from 'tap'
import type { ApplyResult } from '../../src/engine/engine.js'
import { CODE_MESSAGES, type Code } from '../../src/engine/codes.js'
import type { ContextValue } from '../../src/engine/result.js'
import type { StateSummary } from '../../src/engine/summary.js'
import { summaryOf } from '../../src/engine/view.js'
import type { Harness } from './harness.js'

/** The engine's state; seq and timeMs advance with every command, everything else must stay. */
export function stateOf(h: Harness): StateSummary {
  return { ...summaryOf(h.engine), seq: 0, timeMs: 0 }
}

export function accountOf(h: Harness, address: string): StateSummary['accounts'][number] | undefined {
  return summaryOf(h.engine).accounts.find((a) => a.address === address)
}

export function marketOf(h: Harness, marketId: string): StateSummary['markets'][number] | undefined {
  return summaryOf(h.engine).markets.find((m) => m.marketId === marketId)
}

/** An exact rejection: code, catalogue message and context. */
export function isRejected(t: Test, applied: ApplyResult, code: Code, context: Record<string, ContextValue> | null,
  what: string): void {
  t.strictSame(applied.result, { ok: false, code, message: CODE_MESSAGES[code], context }, what)
}

/** A rejection whose context the doc does not spell out: the code and message only. */
export function isRejectedCode(t: Test, applied: ApplyResult, code: Code, what: string): void {
  t.equal(applied.result.ok, false, `${what}: rejected`)
  if (!applied.result.ok) {
    t.equal(applied.result.code, code, `${what}: code ${code}`)
    t.equal(applied.result.message, CODE_MESSAGES[code], `${what}: message`)
  }
}

/** Applies a command that must be rejected, and checks that it changed nothing and emitted nothing. */
export function refusedUnchanged(t: Test, h: Harness, run: () => ApplyResult, what: string): ApplyResult {
  const before = stateOf(h)
  const applied = run()
  t.equal(applied.result.ok, false, `${what}: refused`)
  t.strictSame(applied.events, [], `${what}: no events`)
  t.strictSame(stateOf(h), before, `${what}: nothing changed`)
  return applied
}

/** Applies a command that must be accepted as a no-op: nothing changed, nothing emitted. */
export function acceptedNoop(t: Test, h: Harness, run: () => ApplyResult, what: string): void {
  const before = stateOf(h)
  const applied = run()
  t.strictSame(applied.result, { ok: true }, `${what}: accepted`)
  t.strictSame(applied.events, [], `${what}: no events`)
  t.strictSame(stateOf(h), before, `${what}: nothing changed`)
}
