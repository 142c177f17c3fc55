/**
 * The bench report's three kinds of chart, as SVG files: a latency histogram (log-spaced buckets,
 * p50, p99 and p99.9 marked), throughput over time (one step line per timeline of a workload),
 * and every target as a bar of measured / target against a line at the target. Colour is never the
 * only signal: the target bars also say MET or NOT MET in text, the timelines differ in dash too.
 */
import type { LatencyHistogram, Timeline } from './series.js'
import { line, niceTicks, polyline, rect, shortNumber, svgDocument, text } from './svg.js'

const WIDTH_PX = 760
const PLOT = { left: 80, right: 30, top: 62, height: 250 }
const PLOT_WIDTH_PX = WIDTH_PX - PLOT.left - PLOT.right
const AXIS_COLOUR = '#444'
const GRID_COLOUR = '#e3e3e3'
const MET_COLOUR = '#2e7d32'
const NOT_MET_COLOUR = '#c62828'
const LINE_STYLES: readonly { readonly colour: string; readonly dash?: string }[] = [
  { colour: '#1565c0' }, { colour: '#ef6c00', dash: '6 3' }, { colour: '#6a1b9a', dash: '2 2' },
  { colour: '#00838f', dash: '8 3 2 3' }, { colour: '#5d4037', dash: '4 4' },
]

/** The y axis: grid lines and labels at round values from 0 to the top tick; returns its scale. */
function yAxis(maxValue: number, body: string[], label: string): (value: number) => number {
  const ticks = niceTicks(maxValue)
  const top = ticks[ticks.length - 1]!
  const bottom = PLOT.top + PLOT.height
  const yOf = (value: number): number => bottom - (value / top) * PLOT.height
  for (const tick of ticks) {
    body.push(line(PLOT.left, yOf(tick), PLOT.left + PLOT_WIDTH_PX, yOf(tick), { stroke: GRID_COLOUR }))
    body.push(text(PLOT.left - 6, yOf(tick) + 4, shortNumber(tick), { 'text-anchor': 'end' }))
  }
  body.push(line(PLOT.left, PLOT.top, PLOT.left, bottom, { stroke: AXIS_COLOUR }))
  body.push(line(PLOT.left, bottom, PLOT.left + PLOT_WIDTH_PX, bottom, { stroke: AXIS_COLOUR }))
  body.push(text(18, PLOT.top + PLOT.height / 2, label,
    { 'text-anchor': 'middle', transform: `rotate(-90 18 ${PLOT.top + PLOT.height / 2})` }))
  return yOf
}

function xAxisLabel(label: string, body: string[]): void {
  body.push(text(PLOT.left + PLOT_WIDTH_PX / 2, PLOT.top + PLOT.height + 40, label, { 'text-anchor': 'middle' }))
}

function isDecade(value: number): boolean {
  return Math.abs(Math.log10(value) - Math.round(Math.log10(value))) < 0.01
}

/**
 * A latency histogram: one bar per bucket (equal widths: the buckets are log-spaced), the bucket
 * edges on a log axis, dashed lines at p50, p99 and p99.9.
 */
export function histogramChart(title: string, histogram: LatencyHistogram): string {
  const { counts, upper, unit } = histogram
  const body: string[] = []
  const subtitle = `${histogram.samples.toLocaleString('en')} samples; p50 ${shortNumber(histogram.p50)} ${unit}, ` +
    `p99 ${shortNumber(histogram.p99)} ${unit}, p99.9 ${shortNumber(histogram.p999)} ${unit}`
  body.push(text(WIDTH_PX / 2, 40, counts.length === 0 ? 'no samples' : subtitle, { 'text-anchor': 'middle' }))
  const yOf = yAxis(Math.max(0, ...counts), body, 'samples per bucket')
  const bucketWidthPx = counts.length === 0 ? 0 : PLOT_WIDTH_PX / counts.length
  const bottom = PLOT.top + PLOT.height
  histogramBars(counts, bucketWidthPx, yOf, body)
  const labelEvery = counts.length <= 8 ? 1 : 0
  upper.forEach((edge, i) => {
    if (labelEvery === 0 && !isDecade(edge)) return
    const x = PLOT.left + (i + 1) * bucketWidthPx
    body.push(line(x, bottom, x, bottom + 5, { stroke: AXIS_COLOUR }))
    body.push(text(x, bottom + 18, shortNumber(edge), { 'text-anchor': 'middle' }))
  })
  if (counts.length > 0) percentileMarks(histogram, bucketWidthPx, body)
  xAxisLabel(`latency (${unit}), log scale, ${counts.length} buckets (4 per decade)`, body)
  return svgDocument(WIDTH_PX, PLOT.top + PLOT.height + 56, title, body)
}

