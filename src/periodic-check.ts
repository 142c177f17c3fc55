/**
 * A check run every `intervalMs` while started, on a timer that never keeps a stopping process
 * alive: what the process's memory watches share (external-memory-watch.ts, heap-slack-watch.ts).
 */
export abstract class PeriodicCheck {
  private timer: NodeJS.Timeout | null = null

  constructor(private readonly intervalMs: number) {}

  /** One check (the timer calls it; tests call it directly). */
  abstract check(): void

  start(): void {
    if (this.timer !== null) return
    this.timer = setInterval(() => this.check(), this.intervalMs)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
  }
}
