/**
 * The soak's verdicts, each computed from what the clients were told and what the server holds
 * after its last kill -9 and restart: no acknowledged order or cancel lost, the server's state
 * hash equal to a replay of its journal from seq 1 in a fresh engine, own memory under its
 * ceiling and flat.
 */
import { decodeStampedCommand } from '../../src/codec/command-codec.js'
import { Engine } from '../../src/engine/engine.js'
import { checkInvariants } from '../../src/engine/invariants.js'
import { stateHashOf } from '../../src/engine/snapshot.js'
import { Journal } from '../../src/journal/journal.js'
import type { RssSample } from './server.js'
import type { Ledger, Trader } from './workload.js'
import { slope } from '../../bench/stats.js'

export interface Check {
  readonly name: string
  readonly ok: boolean
  readonly detail: string
}

interface Listed {
  readonly status: string
  readonly size: string
  readonly sizeRemaining: string
}

/** Every order of every trader, any status, following the cursor to the end. */
async function listedOrders(traders: readonly Trader[]): Promise<Map<string, Listed>> {
  const listed = new Map<string, Listed>()
  for (const trader of traders) {
    let cursor: string | undefined
    for (;;) {
      const page = await trader.client.orders({ status: 'all', limit: 500, nextCursor: cursor })
      for (const order of page.data) {
        listed.set(order.id, { status: order.status, size: order.size, sizeRemaining: order.size_remaining })
      }
      if (page.next_cursor === 'LTE=' || page.data.length === 0) break
      cursor = page.next_cursor
    }
  }
  return listed
}

/**
 * Zero acknowledged orders lost: each order a client was told was accepted is known, at least as
 * far along as it was told (matched on entry: some of it matched; cancelled: CANCELED).
 */
export async function acknowledgedKept(traders: readonly Trader[], ledger: Ledger): Promise<Check> {
  const listed = await listedOrders(traders)
  const problems: string[] = []
  for (const [orderId, acked] of ledger.orders) {
    const order = listed.get(orderId)
    if (order === undefined) problems.push(`${orderId} (acknowledged ${acked.status}) is unknown`)
    else if (acked.status === 'matched' && order.size === order.sizeRemaining) {
      problems.push(`${orderId} was acknowledged matched but shows nothing matched`)
    }
  }
  for (const orderId of ledger.canceled) {
    const status = listed.get(orderId)?.status
    if (status !== 'CANCELED') problems.push(`${orderId} was acknowledged cancelled but is ${status ?? 'unknown'}`)
  }
  return { name: 'acknowledged orders and cancels kept', ok: problems.length === 0,
    detail: problems.length === 0 ? `${ledger.orders.size} orders and ${ledger.canceled.size} cancels, all found`
      : problems.slice(0, 10).join('; ') + (problems.length > 10 ? ` (and ${problems.length - 10} more)` : '') }
}

/** The journal, replayed from seq 1 in a fresh engine (no snapshot), up to `seq`: its state hash. */
export async function replayedHash(dataDir: string, seq: number): Promise<{ seq: number; stateHash: string }> {
  const journal = Journal.open({ path: dataDir, durability: 'sync', readOnly: true })
  // The journal's own retention of ended ids: its commands were applied with it.
  const engine = new Engine({ endedOrdersRetained: journal.endedOrdersRetained(null) })
  try {
    for (const { seq: recordSeq, payload } of journal.commandRecords(1)) {
      if (recordSeq > seq) break
      if (payload === null) throw new Error(`journal record ${recordSeq}: bad checksum`)
      if (recordSeq !== engine.seq + 1) throw new Error(`journal gap: ${engine.seq} is followed by ${recordSeq}`)
      engine.apply(decodeStampedCommand(payload))
    }
  } finally {
    await journal.close()
  }
  checkInvariants(engine)
  return { seq: engine.seq, stateHash: stateHashOf(engine) }
}