/**
 * One bar per bucket, height proportional to its count; under the axis, a rug marks every bucket
 * that holds a sample, since a tail of a few slow ones is too short to see as a bar.
 */
function histogramBars(counts: readonly number[], bucketWidthPx: number, yOf: (count: number) => number,
  body: string[]): void {
  const bottom = PLOT.top + PLOT.height
  counts.forEach((count, i) => {
    const x = PLOT.left + i * bucketWidthPx + 0.5
    body.push(rect(x, yOf(count), bucketWidthPx - 1, bottom - yOf(count),
      { class: 'bar', fill: '#90a4ae', 'data-count': count }))
    if (count > 0) body.push(rect(x, bottom + 1, bucketWidthPx - 1, 3, { class: 'rug', fill: '#37474f' }))
  })
}

function percentileMarks(histogram: LatencyHistogram, bucketWidthPx: number, body: string[]): void {
  const { upper } = histogram
  const lowest = Math.log10(upper[0]!) - 0.25
  const xOf = (value: number): number => {
    const position = (Math.log10(Math.max(value, 1e-9)) - lowest) * 4
    return PLOT.left + Math.min(upper.length, Math.max(0, position)) * bucketWidthPx
  }
  const marks: readonly [string, number][] = [['p50', histogram.p50], ['p99', histogram.p99], ['p99.9', histogram.p999]]
  marks.forEach(([name, value], i) => {
    if (!Number.isFinite(value)) return
    const x = xOf(value)
    body.push(line(x, PLOT.top, x, PLOT.top + PLOT.height,
      { stroke: '#d84315', 'stroke-dasharray': '4 3', class: 'mark' }))
    // Near the right edge the label goes to the left of its line, so it is not cut off.
    const leftOfLine = x > PLOT.left + PLOT_WIDTH_PX - 80
    body.push(text(leftOfLine ? x - 3 : x + 3, PLOT.top + 12 + i * 14, `${name} ${shortNumber(value)}`,
      { fill: '#d84315', 'text-anchor': leftOfLine ? 'end' : undefined }))
  })
}

/** Throughput over time: each timeline a step line (its count per interval, per second), with a legend. */
export function timelineChart(title: string, timelines: readonly Timeline[]): string {
  const body: string[] = []
  const seconds = Math.max(0, ...timelines.map((t) => t.perSecond.length * t.intervalSeconds))
  const yOf = yAxis(Math.max(0, ...timelines.flatMap((t) => t.perSecond)), body, 'completions per second')
  const xTicks = niceTicks(seconds)
  const xSpan = xTicks[xTicks.length - 1]!
  const xOf = (s: number): number => PLOT.left + (s / xSpan) * PLOT_WIDTH_PX
  const bottom = PLOT.top + PLOT.height
  for (const tick of xTicks) {
    body.push(line(xOf(tick), bottom, xOf(tick), bottom + 5, { stroke: AXIS_COLOUR }))
    body.push(text(xOf(tick), bottom + 18, shortNumber(tick), { 'text-anchor': 'middle' }))
  }
  timelines.forEach((timeline, i) => {
    const style = LINE_STYLES[i % LINE_STYLES.length]!
    const points = timeline.perSecond.flatMap((rate, k): [number, number][] =>
      [[xOf(k * timeline.intervalSeconds), yOf(rate)], [xOf((k + 1) * timeline.intervalSeconds), yOf(rate)]])
    body.push(polyline(points,
      { stroke: style.colour, 'stroke-width': 2, 'stroke-dasharray': style.dash, class: 'series' }))
    const legendY = bottom + 62 + i * 18
    body.push(line(PLOT.left, legendY - 4, PLOT.left + 30, legendY - 4,
      { stroke: style.colour, 'stroke-width': 2, 'stroke-dasharray': style.dash }))
    const median = shortNumber(medianOf(timeline.perSecond))
    body.push(text(PLOT.left + 38, legendY,
      `${timeline.label} (median ${median}/s, ${timeline.intervalSeconds} s intervals)`))
  })
  xAxisLabel('seconds since the start of the timed run', body)
  return svgDocument(WIDTH_PX, bottom + 56 + timelines.length * 18 + 10, title, body)
}

