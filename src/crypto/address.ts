/** Ethereum addresses: from public keys, normalised, and EIP-55 checksummed for display. */
import { bytesToHex } from '@noble/hashes/utils.js'
import { KECCAK_LAYOUT, KECCAK_OUTPUT_AT, keccak256, keccakModule, keccakOfText, padKeccakMessage } from './keccak.js'
import { isHexOfLength } from './hex.js'

/** A public key's 64 bytes in the keccak module's memory, padded once (keccak.ts, KECCAK_LAYOUT). */
const PUBLIC_KEY_AT = KECCAK_LAYOUT.publicKey
const publicKeyBlocks = keccakModule === null ? 0 : padKeccakMessage(keccakModule.memory, PUBLIC_KEY_AT, 64)
/** Each byte's two lower-case hex digits. */
const HEX_PAIRS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

/** The address of an uncompressed public key (65 bytes, 0x04 ‖ x ‖ y): 0x + lower-case hex. */
export function addressOfPublicKey(uncompressed: Uint8Array): string {
  if (uncompressed.length !== 65 || uncompressed[0] !== 0x04) throw new RangeError('an uncompressed public key')
  if (keccakModule === null) return '0x' + bytesToHex(keccak256(uncompressed.subarray(1)).subarray(12))
  const memory = keccakModule.memory
  memory.set(uncompressed.subarray(1), PUBLIC_KEY_AT)
  keccakModule.absorb(PUBLIC_KEY_AT, publicKeyBlocks, KECCAK_OUTPUT_AT)
  let address = '0x'
  for (let i = KECCAK_OUTPUT_AT + 12; i < KECCAK_OUTPUT_AT + 32; i++) address += HEX_PAIRS[memory[i]!]!
  return address
}

export function isAddress(text: unknown): text is string {
  return typeof text === 'string' && isHexOfLength(text, 20)
}

/** Lower-case: the one form addresses are compared and stored in. */
export function normalAddress(address: string): string {
  return address.toLowerCase()
}

/** EIP-55 mixed-case checksum form, as wallets show addresses. */
export function checksumAddress(address: string): string {
  const lower = address.toLowerCase().slice(2)
  const hash = bytesToHex(keccakOfText(lower))
  let out = '0x'
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!
  return out
}
