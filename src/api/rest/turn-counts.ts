/**
 * Requests per client address in the current event-loop turn, for REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX.
 *
 * uWS parses every request of one read from one connection and runs their handlers back to back
 * in the same turn (poll phase); a `setImmediate` runs only once that phase is over, so it marks
 * the turn's end. uWS v20.30 gives JavaScript no connection identity (no remote port, a new
 * response object per request), hence the key is the client address: all its connections ready
 * in the same turn share the count.
 */
export class TurnCounts {
  private readonly counts = new Map<string, number>()
  private scheduled = false

  constructor(private readonly max: number) {}

  /** Counts one request of `address` in this turn: false once it is past the bound. */
  take(address: string): boolean {
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(() => {
        this.counts.clear()
        this.scheduled = false
      })
    }
    const count = (this.counts.get(address) ?? 0) + 1
    this.counts.set(address, count)
    return count <= this.max
  }
}
