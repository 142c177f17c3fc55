/** SHA-256 for the engine's state hash: a pure function of the bytes (@noble/hashes, no I/O). */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'

export function sha256Hex(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes))
}
