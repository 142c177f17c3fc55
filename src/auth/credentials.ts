/**
 * API credentials: created or derived by an L1-authenticated wallet, listed and deleted with L2.
 * They are engine state (registerApiKey / revokeApiKey commands), so they are journaled and
 * survive restarts, and a new key is usable as soon as its command is acknowledged. This store
 * keeps a copy on the front end's thread for the per-request HMAC check: loaded from the engine
 * at start, then kept in step with the engine's key events. On a primary every change is also
 * made through this store, which remembers it before answering; a standby or a read replica
 * applies the primary's commands, and the events alone tell it (a key made on the primary was
 * unknown on the standby that took over: test/replication/clob-session.test.ts).
 * A key's secret and passphrase are derived from the master key (derived-credential.ts), so only
 * the key's id, owner and nonce are journaled; this store computes the two at load and at create
 * and holds them in memory alone. Keys journaled in clear by older servers keep their stored two.
 */
import { randomUUID } from 'node:crypto'
import type { EngineHost } from '../host/engine-host.js'
import type { Outcome } from '../host/messages.js'
import type { ApiKeyEntry } from '../host/query.js'
import { derivedCredential } from './derived-credential.js'
import type { ApiCredential } from './l2.js'
import type { MasterKey } from '../crypto/master-key.js'

/** One credential per (address, nonce), as Polymarket derives them. */
function slotOf(address: string, nonce: number): string {
  return `${address}/${nonce}`
}

export class CredentialStore {
  private readonly byKey = new Map<string, ApiCredential>()
  private readonly bySlot = new Map<string, string>()

  private constructor(private readonly host: EngineHost, private readonly master: MasterKey) {}

  static async load(host: EngineHost, master: MasterKey): Promise<CredentialStore> {
    const store = new CredentialStore(host, master)
    // Subscribed before the load: a key event comes either before the answer (and the load has
    // it) or after; seen twice, it changes nothing.
    host.subscribe((outcomes) => store.follow(outcomes))
    await host.eventsFlowing()
    const answer = await host.query({ kind: 'apiKeys' })
    if (answer.kind !== 'apiKeys') throw new Error('unexpected answer to apiKeys')
    for (const entry of answer.keys) store.remember(store.credentialOf(entry))
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
    // A random id: a key revoked and created again for this (address, nonce) derives new secrets.
    const credential = derivedCredential(this.master, { apiKey: randomUUID(), address, nonce })
    // Empty secret and passphrase: derived, so nothing of them is journaled.
    const { result } = await this.host.submit({ kind: 'registerApiKey', apiKey: credential.apiKey, address, nonce,
      secret: '', passphrase: '' })
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
    this.forget(apiKey)
    return true
  }

  /**
   * The engine's key events, in order: keys made or revoked by any node's commands. A key made
   * since secrets are derived is derived here; keys older servers journaled in clear come from
   * the load at start (their commands predate any replicated stream).
   */
  private follow(outcomes: readonly Outcome[]): void {
    for (const outcome of outcomes) {
      for (const event of outcome.events) {
        if (event.type !== 'apiKey') continue
        if (event.action === 'revoked') this.forget(event.apiKey)
        else if (!this.byKey.has(event.apiKey)) this.remember(this.credentialOf({ ...event, stored: null }))
      }
    }
  }

  private forget(apiKey: string): void {
    const credential = this.byKey.get(apiKey)
    if (credential === undefined) return
    this.byKey.delete(apiKey)
    this.bySlot.delete(slotOf(credential.address, credential.nonce))
  }

  /** The credential of a journaled key: derived, or as an older server stored it. */
  private credentialOf(entry: ApiKeyEntry): ApiCredential {
    const { apiKey, address, nonce, stored } = entry
    if (stored === null) return derivedCredential(this.master, { apiKey, address, nonce })
    return { apiKey, address, nonce, ...stored }
  }

  private remember(credential: ApiCredential): void {
    this.byKey.set(credential.apiKey, credential)
    this.bySlot.set(slotOf(credential.address, credential.nonce), credential.apiKey)
  }
}
