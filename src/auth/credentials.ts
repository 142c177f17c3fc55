/**
 * API credentials: created or derived by an L1-authenticated wallet, listed and deleted with L2.
 * They are engine state (registerApiKey / revokeApiKey commands), so they are journaled and
 * survive restarts, and a new key is usable as soon as its command is acknowledged. This store
 * keeps a copy on the front end's thread for the per-request HMAC check: loaded from the engine
 * at start, then kept in step by every change made through it (the only path that changes keys).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import type { EngineHost } from '../host/engine-host.js'
import type { ApiCredential } from './l2.js'

/** One credential per (address, nonce), as Polymarket derives them. */
function slotOf(address: string, nonce: number): string {
  return `${address}/${nonce}`
}

export class CredentialStore {
  private readonly byKey = new Map<string, ApiCredential>()
  private readonly bySlot = new Map<string, string>()

  private constructor(private readonly host: EngineHost) {}

  static async load(host: EngineHost): Promise<CredentialStore> {
    const store = new CredentialStore(host)
    const answer = await host.query({ kind: 'apiKeys' })
    if (answer.kind !== 'apiKeys') throw new Error('unexpected answer to apiKeys')
    for (const credential of answer.keys) store.remember(credential)
    return store
  }

  /** Live credentials. */
  get size(): number {
    return this.byKey.size
  }

  lookup(apiKey: string): ApiCredential | undefined {
    return this.byKey.get(apiKey)
  }

  /** The credential of (address, nonce), if it exists. */
  derive(address: string, nonce: number): ApiCredential | undefined {
    const apiKey = this.bySlot.get(slotOf(address, nonce))
    return apiKey === undefined ? undefined : this.byKey.get(apiKey)
  }

  /**
   * Creates the credential of (address, nonce), or returns the existing one: create-or-derive in
   * one idempotent call (reliability-anchors.md, section 3, item 8). Resolves once durable.
   */
  async create(address: string, nonce: number): Promise<ApiCredential> {
    const existing = this.derive(address, nonce)
    if (existing !== undefined) return existing
    const credential: ApiCredential = {
      apiKey: randomUUID(),
      address,
      // 32 random bytes, url-safe base64 with its padding (44 characters), as the reference says.
      secret: randomBytes(32).toString('base64').replace(/\+/g, '-').replace(/\//g, '_'),
      passphrase: randomBytes(32).toString('hex'),
      nonce,
    }
    const { result } = await this.host.submit({ kind: 'registerApiKey', ...credential })
    if (!result.ok) {
      // Another request created it meanwhile: derive wins.
      const raced = this.derive(address, nonce)
      if (raced !== undefined) return raced
      throw new Error(`the engine refused the API key: ${result.code}`)
    }
    this.remember(credential)
    return credential
  }

  /** The keys of an address. */
  keysOf(address: string): ApiCredential[] {
    return [...this.byKey.values()].filter((credential) => credential.address === address)
  }

  async revoke(apiKey: string): Promise<boolean> {
    const credential = this.byKey.get(apiKey)
    if (credential === undefined) return false
    const { result } = await this.host.submit({ kind: 'revokeApiKey', apiKey })
    if (!result.ok) return false
    this.byKey.delete(apiKey)
    this.bySlot.delete(slotOf(credential.address, credential.nonce))
    return true
  }

  private remember(credential: ApiCredential): void {
    this.byKey.set(credential.apiKey, credential)
    this.bySlot.set(slotOf(credential.address, credential.nonce), credential.apiKey)
  }
}
