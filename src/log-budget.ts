/**
 * A bound on lines of one kind per window: the per-request refusal lines. Under a flood every
 * refusal wrote its own line, synchronously (pino to standard output), so the log grew with the
 * flood and the writing took the front end's thread from the requests it was refusing. Past
 * REFUSAL_LOG_LINES_PER_WINDOW lines in a window, lines are counted instead, and one warning at
 * the window's end says how many were not written; the metrics still count every request.
 */
import type { Log } from './log.js'
import { REFUSAL_LOG_LINES_PER_WINDOW, REFUSAL_LOG_WINDOW_MS } from './limits.js'

export interface LogBudgetOptions {
  /** What the lines are, in the report of those not written ('request refused'). */
  readonly what: string
  readonly linesPerWindowMax?: number
  readonly windowMs?: number
  /** A monotonic clock in ms (performance.now unless told). */
  readonly nowMs?: () => number
}

export class LogBudget {
  private windowStartMs = -Infinity
  private written = 0
  private dropped = 0
  private report: NodeJS.Timeout | null = null
  private readonly linesPerWindowMax: number
  private readonly windowMs: number
  private readonly nowMs: () => number

  constructor(private readonly log: Log, private readonly options: LogBudgetOptions) {
    this.linesPerWindowMax = options.linesPerWindowMax ?? REFUSAL_LOG_LINES_PER_WINDOW
    this.windowMs = options.windowMs ?? REFUSAL_LOG_WINDOW_MS
    this.nowMs = options.nowMs ?? (() => performance.now())
  }

  /** True when one more line may be written now; false counts it, for the window's report. */
  take(): boolean {
    const nowMs = this.nowMs()
    if (nowMs - this.windowStartMs >= this.windowMs) {
      this.windowStartMs = nowMs
      this.written = 0
    }
    if (this.written < this.linesPerWindowMax) {
      this.written++
      return true
    }
    this.dropped++
    if (this.report === null) {
      this.report = setTimeout(() => this.flush(), this.windowStartMs + this.windowMs - nowMs)
      this.report.unref() // a report must not keep a stopping process alive
    }
    return false
  }

  /** Writes the count of lines not written since the last report (the timer calls it; so may a stop). */
  flush(): void {
    if (this.report !== null) clearTimeout(this.report)
    this.report = null
    if (this.dropped === 0) return
    this.log.warn('log budget: lines not written', { what: this.options.what, dropped: this.dropped,
      linesPerWindowMax: this.linesPerWindowMax, windowMs: this.windowMs })
    this.dropped = 0
  }
}
