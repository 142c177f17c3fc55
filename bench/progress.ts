/**
 * The suite's progress on stderr, between the workloads' own lines: which workload, [i/n], how long
 * it has run, and an estimate of the time left. The estimate starts from the expected durations
 * below and is scaled by how the finished workloads compared with theirs (a loaded machine runs
 * everything slower), so it is an estimate and says so.
 */

/**
 * Seconds each workload took in the suite on the 2-core machine the repository is measured on.
 * Quick: measured, `npm run bench -- --quick` on 2026-12-01 (two runs, load average about 3);
 * bench:grpc signs about 190 000 orders before its phases, most of its time. Full: not measured
 * yet, the quick figures scaled by each workload's longer phases and more runs. Update both from a
 * run's report (its workloads table).
 */
export const EXPECTED_SECONDS: Readonly<Record<string, { readonly quick: number; readonly full: number }>> = {
  engine: { quick: 30, full: 150 },
  host: { quick: 90, full: 600 },
  sig: { quick: 25, full: 110 },
  rest: { quick: 45, full: 160 },
  grpc: { quick: 135, full: 330 },
}

const TICK_SECONDS = 15
const SCALE_PRIOR_SECONDS = 60

export function formatSeconds(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds))
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`
}

export class SuiteProgress {
  private readonly startedMs = Date.now()
  private currentIndex = -1
  private currentStartedMs = 0
  private doneSeconds = 0
  private doneExpectedSeconds = 0
  private timer: NodeJS.Timeout | null = null

  constructor(private readonly names: readonly string[], private readonly quick: boolean,
    private readonly log: (line: string) => void) {}

  /** The first line of workload `index`; then a progress line every TICK_SECONDS while it runs. */
  start(index: number, title: string): void {
    this.currentIndex = index
    this.currentStartedMs = Date.now()
    this.log(`\n=== [${index + 1}/${this.names.length}] ${title}: expected about ` +
      `${formatSeconds(this.expected(index) * this.scale())}; ${this.left()} ===`)
    this.timer = setInterval(() => this.log(`--- ${this.status()} ---`), TICK_SECONDS * 1000)
    this.timer.unref()
  }

  /** Records the workload's time (which scales the estimate for the rest) and prints it. */
  finish(ok: boolean): number {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    const seconds = (Date.now() - this.currentStartedMs) / 1000
    this.doneSeconds += seconds
    this.doneExpectedSeconds += this.expected(this.currentIndex)
    this.log(`=== [${this.currentIndex + 1}/${this.names.length}] ${this.names[this.currentIndex]} ` +
      `${ok ? 'done' : 'FAILED'} in ${formatSeconds(seconds)}; ` +
      `suite ${formatSeconds(this.elapsedSeconds())} so far ===`)
    return seconds
  }

  elapsedSeconds(): number {
    return (Date.now() - this.startedMs) / 1000
  }

  /** "[2/5] host: 35 s elapsed; about 2 min 10 s left in the suite (estimate)". */
  status(): string {
    const elapsed = (Date.now() - this.currentStartedMs) / 1000
    const name = this.names[this.currentIndex]
    return `[${this.currentIndex + 1}/${this.names.length}] ${name}: ${formatSeconds(elapsed)} elapsed; ${this.left()}`
  }

  /** Time left: the rest of this workload's expected time (none once overrun) and all later ones', scaled. */
  private left(): string {
    const elapsed = this.currentIndex < 0 ? 0 : (Date.now() - this.currentStartedMs) / 1000
    const scale = this.scale()
    const currentExpected = this.expected(this.currentIndex) * scale
    let seconds = Math.max(0, currentExpected - elapsed)
    for (let i = this.currentIndex + 1; i < this.names.length; i++) seconds += this.expected(i) * scale
    const soFar = formatSeconds(this.elapsedSeconds())
    const overrun = this.currentIndex >= 0 && elapsed > currentExpected
      ? `; ${this.names[this.currentIndex]} is past its expected ${formatSeconds(currentExpected)}` : ''
    return `about ${formatSeconds(seconds)} left in the suite (estimate, ${soFar} so far${overrun})`
  }

  private expected(index: number): number {
    const row = EXPECTED_SECONDS[this.names[index] ?? '']
    return row === undefined ? 60 : this.quick ? row.quick : row.full
  }

  /**
   * Finished workloads' time over their expected time, starting from a minute's worth of 1 (so a
   * short first workload that ran 8 s late does not make everything after it 40 % longer) and
   * bounded: one odd workload should not swing it far.
   */
  private scale(): number {
    const ratio = (this.doneSeconds + SCALE_PRIOR_SECONDS) / (this.doneExpectedSeconds + SCALE_PRIOR_SECONDS)
    return Math.min(3, Math.max(0.5, ratio))
  }
}
