/**
 * A sweep that runs every `intervalMs` while there is something to sweep: armed by whoever adds
 * to a table, it stops once a sweep leaves the table empty, so an idle table costs no timer. The
 * timer never keeps a stopping process alive.
 */
export class SweepTimer {
  private timer: NodeJS.Timeout | null = null

  /** `sweep`: sweeps the table and answers the entries left. */
  constructor(private readonly sweep: () => number, private readonly intervalMs: number) {}

  /** Makes sure a sweep is due (cheap when one already is). */
  arm(): void {
    if (this.timer !== null) return
    this.timer = setTimeout(() => this.run(), this.intervalMs)
    this.timer.unref()
  }

  private run(): void {
    this.timer = null
    if (this.sweep() > 0) this.arm()
  }
}
