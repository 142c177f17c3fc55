/**
 * keccak-256 (Ethereum's hash; not SHA3-256, which Node's OpenSSL has but pads differently).
 * From @noble/hashes: audited, pure JS, the same everywhere.
 */
import { keccak_256 } from '@noble/hashes/sha3.js'

export function keccak256(bytes: Uint8Array): Uint8Array {
  return keccak_256(bytes)
}

const encoder = new TextEncoder()

export function keccakOfText(text: string): Uint8Array {
  return keccak_256(encoder.encode(text))
}
