/**
 * Every bound the engine enforces, in one place, with the relationships between them checked
 * when the module loads (TigerBeetle's `constants.zig` habit). Changing a number here is the only
 * way to change a limit; the edges (REST, gRPC) read these too, so the checks agree everywhere.
 *
 * Representations: money and shares are integers in micro-units (10^-6). Inside the book a price
 * is an integer number of pips (1 pip = 0.0001 USDC per share = 100 micro-USDC) and a quantity is
 * an integer number of lots (1 lot = 0.01 share = 10 000 micro-shares), so that
 * `pips x lots = micro-USDC` exactly. Every product below is proved to stay under 2^53.
 */
import { assert } from '../stdx/assert.js'

/** Micro-units in one USDC or one share. */
export const MICROS_PER_UNIT = 1_000_000
/** Micro-USDC per pip: a price of one pip per share. */
export const MICROS_PER_PIP = 100
/** Micro-shares per lot, the smallest tradable quantity (0.01 share, as clob-client rounds). */
export const MICROS_PER_LOT = 10_000
/** Pips in a price of 1 USDC per share: a Yes price plus its No price always sum to this. */
export const PIPS_PER_UNIT = 10_000

/**
 * Allowed tick sizes, in pips: 0.1, 0.01, 0.005, 0.0025, 0.001, 0.0001 (Polymarket's six since
 * CLOB V2: clob-v2-compat.md 4.2). Each divides 1, so a Yes price on the grid has its No price on
 * it too.
 */
export const TICK_PIPS_ALLOWED: readonly number[] = [1_000, 100, 50, 25, 10, 1]

/** Largest order, in lots (10 million shares). */
export const ORDER_LOTS_MAX = 1_000_000_000
/**
 * Largest signed amount (makerAmount or takerAmount) of an order, in micro-units: the shares of
 * the largest order, which is also the most USDC it can cost (at a price below 1).
 */
export const ORDER_AMOUNT_MICROS_MAX = ORDER_LOTS_MAX * MICROS_PER_LOT
/** Largest balance of one asset in one account, in micro-units (one billion USDC or shares). */
export const BALANCE_MICROS_MAX = 1_000_000_000_000_000
/** Largest total of USDC ever credited (the sum that conservation adds up). */
export const SUPPLY_MICROS_MAX = 4_000_000_000_000_000
/** An allowance at or above this is unlimited (an approval of 2^256 - 1 is clamped to it). */
export const ALLOWANCE_MICROS_UNLIMITED = Number.MAX_SAFE_INTEGER
/** Largest fee rate, in basis points (10 %). */
export const FEE_RATE_BPS_MAX = 1_000
/**
 * Orders in one batch placement command: Polymarket's per-request maximum since 2025-08 (15,
 * clob-v2-compat.md 3.6), which /compat takes. The native faces keep the seed's 10
 * (NATIVE_BATCH_ORDERS_MAX in src/limits.ts).
 */
export const BATCH_ORDERS_MAX = 15
/** Order ids in one cancel-orders command. */
export const CANCEL_IDS_MAX = 1_000
/** Order groups (docs/engine.md, "Order groups"): each API key's, and the engine's in all. */
export const ORDER_GROUPS_PER_KEY_MAX = 16
export const ORDER_GROUPS_MAX = 4_096
/** A group's rolling window: whole buckets of ORDER_GROUP_BUCKET_MS, at least one second, at most a minute. */
export const ORDER_GROUP_BUCKET_MS = 100
export const ORDER_GROUP_WINDOW_MS_MIN = 1_000
export const ORDER_GROUP_WINDOW_MS_MAX = 60_000
/** How long a triggered group stays frozen on its own (0: until reset): at most an hour. */
export const ORDER_GROUP_FREEZE_MS_MAX = 3_600_000
/** A group's id: printable ASCII, as a client order id. */
export const ORDER_GROUP_ID_LENGTH_MAX = 64
/** Orders a mass quote may name on each side of its market's book (kept and new together). */
export const MASS_QUOTE_LEVELS_MAX = 20
/** Open (resting) orders across the whole engine. */
export const ORDERS_OPEN_MAX = 4_000_000
/**
 * Rows of the order table in use at once (order-table.ts): the resting orders and the one taker
 * a placement holds while it runs; the table never grows past the doubling that holds them.
 */
