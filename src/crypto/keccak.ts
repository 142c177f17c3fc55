/**
 * keccak-256 (Ethereum's hash; not SHA3-256, which Node's OpenSSL has but pads differently).
 * In WebAssembly (keccak-wasm.ts) when it compiles here, which it does wherever Node runs: about
 * six times the speed of @noble/hashes on the few blocks an order's digest needs, and without an
 * allocation per permutation. noble (audited, pure JS) is the fallback and the reference the tests
 * compare against.
 */
import { keccak_256 } from '@noble/hashes/sha3.js'
import { KECCAK_MEMORY_BYTES, KECCAK_MEMORY_FREE_AT, KECCAK_RATE_BYTES, loadKeccakModule, type KeccakModule }
  from './keccak-wasm.js'

const loaded = loadKeccakModule()

/** The WebAssembly sponge, or null when it did not compile (then everything hashes with noble). */
export const keccakModule: KeccakModule | null = typeof loaded === 'string' ? null : loaded
/** Which implementation hashes on this thread. */
export const KECCAK_BACKEND: 'wasm' | 'noble' = keccakModule === null ? 'noble' : 'wasm'

/** Where keccak256 leaves its digest in the module's memory (32 bytes). */
export const KECCAK_OUTPUT_AT = KECCAK_MEMORY_FREE_AT
/**
 * Where the fixed layouts start, each padded once by its owner: an order's digest input
 * (0x1901 ‖ domain separator ‖ struct hash, one block), a V1 order (13 words, four blocks) and a
 * V2 order (12 words, three blocks), in eip712.ts; a public key (64 bytes, one block), in address.ts.
 */
export const KECCAK_LAYOUT = {
  digest: KECCAK_OUTPUT_AT + 64,
  orderV1: 512,
  orderV2: 1088,
  publicKey: 1536,
} as const
/** Where keccak256 copies an input of any length; longer inputs than fit go to noble. */
const KECCAK_GENERAL_AT = 4096
/** The bytes of each layout: its messages, padded. */
const LAYOUT_BYTES = { digest: 66, orderV1: 13 * 32, orderV2: 12 * 32, publicKey: 64 } as const

function checkLayouts(): void {
  const regions = Object.entries(KECCAK_LAYOUT).map(([name, at]) =>
    ({ name, at, end: at + keccakBlocksOf(LAYOUT_BYTES[name as keyof typeof KECCAK_LAYOUT]) * KECCAK_RATE_BYTES }))
  regions.push({ name: 'general', at: KECCAK_GENERAL_AT, end: KECCAK_MEMORY_BYTES })
  regions.sort((a, b) => a.at - b.at)
  if (regions[0]!.at < KECCAK_OUTPUT_AT + 32) throw new Error('a keccak layout overlaps the output')
  for (let i = 1; i < regions.length; i++) {
    const [before, after] = [regions[i - 1]!, regions[i]!]
    if (before.end > after.at) throw new Error(`keccak layouts ${before.name} and ${after.name} overlap`)
  }
}
checkLayouts()
const KECCAK_GENERAL_BYTES_MAX = KECCAK_MEMORY_BYTES - KECCAK_GENERAL_AT - KECCAK_RATE_BYTES

/** The blocks a message of `length` bytes pads to (keccak's pad10*1 takes at least one byte). */
export function keccakBlocksOf(length: number): number {
  return Math.floor(length / KECCAK_RATE_BYTES) + 1
}

/**
 * Writes keccak's padding after a message of `length` bytes at `at` in `memory`: zeros to the end
 * of its last block, with 0x01 just after the message and 0x80 in the last byte (one byte 0x81 when
 * they coincide). Returns the number of blocks.
 */
export function padKeccakMessage(memory: Uint8Array, at: number, length: number): number {
  const blocks = keccakBlocksOf(length)
  const end = at + blocks * KECCAK_RATE_BYTES
  memory.fill(0, at + length, end)
  memory[at + length] = 0x01
  memory[end - 1]! |= 0x80
  return blocks
}

export function keccak256(bytes: Uint8Array): Uint8Array {
  if (keccakModule === null || bytes.length > KECCAK_GENERAL_BYTES_MAX) return keccak_256(bytes)
  const memory = keccakModule.memory
  memory.set(bytes, KECCAK_GENERAL_AT)
  keccakModule.absorb(KECCAK_GENERAL_AT, padKeccakMessage(memory, KECCAK_GENERAL_AT, bytes.length), KECCAK_OUTPUT_AT)
  return memory.slice(KECCAK_OUTPUT_AT, KECCAK_OUTPUT_AT + 32)
}

/** noble's keccak-256: the reference (tests) and the fallback. */
export function nobleKeccak256(bytes: Uint8Array): Uint8Array {
  return keccak_256(bytes)
}

const encoder = new TextEncoder()

export function keccakOfText(text: string): Uint8Array {
  return keccak256(encoder.encode(text))
}
