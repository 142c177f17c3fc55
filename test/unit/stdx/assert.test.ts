/**
 * assert (src/stdx/assert.ts): a message given as a function is built only when the assertion
 * fails, since the invariants run over the whole state after every simulated command.
 */
import t from 'tap'
import { assert, AssertionError } from '../../../src/stdx/assert.js'

t.test('a holding assertion does not build its message', async (t) => {
  let built = 0
  assert(true, () => `built ${++built}`)
  t.equal(built, 0)
})

t.test('a failing one throws with the message, given as text or as a function', async (t) => {
  t.throws(() => assert(false, 'as text'), new AssertionError('as text'))
  t.throws(() => assert(1 > 2, () => `built ${1 + 1}`), new AssertionError('built 2'))
})