function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)]!
}

/** One target of the report, as the bar chart draws it. */
export interface TargetBar {
  readonly label: string
  /** Measured / target for "at least" targets, target / measured for "less than": >= 1 is met. null: not measured. */
  readonly fractionOfTarget: number | null
  readonly met: boolean | null
  /** E.g. "1.67 x (target >= 5 x)". */
  readonly measuredText: string
}

const BAR_ROW_PX = 30
const BAR_LABEL_PX = 400
const BAR_PLOT_PX = 300

/** Every target as a horizontal bar of its fraction of the target, a line at 1 (the target), met or not in words. */
export function targetChart(title: string, bars: readonly TargetBar[]): string {
  const width = BAR_LABEL_PX + BAR_PLOT_PX + 360
  const top = 84
  const fractions = bars.map((b) => b.fractionOfTarget ?? 0)
  const span = Math.min(4, Math.max(1.5, Math.ceil(Math.max(...fractions, 0) * 2) / 2))
  const xOf = (fraction: number): number => BAR_LABEL_PX + (Math.min(fraction, span) / span) * BAR_PLOT_PX
  const bottom = top + bars.length * BAR_ROW_PX
  const body: string[] = [text(width / 2, 42, 'bar: measured / target (for "less than" targets: target / measured); ' +
    'the line at 1 is the target', { 'text-anchor': 'middle' })]
  for (const tick of niceTicks(span, 4).filter((t) => t <= span)) {
    body.push(line(xOf(tick), top - 6, xOf(tick), bottom, { stroke: GRID_COLOUR }))
    body.push(text(xOf(tick), bottom + 16, `${shortNumber(tick)}`, { 'text-anchor': 'middle' }))
  }
  bars.forEach((bar, i) => targetRow(bar, top + i * BAR_ROW_PX, xOf, span, body))
  body.push(line(xOf(1), top - 10, xOf(1), bottom + 4, { stroke: '#000', 'stroke-width': 2, class: 'target' }))
  body.push(text(xOf(1), top - 14, 'target', { 'text-anchor': 'middle' }))
  return svgDocument(width, bottom + 30, title, body)
}

function targetRow(bar: TargetBar, y: number, xOf: (fraction: number) => number, span: number, body: string[]): void {
  body.push(text(BAR_LABEL_PX - 8, y + 19, bar.label, { 'text-anchor': 'end' }))
  const verdict = bar.met === null ? 'not measured' : bar.met ? 'MET' : 'NOT MET'
  const colour = bar.met === null ? '#777' : bar.met ? MET_COLOUR : NOT_MET_COLOUR
  if (bar.fractionOfTarget !== null) {
    body.push(rect(xOf(0), y + 6, xOf(bar.fractionOfTarget) - xOf(0), BAR_ROW_PX - 12,
      { class: bar.met ? 'bar met' : 'bar not-met', fill: colour, 'data-fraction': bar.fractionOfTarget }))
    // Off the scale: the bar stops at its end, and says so.
    if (bar.fractionOfTarget > span) {
      body.push(text(xOf(span) - 4, y + 19, '>>', { 'text-anchor': 'end', fill: 'white' }))
    }
  }
  body.push(text(xOf(span) + 10, y + 19, `${verdict}: ${bar.measuredText}`,
    { fill: colour, 'font-weight': bar.met === false ? 'bold' : undefined }))
}
