/**
 * Bounds on long-lived streams, shared by the order-entry sessions and the server streams: at most
 * `max` open at once per subject (an API key, or a client address for public streams), over all
 * connections (grpc-js bounds the streams of one connection: GRPC_STREAMS_PER_CONNECTION_MAX). A
 * stream takes a slot when it opens and gives it back exactly once when it ends.
 */
import { ApiCode, PredexError } from '../../errors.js'

export class StreamSlots {
  private readonly openBySubject = new Map<string, number>()

  constructor(private readonly what: string, private readonly max: number) {}

  /** Takes a slot of `subject`, or throws TOO_MANY_STREAMS; returns the release (idempotent). */
  take(subject: string): () => void {
    const open = this.openBySubject.get(subject) ?? 0
    if (open >= this.max) {
      throw new PredexError(ApiCode.TOO_MANY_STREAMS, `too many ${this.what} open at once (at most ${this.max})`,
        { max: this.max })
    }
    this.openBySubject.set(subject, open + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = this.openBySubject.get(subject)! - 1
      if (left === 0) this.openBySubject.delete(subject)
      else this.openBySubject.set(subject, left)
    }
  }

  openOf(subject: string): number {
    return this.openBySubject.get(subject) ?? 0
  }
}
