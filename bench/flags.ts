/**
 * The command-line flags every benchmark shares: `--quick` (the short form), `--json` (the last
 * stdout line is a JSON object), and numeric flags checked at once, so a typo stops the run with
 * a message instead of measuring with NaN.
 */
export class BenchFlags {
  readonly quick: boolean
  readonly json: boolean

  constructor(private readonly argv: readonly string[] = process.argv.slice(2)) {
    this.quick = argv.includes('--quick')
    this.json = argv.includes('--json')
  }

  /** A positive number after `flag` (seconds may be fractional), or `fallback`. */
  number(flag: string, fallback: number): number {
    const index = this.argv.indexOf(flag)
    if (index < 0) return fallback
    const value = Number(this.argv[index + 1])
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${flag} needs a positive number`)
    return value
  }

  /** A positive integer after `flag`, or `fallback`. */
  integer(flag: string, fallback: number): number {
    const value = this.number(flag, fallback)
    if (!Number.isSafeInteger(value)) throw new Error(`${flag} needs a positive integer`)
    return value
  }

  /** A comma-separated list after `flag`, or null when absent. */
  list(flag: string): string[] | null {
    const index = this.argv.indexOf(flag)
    return index < 0 ? null : (this.argv[index + 1] ?? '').split(',').filter((item) => item !== '')
  }
}
