/**
 * An order of a batch that fails for a reason that is not a catalogue error (a verification
 * thread that died, a bug): its entry says INTERNAL with nothing of the failure in it, as a lone
 * request's 500 does, and the failure itself is logged for the operator. The batch's other
 * entries are answered as usual.
 */
import t from 'tap'
import { submitOrders } from '../../../../src/service/trading/trading.js'
import { PredexError, ApiCode } from '../../../../src/errors.js'
import { lineLog } from '../../../../src/log.js'
import { fakeWorld } from '../fake-context.js'

t.test("a batch entry's unexpected failure: INTERNAL to the client, the details to the log", async (t) => {
  const lines: string[] = []
  const world = fakeWorld()
  const context = { ...world.context, log: lineLog((line) => lines.push(line)) }
  const failure = new Error('ENOENT: /srv/predex/worker-7.js at line 12')
  const refused = new PredexError(ApiCode.INVALID_PARAMETER, 'bad order', { field: 'order' })
  const outcome = await submitOrders(context, [{ status: 'rejected', reason: failure },
    { status: 'rejected', reason: refused }])
  t.equal(outcome.seq, 0, 'nothing reached the engine')
  const [unexpected, known] = outcome.entries
  t.ok(unexpected !== undefined && !unexpected.ok)
  t.ok(known !== undefined && !known.ok)
  if (unexpected === undefined || unexpected.ok || known === undefined || known.ok) return
  t.equal(unexpected.error.code, ApiCode.INTERNAL)
  t.same(unexpected.error.body(), { error: 'internal error', code: 'INTERNAL' }, 'no internals in the answer')
  t.equal(known.error, refused, 'a catalogue error is answered as it is')
  t.equal(lines.length, 1, 'the unexpected failure is logged once')
  t.match(lines[0], /^ERROR .*ENOENT: \/srv\/predex\/worker-7\.js/, 'with its details')
})
