/**
 * Budgets per client address of the gRPC port (GRPC_CONNECT_RULE, GRPC_RESET_RULE,
 * GRPC_REFLECTION_RULE): token buckets in one bounded table (GRPC_ADDRESSES_TRACKED_MAX
 * addresses, least recently used forgotten first, so a flood of addresses forgets rather than
 * grows), on the monotonic clock. Unlike the request budgets of the gate, these hold whatever
 * --rate-limits says: they bound the transport's work, as the stream backlogs do.
 */
import { RateLimiter } from '../../auth/rate-limit.js'
import { GRPC_ADDRESSES_TRACKED_MAX, type RateRule } from '../../limits.js'

export class AddressBudgets {
  private readonly limiter = new RateLimiter(GRPC_ADDRESSES_TRACKED_MAX)

  /** `nowMs`: the monotonic clock (the gate's: a test's clock moves only when the test says so). */
  constructor(private readonly nowMs: () => number = () => performance.now()) {}

  /** Takes one from `address`'s budget `name` under `rule`: null when allowed, else the seconds to wait. */
  take(name: string, rule: RateRule, address: string): number | null {
    return this.limiter.take(`${name} ${address}`, rule, this.nowMs())
  }
}
