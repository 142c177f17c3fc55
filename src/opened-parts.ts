/**
 * What a start has opened so far, to close in reverse order when a later step fails: a start
 * that cannot finish leaves nothing running (no port still served, no journal still open, no
 * thread keeping the process alive). A part that fails to close is logged, and the rest still close.
 */
import type { Log } from './log.js'

export class OpenedParts {
  private readonly closers: (() => unknown)[] = []

  constructor(private readonly log: Log) {}

  add(close: () => unknown): void {
    this.closers.push(close)
  }

  async closeAll(): Promise<void> {
    for (let close = this.closers.pop(); close !== undefined; close = this.closers.pop()) {
      try {
        await close()
      } catch (error) {
        this.log.error('failed start: closing a part failed', { err: error })
      }
    }
  }
}