export async function replayAgrees(dataDir: string, served: { seq: number; state_hash: string }): Promise<Check> {
  const replayed = await replayedHash(dataDir, served.seq)
  const ok = replayed.seq === served.seq && replayed.stateHash === served.state_hash
  return { name: 'state hash equals an independent replay', ok,
    detail: `server seq ${served.seq} ${served.state_hash.slice(0, 16)}…, replay seq ${replayed.seq} `
      + `${replayed.stateHash.slice(0, 16)}…` }
}

/**
 * Memory flat: the trend of the process's own memory (RssAnon: heaps and buffers, not LMDB's
 * file pages, which are page cache) over the second half of the longest incarnation stays under
 * `slopeMbPerMinMax` (the whole resident set's trend, reported beside it, also counts the LMDB
 * files' pages mapped in, which grow with the files). Under the soak's load
 * a fresh process fills its bounded caches for some 150 s (own memory 300 -> 540 MB, then flat),
 * so a short incarnation shows only that filling: one shorter than `judgedMsMin` is not judged
 * (the check fails, saying so). `npm run soak -- --quiet-minutes M` gives one long incarnation.
 */
export function memoryFlat(samples: readonly RssSample[], judgedMsMin: number, slopeMbPerMinMax: number): Check {
  const longest = longestIncarnation(samples)
  const lifeMs = longest.at(-1)?.upMs ?? 0
  const judged = longest.filter((sample) => sample.upMs >= lifeMs / 2)
  const anonSlope = slope(judged.map((s) => [s.upMs / 60_000, mbOf(s.rssAnonBytes)]))
  const rssSlope = slope(judged.map((s) => [s.upMs / 60_000, mbOf(s.rssBytes)]))
  const longEnough = lifeMs >= judgedMsMin && judged.length >= 10
  const window = `the longest incarnation's second half (${(lifeMs / 2_000).toFixed(0)} s to ${(lifeMs / 1000).toFixed(0)} s, `
    + `${judged.length} samples)`
  return { name: 'memory flat', ok: longEnough && anonSlope <= slopeMbPerMinMax,
    detail: `${longEnough ? '' : `not judged: the longest incarnation lived ${(lifeMs / 1000).toFixed(0)} s, under `
      + `${judgedMsMin / 1000} s (--quiet-minutes); `}over ${window}: own memory (RssAnon) trend `
      + `${anonSlope.toFixed(1)} MB/min (at most ${slopeMbPerMinMax}), whole resident set trend `
      + `${rssSlope.toFixed(1)} MB/min` }
}

/** Every sample of every incarnation: own memory under its ceiling (the whole resident set reported). */
export function memoryUnderCeiling(samples: readonly RssSample[], anonMbMax: number): Check {
  const anonPeakMb = Math.max(0, ...samples.map((s) => mbOf(s.rssAnonBytes)))
  const rssPeakMb = Math.max(0, ...samples.map((s) => mbOf(s.rssBytes)))
  return { name: 'memory under its ceiling', ok: samples.length > 0 && anonPeakMb <= anonMbMax,
    detail: `own memory's (RssAnon) peak ${anonPeakMb.toFixed(0)} MB over ${samples.length} samples (at most `
      + `${anonMbMax}), the whole resident set's ${rssPeakMb.toFixed(0)} MB (page cache included)` }
}

function mbOf(bytes: number): number {
  return bytes / 2 ** 20
}

function longestIncarnation(samples: readonly RssSample[]): RssSample[] {
  const byIncarnation = new Map<number, RssSample[]>()
  for (const sample of samples) {
    const list = byIncarnation.get(sample.incarnation) ?? []
    list.push(sample)
    byIncarnation.set(sample.incarnation, list)
  }
  let longest: RssSample[] = []
  for (const list of byIncarnation.values()) {
    if ((list.at(-1)?.upMs ?? 0) > (longest.at(-1)?.upMs ?? 0)) longest = list
  }
  return longest
}
