/**
 * Where a test puts a block of fixed ports (the local cluster's: `npm run cluster:local --
 * --base-port P` takes P .. P + 32): below the kernel's ephemeral range, which `listen(0)` and
 * every outgoing connection draw from. A block inside it could be taken between the test's check
 * and the cluster's bind by any test running beside it: a fresh-clone CI run failed so on
 * 2026-12-01 (port 51620 of the block was in use when the primary bound it).
 */
import { readFileSync } from 'node:fs'

/** The lowest port the block may use. */
export const PORT_BLOCK_FIRST = 10_000
/** Blocks start at multiples of this from PORT_BLOCK_FIRST. */
const BLOCK_STEP = 100

/** The first port of the kernel's ephemeral range (Linux's /proc; 32 768, its default, where it cannot be read). */
export function ephemeralPortFirst(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    return Number.isInteger(first) && first > PORT_BLOCK_FIRST ? first : 32_768
  } catch {
    return 32_768
  }
}

/**
 * A block's first port for `random` in [0, 1): a multiple of BLOCK_STEP from PORT_BLOCK_FIRST whose
 * `blockPorts` ports all lie below `ephemeralFirst`.
 */
export function portBlockBase(random: number, blockPorts: number, ephemeralFirst: number = ephemeralPortFirst()): number {
  const blocks = Math.floor((ephemeralFirst - blockPorts - PORT_BLOCK_FIRST) / BLOCK_STEP)
  if (blocks < 1) throw new Error(`no room for ${blockPorts} ports below the ephemeral range (${ephemeralFirst})`)
  return PORT_BLOCK_FIRST + BLOCK_STEP * Math.floor(random * blocks)
}
