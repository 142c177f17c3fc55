/**
 * Issue 30, point 3: a bound on what the engine allocates per command, in bytes, not a time. The
 * measurement runs in a child process with a young generation that no measured window fills
 * (bench/engine-allocation.ts, `--mode bytes`): after a full collection, what the heap's used
 * bytes grow by over a window is what the window allocated.
 *
 * The bound is today's figure with a margin, so that a change that allocates more per command
 * fails here; the goal is no allocation in steady state, and each step towards it lowers
 * ENGINE_BYTES_PER_COMMAND_MAX (bench:engine reports the figure with every run).
 */
import t from 'tap'
import { bytesChildFlags } from '../../../bench/engine-allocation.js'
import { runJsonChild } from '../../../bench/json-child.js'

/**
 * Measured 17 B (200 k commands, compiled) and 49-58 B (60 k, under this loader): what is left is
 * the growth of the ended orders' memory (the id table's keys, the ended queue) until it reaches
 * ENDED_ORDERS_RETAINED. Before, 179 B and 201-225 B, which this bound refuses: the rulebook's
 * terms object per order, a generator per immediate order, and numbers past 2^31 (times,
 * balances) boxed into heap numbers as arguments of calls that did not inline. Earlier steps:
 * 346 B with result objects, 531 B with order objects, 700 B with a Fills and a Terms object per
 * order, 1.5-1.7 KB with event objects.
 */
const ENGINE_BYTES_PER_COMMAND_MAX = 100
/** Replay writes no events nor results: measured 17 B and 47-54 B. */
const REPLAY_BYTES_PER_COMMAND_MAX = 100
const COMMANDS = 60_000

async function measure(): Promise<{ bytes_per_command: number; replay_bytes_per_command: number }> {
  const args = ['--import', './scripts/ts-loader.mjs', ...bytesChildFlags(), 'bench/engine-allocation.ts',
    '--mode', 'bytes', '--commands', String(COMMANDS)]
  return await runJsonChild(args, 'the measuring child') as { bytes_per_command: number; replay_bytes_per_command: number }
}

t.test('the engine allocates at most its bound per command', async (t) => {
  const figures = await measure()
  t.comment(`bytes per command: ${figures.bytes_per_command}, replay ${figures.replay_bytes_per_command}`)
  t.ok(figures.bytes_per_command > 0, 'the measurement saw the engine allocate (it measures something)')
  t.ok(figures.bytes_per_command <= ENGINE_BYTES_PER_COMMAND_MAX,
    `execute: ${figures.bytes_per_command} B <= ${ENGINE_BYTES_PER_COMMAND_MAX} B`)
  t.ok(figures.replay_bytes_per_command <= REPLAY_BYTES_PER_COMMAND_MAX,
    `replay: ${figures.replay_bytes_per_command} B <= ${REPLAY_BYTES_PER_COMMAND_MAX} B`)
})