export const ORDER_ROWS_MAX = ORDERS_OPEN_MAX + 1
/**
 * Ended orders whose ids the engine remembers (order-index.ts): while an ended id is kept, a
 * resubmission of its order is a duplicate and a cancel answers "already matched/canceled";
 * beyond the bound, the order that ended first is forgotten (live orders never are). A
 * byte-identical retry (clob-client re-sends after 30 ms) can only arrive within the L2 timestamp
 * window (60 s past, 10 s future); the bound is to outlast it by far, and a client that re-signs an
 * old order hours later: 4 M ids last about 2.2 hours at 500 new orders a second (a busy day:
 * eight keys at Polymarket's sustained 60 orders/s), 44 minutes at this 2-core machine's signature
 * verification ceiling (about 1 500 orders/s), 13 minutes at the load-holding profile's 5 000 order
 * commands/s if every one placed. Cost, measured: about 130 bytes of worker heap per id (key
 * string, table slots, value, queue), so about 520 MB at the bound, and 68 bytes per id in every
 * snapshot, so 272 MB (about 4 s to encode here, at each SNAPSHOT_EVERY_COMMANDS). Equal to
 * ORDERS_OPEN_MAX: the index never holds more than twice that many ids.
 */
export const ENDED_ORDERS_RETAINED = 4_000_000
/** Markets the engine can hold. */
export const MARKETS_MAX = 100_000
/** A GTD order must expire at least this far after the command time that places it. */
export const GTD_MARGIN_MS = 60_000
/** Longest string field (question, description) kept in engine state, in UTF-16 code units. */
export const TEXT_LENGTH_MAX = 4_096
/** Longest identifier (market id, slug, token id, API key, address), in characters. */
export const ID_LENGTH_MAX = 128
/** Longest client order id (a trader's own name for an order), in characters (printable ASCII). */
export const CLIENT_ORDER_ID_LENGTH_MAX = 64

// Relationships between the limits. Each product the engine computes must be exact in a double.
assert(MICROS_PER_PIP * MICROS_PER_LOT === MICROS_PER_UNIT * 1, 'pips x lots must equal micros')
assert(PIPS_PER_UNIT * MICROS_PER_PIP === MICROS_PER_UNIT, 'a unit price is PIPS_PER_UNIT pips')
// Cost of the largest order at the highest price.
assert(PIPS_PER_UNIT * ORDER_LOTS_MAX < Number.MAX_SAFE_INTEGER, 'order cost must be exact')
// Cost of the largest order must fit in one balance.
assert(PIPS_PER_UNIT * ORDER_LOTS_MAX <= BALANCE_MICROS_MAX, 'largest order must be payable')
// Sums of balances (conservation) stay exact.
assert(SUPPLY_MICROS_MAX * 2 < Number.MAX_SAFE_INTEGER, 'supply sums must be exact')
assert(BALANCE_MICROS_MAX <= SUPPLY_MICROS_MAX, 'one balance fits in the supply')
// Fee: rate x min(p, 1 - p) x lots is split by 10 000 lots before multiplying (see fee.ts).
assert(FEE_RATE_BPS_MAX * (PIPS_PER_UNIT / 2) * 10_000 < Number.MAX_SAFE_INTEGER, 'fee parts')
assert(FEE_RATE_BPS_MAX * (ORDER_LOTS_MAX / 10_000) * (PIPS_PER_UNIT / 2) < Number.MAX_SAFE_INTEGER,
  'fee high part must be exact')
// Long division of an amount (units.ts) multiplies a remainder below the divisor by 10.
assert(ORDER_AMOUNT_MICROS_MAX * 10 < Number.MAX_SAFE_INTEGER, 'long division stays exact')
assert(ORDER_AMOUNT_MICROS_MAX <= BALANCE_MICROS_MAX, 'an order amount fits in a balance')
// The order index (live plus retained ended ids) fits the id table's int32 entry indices.
assert(ORDERS_OPEN_MAX + ENDED_ORDERS_RETAINED < 2 ** 30, 'order index entries fit in 32 bits')
// A client order id is a short label, never longer than an identifier.
assert(CLIENT_ORDER_ID_LENGTH_MAX <= ID_LENGTH_MAX, 'a client order id is no longer than an id')
// Lots fit in an Int32 slot and so do pips.
assert(ORDER_LOTS_MAX < 2 ** 31, 'lots fit in 32 bits')
for (const tick of TICK_PIPS_ALLOWED) assert(PIPS_PER_UNIT % tick === 0, 'ticks divide 1')
