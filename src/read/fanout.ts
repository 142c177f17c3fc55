/**
 * The fan-out: where the engine's durable outcomes go, in one place and one order. Each batch
 * goes first to the read model (applied, then saved), then to every registered subscriber (the
 * WebSocket channels; gRPC streams register the same way), in registration order. So a
 * subscriber never tells a client about an event the read model does not have yet: a client
 * that reads after an event finds it.
 *
 * A subscriber that throws is logged and skipped for that batch; the others still get it, and
 * it stays registered (its next batch may succeed; a channel is not silently shut for good). The
 * read model is not shielded: if it cannot apply a durable batch, the error goes up to the host,
 * because a read model that missed events would answer wrong from then on.
 */
import type { EngineEvent } from '../engine/event.js'
import type { Outcome } from '../host/messages.js'
import type { Log } from '../log.js'

/** Where outcomes come from: the engine host. */
export interface OutcomeSource {
  /** Calls `listener` with each durable batch, in sequence order; returns the unsubscribe. */
  subscribe(listener: (outcomes: readonly Outcome[]) => void): () => void
}

/** The read model as the fan-out needs it. */
export interface Projection {
  apply(seq: number, events: readonly EngineEvent[], timeMs: number): void
}

/** A channel or stream that tells clients about outcomes, once the read model has them. */
export interface OutcomeSubscriber {
  publish(outcomes: readonly Outcome[]): void
}

export interface FanOutOptions {
  readonly source: OutcomeSource
  readonly read: Projection
  /** Persists the read model after each batch, soon rather than at once (ReadStore.saveSoon). */
  readonly save: () => void
  readonly log: Log
}

export class FanOut {
  private readonly subscribers = new Set<OutcomeSubscriber>()
  private readonly unsubscribeSource: () => void

  /** Starts at once: outcomes reach the read model from now on, subscribers from their registration. */
  constructor(private readonly options: FanOutOptions) {
    this.unsubscribeSource = options.source.subscribe((outcomes) => this.deliver(outcomes))
  }

  /** Adds `subscriber` after those already registered; returns its unsubscribe. */
  register(subscriber: OutcomeSubscriber): () => void {
    this.subscribers.add(subscriber)
    return () => void this.subscribers.delete(subscriber)
  }

  /** Stops taking outcomes from the source (shutdown). */
  close(): void {
    this.unsubscribeSource()
  }

  private deliver(outcomes: readonly Outcome[]): void {
    const { read, save, log } = this.options
    for (const outcome of outcomes) read.apply(outcome.seq, outcome.events, outcome.timeMs)
    save()
    // A batch goes to those registered when it arrived, whoever (un)registers while it goes round.
    for (const subscriber of [...this.subscribers]) {
      try {
        subscriber.publish(outcomes)
      } catch (error) {
        log.error('fan-out: a subscriber failed', { seqFirst: outcomes[0]?.seq, seqLast: outcomes.at(-1)?.seq,
          err: error })
      }
    }
  }
}
