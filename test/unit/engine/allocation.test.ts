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
 * Measured 179 B (200 k commands, compiled) and 201-225 B (60 k, under this loader) once the hot
 * commands wrote their results into the log instead of returning objects (and trade ids were
 * left to the reader); with result objects 346 B and 356-382 B, which this bound refuses. Before
 * that, with order objects, 531 B and 592-627 B; 700 B before the placement stopped making a
 * Fills and a Terms object per order, 1.5-1.7 KB before the event log.
 */
const ENGINE_BYTES_PER_COMMAND_MAX = 290
/** Replay writes no events nor results: measured 138 B and 155-168 B (id-table and ended-queue growth). */
const REPLAY_BYTES_PER_COMMAND_MAX = 240
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
