/**
 * API keys' revocations, told to whoever holds a session of the key (the gRPC order-entry
 * sessions): the durable `apiKey` revoked events, read from the fan-out here once, so that no
 * face scans engine events. A watch lasts until the key is revoked or its holder unwatches (the
 * session ended): the watches are as many as the open sessions, which GRPC_STREAMS_PER_KEY_MAX
 * bounds per key.
 */
import type { Outcome } from '../../host/messages.js'
import type { OutcomeSubscriber } from '../../read/fanout.js'

export class KeyRevocations implements OutcomeSubscriber {
  /** API key -> what to call when it is revoked. */
  private readonly watchers = new Map<string, Set<() => void>>()

  publish(outcomes: readonly Outcome[]): void {
    for (const outcome of outcomes) {
      for (const event of outcome.events) {
        if (event.type !== 'apiKey' || event.action !== 'revoked') continue
        const watchers = this.watchers.get(event.apiKey)
        if (watchers === undefined) continue
        this.watchers.delete(event.apiKey)
        for (const revoked of watchers) revoked()
      }
    }
  }

  /** Calls `revoked` once, when `apiKey` is revoked; returns the unwatch. */
  watch(apiKey: string, revoked: () => void): () => void {
    const watchers = this.watchers.get(apiKey) ?? new Set<() => void>()
    this.watchers.set(apiKey, watchers)
    // A function of its own per watch: two sessions handing the same callback stay two watches.
    const watcher = (): void => revoked()
    watchers.add(watcher)
    return () => {
      watchers.delete(watcher)
      if (watchers.size === 0 && this.watchers.get(apiKey) === watchers) this.watchers.delete(apiKey)
    }
  }

  /** Keys watched now (for the bound's test). */
  get keysWatched(): number {
    return this.watchers.size
  }
}
