/** Ethereum addresses: from public keys, normalised, and EIP-55 checksummed for display. */
import { bytesToHex } from '@noble/hashes/utils.js'
import { keccak256, keccakOfText } from './keccak.js'
import { isHexOfLength } from './hex.js'

/** The address of an uncompressed public key (65 bytes, 0x04 ‖ x ‖ y): 0x + lower-case hex. */
export function addressOfPublicKey(uncompressed: Uint8Array): string {
  if (uncompressed.length !== 65 || uncompressed[0] !== 0x04) throw new RangeError('an uncompressed public key')
  return '0x' + bytesToHex(keccak256(uncompressed.subarray(1)).subarray(12))
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
