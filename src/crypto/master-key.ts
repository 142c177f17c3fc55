/**
 * The server's master key: 32 bytes from which every API key's secret and passphrase are derived
 * (derived-credential.ts), so that they need not be stored. Whoever holds it can compute every
 * credential, so it never leaves this object: no accessor for its bytes, and printing, logging or
 * serializing the object shows "[master key]" instead. Losing it makes every derived credential
 * unusable.
 */
import { createHmac, randomBytes } from 'node:crypto'
import { inspect } from 'node:util'

export const MASTER_KEY_BYTES = 32
const HEX = /^[0-9a-f]{64}$/
const HIDDEN = '[master key]'
/** Labels the key's fingerprint apart from every derived secret. */
const ID_LABEL = 'predex/master-key-id/v1'

export class MasterKey {
  readonly #bytes: Buffer

  private constructor(bytes: Buffer) {
    this.#bytes = bytes
  }

  static random(): MasterKey {
    return new MasterKey(randomBytes(MASTER_KEY_BYTES))
  }

  /** From 64 hex characters (any case, surrounding space ignored); null if it is not that. */
  static fromHex(text: string): MasterKey | null {
    const hex = text.trim().toLowerCase()
    return HEX.test(hex) ? new MasterKey(Buffer.from(hex, 'hex')) : null
  }

  /** HMAC-SHA256 of `message` under the key. */
  mac(message: string): Buffer {
    return createHmac('sha256', this.#bytes).update(message, 'utf8').digest()
  }

  /** A fingerprint that tells keys apart and reveals nothing of the key (an HMAC of a fixed label). */
  id(): string {
    return this.mac(ID_LABEL).toString('hex')
  }

  /** The text stored in the master-key file: for master-key-file.ts alone. */
  fileText(): string {
    return this.#bytes.toString('hex') + '\n'
  }

  toString(): string {
    return HIDDEN
  }

  toJSON(): string {
    return HIDDEN
  }

  [inspect.custom](): string {
    return HIDDEN
  }
}
