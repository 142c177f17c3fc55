/**
 * How the end-to-end benchmarks report a load figure: one line while they run, one Markdown table
 * row at the end, rounded numbers for the JSON, and the files under bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import type { LoadResult } from './http-load.js'

export function round(value: number): number {
  return Math.round(value * 100) / 100
}

export function pct(ratio: number): string {
  return `${Math.round(ratio * 100)} %`
}

/** "130/s (425 in 3.3 s; latency p50 ..., p99 ...; 200: 425)". */
export function describe(result: LoadResult): string {
  const statuses = Object.entries(result.statuses).map(([status, count]) => `${status}: ${count}`).join(', ')
  return `${Math.round(result.perSecond)}/s (${result.requests} in ${result.seconds.toFixed(1)} s; ` +
    `latency p50 ${result.latencyMs.p50.toFixed(2)} ms, p99 ${result.latencyMs.p99.toFixed(2)} ms, ` +
    `p99.9 ${result.latencyMs.p999.toFixed(2)} ms; ${statuses})`
}

/** The Markdown table row of a figure: | label | per second | p50 ms | p99 ms | p99.9 ms |. */
export function row(label: string, result: LoadResult): string {
  return `| ${label} | ${Math.round(result.perSecond)} | ${result.latencyMs.p50.toFixed(2)} | ` +
    `${result.latencyMs.p99.toFixed(2)} | ${result.latencyMs.p999.toFixed(2)} |`
}

/** bench/results/<name>.json and <name>.md. */
export function writeResults(name: string, report: unknown, markdown: string): void {
  const results = new URL('../../bench/results/', import.meta.url)
  mkdirSync(results, { recursive: true })
  writeFileSync(new URL(`${name}.json`, results), JSON.stringify(report, null, 2) + '\n')
  writeFileSync(new URL(`${name}.md`, results), markdown + '\n')
}
