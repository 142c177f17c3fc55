/**
 * The reference model under the seeded workload: 20 000 commands that must not throw, keep the
 * invariants, and reach every match type and every rejection code the workload aims at.
 */
import t from 'tap'
import type { EngineEvent, Trade } from '../../src/engine/event.js'
import type { CommandResult, Rejection } from '../../src/engine/result.js'
import { CODE_MESSAGES } from '../../src/engine/codes.js'
import { ReferenceEngine } from './reference.js'
import { QUOTE_AND_GROUP_CODES, TARGETED_CODES, Workload, selfTradesOf } from './workload.js'
import { ofType, checkConservation, type TokenMap, invariantViolation } from './reference-harness.js'

// ---------------------------------------------------------------------------------------------
// The seeded workload against the reference
// ---------------------------------------------------------------------------------------------

t.test('workload: 20 000 commands run clean and reach every rule', (t) => {
  // MARKET_NOT_READY can only come in the first 150 commands (until the Upcoming market opens),
  // from about one order: with mass quotes and order groups drawn too, 20 260 103 sends none there;
  // 20 260 102 four (and its first account's key reaches its 16 groups: ORDER_GROUPS_FULL).
  const seed = 20_260_102
  const commands = 20_000
  t.comment(`seed ${seed}, ${commands} commands`)
  const ref = new ReferenceEngine()
  const workload = new Workload({ seed, amendsAndReplaces: true, selfTradeModes: true, massQuotes: true, orderGroups: true })
  const counts = new Map<string, number>()
  const bump = (k: string): void => {
    counts.set(k, (counts.get(k) ?? 0) + 1)
  }
  const tokens: TokenMap = new Map()
  const violations: string[] = []
  for (let i = 0; i < commands; i++) {
    const command = workload.next()
    const { result, events } = ref.apply(command)
    bump(`command ${command.kind}`)
    countResult(result, bump)
    for (const e of events) countEvent(e, bump)
    if (command.kind !== 'orderGroup') for (const e of ofType(events, 'orderGroup')) bump(`group ${e.action} by a fill`)
    for (const k of selfTradesOf(command, events)) bump(`self-trade ${k}`)
    workload.observe(command, result, events)
    for (const e of ofType(events, 'marketCreated')) {
      tokens.set(e.market.yesTokenId, { marketId: e.market.marketId, yes: true })
      tokens.set(e.market.noTokenId, { marketId: e.market.marketId, yes: false })
    }
    if (i % 1_000 === 0) violations.push(invariantViolation(ref.summary(), tokens))
    if (i % 2_000 === 0) checkConservation(t, ref.summary())
  }
  const s = ref.summary()
  checkConservation(t, s)
  violations.push(invariantViolation(s, tokens))
  t.strictSame(violations.filter((v) => v !== ''), [], 'shares conserved, holds covered, books uncrossed')
  t.comment(`open orders at the end: ${s.openOrders.length}; orders accepted: ${s.orderStatuses.length}`)
  t.comment([...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}: ${v}`).join('\n'))
  for (const m of ['normal', 'mint', 'merge']) t.ok(counts.has(`match ${m}`), `match type ${m} occurred`)
  for (const code of TARGETED_CODES) t.ok(counts.has(`rejected ${code}`), `rejection ${code} occurred`)
  const reasons = ['owner', 'cancel-all', 'cancel-market', 'self-trade', 'expired', 'market-closed', 'market-resolved', 'unfilled',
    'amended', 'replaced', 'order-group']
  for (const r of reasons) t.ok(counts.has(`cancel ${r}`), `cancel reason ${r} occurred`)
  for (const r of ['ORDER_NOT_FOUND', 'ORDER_ALREADY_MATCHED', 'ORDER_ALREADY_CANCELED'] as const) {
    t.ok(counts.has(`not canceled ${CODE_MESSAGES[r]}`), `cancel answer ${r} occurred`)
  }
  // Self-trade prevention: each mode met its own orders, and malformed modes were refused.
  for (const k of ['cancel-maker maker', 'cancel-taker taker', 'cancel-both maker', 'cancel-both taker']) {
    t.ok(counts.has(`self-trade ${k}`), `self-trade ${k} occurred`)
  }
  t.notOk(counts.has('self-trade cancel-taker maker'), 'cancel-taker never cancels a maker')
  t.ok(counts.has('rejected INVALID_ORDER_PAYLOAD selfTradePrevention'), 'a malformed mode was refused')
  // Mass quotes and order groups.
  for (const code of QUOTE_AND_GROUP_CODES) t.ok(counts.has(`rejected ${code}`), `rejection ${code} occurred`)
  t.ok(counts.has('rejected INVALID_ORDER_PAYLOAD orderGroupId'), 'a malformed group id was refused')
  for (const a of ['created', 'updated', 'triggered', 'reset', 'deleted']) t.ok(counts.has(`group ${a}`), `group event ${a} occurred`)
  t.ok((counts.get('group triggered by a fill') ?? 0) > 0, 'fills triggered groups')
  for (const k of ['canceled', 'kept', 'placed']) t.ok(counts.has(`quote ${k}`), `quote levels ${k}`)
  for (const r of ['ORDER_NOT_FOUND', 'ORDER_ALREADY_MATCHED', 'ORDER_ALREADY_CANCELED'] as const) {
    t.ok(counts.has(`quote gone ${CODE_MESSAGES[r]}`), `a kept quote answered ${r}`)
  }
  t.end()
})

function countResult(result: CommandResult, bump: (k: string) => void): void {
  const rejected = (r: Rejection): void => {
    bump(`rejected ${r.code}`)
    if (r.code === 'INVALID_ORDER_PAYLOAD') bump(`rejected ${r.code} ${String(r.context?.field)}`)
  }
  if (!result.ok) rejected(result)
  if ('results' in result) for (const r of result.results) if (!r.ok) rejected(r)
  if ('notCanceled' in result) for (const n of result.notCanceled) bump(`not canceled ${n.reason}`)
  if ('placed' in result && !result.placed.ok) rejected(result.placed)
  if ('newQuotes' in result) {
    for (const r of result.newQuotes) if (!r.ok) rejected(r)
    for (let i = 0; i < result.canceledQuotes.length; i++) bump('quote canceled')
    for (const k of result.keptQuotes) bump(k.reason === null ? 'quote kept' : `quote gone ${k.reason}`)
    for (const r of result.newQuotes) if (r.ok) bump('quote placed')
  }
}

function countEvent(e: EngineEvent, bump: (k: string) => void): void {
  bump(`event ${e.type}`)
  if (e.type === 'trade') bump(`match ${(e as Trade).matchType}`)
  if (e.type === 'orderUpdate' && e.reason !== null) bump(`cancel ${e.reason}`)
  if (e.type === 'orderAccepted') bump(`accepted ${e.timeInForce}${e.postOnly ? ' post-only' : ''}`)
  if (e.type === 'orderGroup') bump(`group ${e.action}`)
}
