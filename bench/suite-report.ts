/**
 * The suite's dated report in Markdown: the machine and command first (absolute figures mean
 * nothing without them), then every target met or not and by how much, then each workload's
 * figures with its runs, medians and, where the workload prints them, min and max, and its charts.
 * Every figure here is read off what the workloads printed; nothing is typed in by hand. The one
 * text that is not a figure is what limited each target missed, as the last CPU profiles found
 * it (targets.ts, `limitedBy`), printed so that a reader of a report need not look for it.
 */
import type { Checked, Figures } from './targets.js'
import { formatSeconds } from './progress.js'

export interface Machine {
  readonly hostname: string
  readonly cores: number
  readonly cpu: string
  readonly node: string
  readonly platform: string
  readonly memoryBytes: number
  /** One-minute load average when the suite started and when it ended: the machine is shared. */
  readonly loadAverageStart: number
  readonly loadAverageEnd: number
}

export interface WorkloadRun {
  readonly name: string
  readonly title: string
  readonly seconds: number
  /** Its whole last stdout line (series included); empty when it failed. */
  readonly figures: Figures
  /** Why it failed; null when it did not. */
  readonly error: string | null
}

export interface SuiteRun {
  /** YYYY-MM-DD, local time. */
  readonly date: string
  readonly startedAt: string
  readonly command: string
  readonly quick: boolean
  readonly durationSeconds: number
  readonly machine: Machine
  readonly workloads: readonly WorkloadRun[]
  readonly targets: readonly Checked[]
}

/** Chart files, relative to the report: the targets chart, then each workload's. */
export interface ChartLinks {
  readonly targets: string | null
  readonly byWorkload: Readonly<Record<string, readonly { readonly title: string; readonly path: string }[]>>
}

export function suiteMarkdown(run: SuiteRun, jsonName: string, charts: ChartLinks): string {
  return [
    `# Predex bench suite: ${run.date} on ${run.machine.hostname}`, '',
    ...header(run, jsonName), '',
    '## Targets', '',
    ...targetSection(run.targets, charts.targets), '',
    '## Workloads', '',
    '| workload | time | runs | status |', '| --- | --- | --- | --- |',
    ...run.workloads.map((w) => `| ${w.title} | ${formatSeconds(w.seconds)} | ${runsOf(w.figures)} | ` +
      `${w.error === null ? 'ok' : `**failed**: ${cell(w.error)}`} |`),
    ...run.workloads.flatMap((w) => ['', ...workloadSection(w, charts.byWorkload[w.name] ?? [])]),
  ].join('\n') + '\n'
}

function header(run: SuiteRun, jsonName: string): string[] {
  const m = run.machine
  return [
    `Command: \`${run.command}\`, started ${run.startedAt}, ${formatSeconds(run.durationSeconds)} in all.`,
    `Machine: ${m.cores} cores (${m.cpu}), Node ${m.node}, ${m.platform}, ` +
      `${Math.round(m.memoryBytes / 2 ** 30)} GiB memory; ` +
      `load average (1 min) ${m.loadAverageStart.toFixed(1)} at the start, ${m.loadAverageEnd.toFixed(1)} at the end.`,
    'The machine is shared and absolute figures drift with its load: compare the ratios, which are measured side by ' +
      'side in one run.',
    `Raw figures: [${jsonName}](${jsonName}) (each workload's whole last-line JSON).`,
  ]
}

function targetSection(targets: readonly Checked[], chart: string | null): string[] {
  const judged = targets.filter((c) => c.verdict === 'met' || c.verdict === 'NOT met')
  const met = judged.filter((c) => c.verdict === 'met').length
  const unmeasured = targets.filter((c) => c.verdict === 'not measured').length
  const notRun = targets.filter((c) => c.verdict === 'not run').length
  return [
    `${met} of ${judged.length} measured targets met` + (unmeasured > 0 ? `; ${unmeasured} not measured ` +
      '(the workload does not print that figure yet)' : '') + (notRun > 0 ? `; ${notRun} not run (--only)` : '') + '.',
    '', ...(chart === null ? [] : [`![each target: measured against the target](${chart})`, '']),
    '| target | workload | measured | target | verdict | by how much | from |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...targets.map((c) => `| ${c.target.label} | ${c.target.workload} | ${c.measuredText} | ${c.thresholdText} | ` +
      `${c.verdict === 'NOT met' ? '**NOT met**' : c.verdict} | ${c.marginText} | \`${c.target.source}\` |`),
    ...limitsSection(targets),
  ]
}

/** For each target not met, what limited it when last profiled (targets.ts, `limitedBy`). */
function limitsSection(targets: readonly Checked[]): string[] {
  const missed = targets.filter((c) => c.verdict === 'NOT met')
  if (missed.length === 0) return []
  return ['', '### What limits the targets not met', '',
    'As the last CPU profiles found them (re-profile with `npm run bench -- --profile <workload>`):', '',
    ...missed.map((c) => `- **${c.target.label}**: ${c.target.limitedBy ?? 'not profiled yet'}.`)]
}

function runsOf(figures: Figures): string {
  const runs = figures.runs ?? figures.medians_over_runs
  if (typeof runs === 'number') return `${runs} (medians over runs)`
  if (typeof figures.seconds === 'number') return `1 (${figures.seconds} s per figure)`
  return Object.keys(figures).length === 0 ? '-' : '1'
}

function workloadSection(w: WorkloadRun, charts: readonly { title: string; path: string }[]): string[] {
  const lines = [`### ${w.title}`, '',
    `Runs: ${runsOf(w.figures)}; ${formatSeconds(w.seconds)}. ${rangeNote(w.figures)}`, '']
  if (w.error !== null) return [...lines, `Failed: ${w.error}`]
  lines.push('| figure | median or value | min | max |', '| --- | --- | --- | --- |', ...figureRows(w.figures))
  if (charts.length > 0) lines.push('', ...charts.map((c) => `![${c.title}](${c.path})`))
  return lines
}

function rangeNote(figures: Figures): string {
  if (Object.keys(figures).some((key) => key.endsWith('_min'))) return 'Min and max are over the runs.'
  return typeof (figures.runs ?? figures.medians_over_runs) === 'number'
    ? 'Medians over the runs; the workload does not print their min and max.'
    : 'One value per figure.'
}

/** One row per flat figure; X_min and X_max join X's row. Nested objects (series, statuses) stay in the JSON. */
function figureRows(figures: Figures): string[] {
  const rows: string[] = []
  for (const [key, value] of Object.entries(figures)) {
    if (/_(min|max)$/.test(key) && key.replace(/_(min|max)$/, '') in figures) continue
    if (typeof value === 'object' && value !== null) continue
    const min = figures[`${key}_min`]
    const max = figures[`${key}_max`]
    rows.push(`| \`${key}\` | ${formatFigure(value)} | ${min === undefined ? '' : formatFigure(min)} | ` +
      `${max === undefined ? '' : formatFigure(max)} |`)
  }
  return rows
}

function formatFigure(value: unknown): string {
  if (typeof value !== 'number') return cell(String(value))
  return Number.isInteger(value) ? value.toLocaleString('en') : String(Number(value.toPrecision(4)))
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}
