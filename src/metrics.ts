/**
 * Prometheus metrics in text format, hand-rolled (a handful of series): requests by route and
 * status with a latency histogram, plus gauges the server reads at scrape time (engine seq,
 * queue depths).
 */
const BUCKETS_MS = [0.5, 1, 2, 5, 10, 25, 50, 100, 250, 1000]

interface RouteSeries {
  readonly counts: Map<number, number>
  readonly buckets: number[]
  sumMs: number
  count: number
}

export class Metrics {
  private readonly routes = new Map<string, RouteSeries>()
  private readonly gauges = new Map<string, { help: string; read: () => number }>()
  private readonly commit: RouteSeries = { counts: new Map(), buckets: BUCKETS_MS.map(() => 0), sumMs: 0, count: 0 }

  observe(route: string, status: number, ms: number): void {
    let series = this.routes.get(route)
    if (series === undefined) {
      series = { counts: new Map(), buckets: BUCKETS_MS.map(() => 0), sumMs: 0, count: 0 }
      this.routes.set(route, series)
    }
    series.counts.set(status, (series.counts.get(status) ?? 0) + 1)
    for (let i = 0; i < BUCKETS_MS.length; i++) if (ms <= BUCKETS_MS[i]!) series.buckets[i]!++
    series.sumMs += ms
    series.count++
  }

  /**
   * Time from submitting a command to its acknowledgement, which the host releases only after
   * the journal's group commit: the journal commit latency as the front end sees it.
   */
  observeCommit(ms: number): void {
    const series = this.commit
    for (let i = 0; i < BUCKETS_MS.length; i++) if (ms <= BUCKETS_MS[i]!) series.buckets[i]!++
    series.sumMs += ms
    series.count++
  }

  gauge(name: string, help: string, read: () => number): void {
    this.gauges.set(name, { help, read })
  }

  /** The text format; `counters` are read at scrape time by the caller (e.g. commands applied). */
  text(counters: readonly { name: string; help: string; value: number }[] = []): string {
    const lines = ['# HELP predex_http_requests_total HTTP requests by route and status.',
      '# TYPE predex_http_requests_total counter']
    for (const [route, series] of this.routes) {
      for (const [status, count] of series.counts) {
        lines.push(`predex_http_requests_total{route="${route}",status="${status}"} ${count}`)
      }
    }
    lines.push('# HELP predex_http_request_duration_ms Time from request to reply.',
      '# TYPE predex_http_request_duration_ms histogram')
    for (const [route, series] of this.routes) {
      BUCKETS_MS.forEach((le, i) =>
        lines.push(`predex_http_request_duration_ms_bucket{route="${route}",le="${le}"} ${series.buckets[i]}`))
      lines.push(`predex_http_request_duration_ms_bucket{route="${route}",le="+Inf"} ${series.count}`)
      lines.push(`predex_http_request_duration_ms_sum{route="${route}"} ${series.sumMs.toFixed(3)}`)
      lines.push(`predex_http_request_duration_ms_count{route="${route}"} ${series.count}`)
    }
    for (const [name, gauge] of this.gauges) {
      lines.push(`# HELP ${name} ${gauge.help}`, `# TYPE ${name} gauge`, `${name} ${gauge.read()}`)
    }
    for (const counter of counters) {
      lines.push(`# HELP ${counter.name} ${counter.help}`, `# TYPE ${counter.name} counter`,
        `${counter.name} ${counter.value}`)
    }
    const commit = 'predex_journal_commit_latency_ms'
    lines.push(`# HELP ${commit} Time from submitting a command to its acknowledgement, `
      + "released after the journal's group commit.",
      `# TYPE ${commit} histogram`)
    BUCKETS_MS.forEach((le, i) => lines.push(`${commit}_bucket{le="${le}"} ${this.commit.buckets[i]}`))
    lines.push(`${commit}_bucket{le="+Inf"} ${this.commit.count}`, `${commit}_sum ${this.commit.sumMs.toFixed(3)}`,
      `${commit}_count ${this.commit.count}`)
    return lines.join('\n') + '\n'
  }
}
