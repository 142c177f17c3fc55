/**
 * Identifiers the engine makes. They derive from the command's sequence number only, so a
 * replay makes the same ones (no randomness in the engine).
 */
import { assert } from '../stdx/assert.js'

/**
 * The id of the k-th trade (from 0) of the command with sequence number `seq`, shaped as a
 * UUID (version 8, "custom") because Polymarket's trade ids are UUIDs and clients store them so:
 * `sssssss s-ssss-8kkk-8kkk-kkkkkkkkkkkk` with 48 bits of seq and 32 bits of k in hex.
 */
export function tradeIdOf(seq: number, k: number): string {
  assert(Number.isSafeInteger(k) && k >= 0 && k < 2 ** 32, 'trade index in range')
  return seqPrefixOf(seq) + (k < SUFFIXES_CACHED ? (suffixes[k] ??= suffixOf(k)) : suffixOf(k))
}

// The k part: a command makes a few trades, so the suffixes of small k are formatted once per
// process (formatting them showed up in profiles at about 5 % of the engine's time).
const SUFFIXES_CACHED = 1024
const suffixes: string[] = []

function suffixOf(k: number): string {
  const t = k.toString(16).padStart(8, '0')
  return `-8${t.slice(0, 3)}-8${t.slice(3, 6)}-${t.slice(6, 8)}0000000000`
}

// The seq part is the same for every trade of a command: format it once per command.
let cachedSeq = -1
let cachedPrefix = ''

function seqPrefixOf(seq: number): string {
  if (seq === cachedSeq) return cachedPrefix
  assert(Number.isSafeInteger(seq) && seq >= 0 && seq < 2 ** 48, 'trade seq in range')
  const s = seq.toString(16).padStart(12, '0')
  cachedSeq = seq
  cachedPrefix = `${s.slice(0, 8)}-${s.slice(8, 12)}`
  return cachedPrefix
}
