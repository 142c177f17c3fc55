/**
 * The one limits module: the engine's bounds (src/engine/limits.ts, kept there so the engine
 * stays self-contained and pure) and the bounds of everything around it. Every queue in Predex
 * has its bound here; when one is reached the caller gets a fast, explicit error.
 */
import { assert } from './engine/assert.js'

export * from './engine/limits.js'

/** Bytes of the command ring between the front end and the engine worker. */
export const COMMAND_RING_BYTES = 16 * 1024 * 1024
/** Largest encoded command (a batch of 10 orders is about 4 KiB). */
export const COMMAND_BYTES_MAX = 64 * 1024
/** Submitted commands waiting for their result, across the whole process. */
export const PENDING_REQUESTS_MAX = 65_536
/**
 * Commands in one journal transaction (a group). One group is written while the next one fills;
 * when that one is full too, the worker stops taking commands until the write is done (the ring
 * then fills and callers get ENGINE_BUSY).
 */
export const BATCH_COMMANDS_MAX = 4_096
/** The engine writes a snapshot every this many commands. */
export const SNAPSHOT_EVERY_COMMANDS = 100_000
/** Snapshots kept in the data directory (older ones are deleted). */
export const SNAPSHOTS_KEPT = 2
/** Queries waiting for an answer from the engine worker. */
export const PENDING_QUERIES_MAX = 4_096

assert(COMMAND_BYTES_MAX * 4 <= COMMAND_RING_BYTES, 'several of the largest commands fit in the ring')
assert(BATCH_COMMANDS_MAX <= PENDING_REQUESTS_MAX, 'a batch never holds more than the pending requests')
assert(SNAPSHOTS_KEPT >= 2, 'keep a spare snapshot in case the newest is damaged')

/** Orders in one signature-verification task (one message to a pool thread). */
export const VERIFY_BATCH_MAX = 64
/** Verification tasks waiting for a pool thread; beyond this a new order is refused at once. */
export const VERIFY_QUEUE_MAX = 256
/** Signers whose public key is kept precomputed, per pool thread (about 1 MiB each). */
export const SIGNER_CACHE_ENTRIES_MAX = 64
/** Verifications of one signer before its key is precomputed (the table costs tens of ms). */
export const SIGNER_HOT_AFTER = 8
