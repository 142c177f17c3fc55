/**
 * Writes the report's charts into their folder beside it: the targets as bars, then for each
 * workload that handed over `series` (bench/series.ts) a histogram per latency figure and one
 * throughput-over-time chart with all its timelines. Returns the links, relative to the report.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { histogramChart, targetChart, timelineChart } from './charts.js'
import type { LatencyHistogram, Timeline, WorkloadSeries } from './series.js'
import type { ChartLinks, SuiteRun } from './suite-report.js'

/** A file name from a label: lower case, letters and digits, dashes between. */
export function slug(label: string): string {
  return label.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40).replace(/-$/, '') || 'chart'
}

function seriesOf(figures: Readonly<Record<string, unknown>>): WorkloadSeries | null {
  const series = figures.series as Partial<WorkloadSeries> | undefined
  if (series === undefined || series === null || typeof series !== 'object') return null
  const histograms = Array.isArray(series.histograms) ? series.histograms as LatencyHistogram[] : []
  const timelines = Array.isArray(series.timelines) ? series.timelines as Timeline[] : []
  return { histograms, timelines }
}

/**
 * Writes the charts of `run` into `dir` (created), named `<workload>-...svg`; `linkPrefix` is the
 * folder as the report links it (e.g. "2026-11-24-host").
 */
export function writeCharts(run: SuiteRun, dir: string, linkPrefix: string): ChartLinks {
  mkdirSync(dir, { recursive: true })
  // A second run on the same day replaces the first's charts; names carry rates, so old ones would linger.
  for (const name of readdirSync(dir)) if (name.endsWith('.svg')) rmSync(join(dir, name))
  const write = (name: string, svg: string): string => {
    writeFileSync(join(dir, name), svg)
    return `${linkPrefix}/${name}`
  }
  const bars = run.targets.filter((c) => c.target.threshold !== null && c.verdict !== 'not run').map((c) => ({
    label: c.target.label.length > 60 ? c.target.label.slice(0, 58) + '...' : c.target.label,
    fractionOfTarget: c.fractionOfTarget, met: c.verdict === 'met' ? true : c.verdict === 'NOT met' ? false : null,
    measuredText: c.verdict === 'not measured' ? c.thresholdText : `${c.measuredText} (target ${c.thresholdText})`,
  }))
  const targets = bars.length === 0 ? null : write('targets.svg', targetChart(`Targets: ${run.date}, ` +
    `${run.machine.cores} cores, Node ${run.machine.node}`, bars))
  const byWorkload: Record<string, { title: string; path: string }[]> = {}
  for (const workload of run.workloads) {
    const series = seriesOf(workload.figures)
    if (series === null) continue
    const links: { title: string; path: string }[] = []
    const used = new Set<string>()
    for (const histogram of series.histograms) {
      let name = `${workload.name}-latency-${slug(histogram.label)}`
      while (used.has(name)) name += '-2'
      used.add(name)
      const title = `${workload.name}: ${histogram.label}`
      const path = write(`${name}.svg`, histogramChart(title, histogram))
      links.push({ title: `latency histogram, ${histogram.label}`, path })
    }
    if (series.timelines.length > 0) {
      links.push({ title: 'throughput over time', path: write(`${workload.name}-throughput.svg`,
        timelineChart(`${workload.name}: throughput over time`, series.timelines)) })
    }
    byWorkload[workload.name] = links
  }
  return { targets, byWorkload }
}
