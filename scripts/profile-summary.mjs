#!/usr/bin/env node
// Where a CPU profile's time went, as text tables: self time by area (src/<folder>, a package,
// node internals, GC, idle), by file and by function. A .cpuprofile (node --cpu-prof, one per
// thread) opens in Chrome DevTools too; this is for numbers to quote and compare between runs.
//
//   node scripts/profile-summary.mjs <file.cpuprofile | directory> [--top N] [--markdown] [--phase NAME]
//
// A directory is summarised file by file (node writes CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile:
// thread 0 is the main thread, the others are worker threads). Self time is the sum of the sample
// intervals (timeDeltas) that landed in a function, so it is wall time the thread spent there,
// not a count of samples. Waiting is not busy: `(idle)` (the event loop waiting) and a pool
// thread blocked in Atomics.wait for its next task (piscina's atomicsWaitLoop) count as idle.
//
// --phase NAME keeps only the samples taken during that phase of the benchmark: bench:rest
// --profile-dir writes phases.json beside the profiles (name, fromUs, toUs on the monotonic clock
// that V8 stamps its samples with, process.hrtime), so one run's profile splits by figure.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

const args = process.argv.slice(2)
const topIndex = args.indexOf('--top')
const TOP = topIndex >= 0 ? Number(args[topIndex + 1]) : 15
const MARKDOWN = args.includes('--markdown')
const phaseIndex = args.indexOf('--phase')
const PHASE = phaseIndex >= 0 ? args[phaseIndex + 1] : null
const target = args.find((arg, i) => !arg.startsWith('--') && !['--top', '--phase'].includes(args[i - 1]))
if (target === undefined || !Number.isInteger(TOP) || TOP <= 0 || PHASE === undefined) {
  process.stderr.write('usage: node scripts/profile-summary.mjs <file.cpuprofile | directory> [--top N] [--markdown] ' +
    '[--phase NAME]\n')
  process.exit(2)
}
const WAITING = new Set(['(idle)', 'atomicsWaitLoop'])

/**
 * The windows (monotonic µs) of phase `name` from phases.json in `dir` (a phase that ran several
 * times, once per run, has several); everything when null.
 */
function windowsOf(dir, name) {
  if (name === null) return [{ fromUs: -Infinity, toUs: Infinity }]
  const phases = JSON.parse(readFileSync(join(dir, 'phases.json'), 'utf8'))
  const windows = phases.filter((p) => p.name === name)
  if (windows.length === 0) {
    throw new Error(`no phase ${name} in phases.json: ${[...new Set(phases.map((p) => p.name))].join(', ')}`)
  }
  return windows
}

/**
 * Self time (ms) per profile node id within the window, and the window's span (ms): each sample
 * stands for the interval up to the next one.
 */
function selfTimesMs(profile, windows) {
  const self = new Map()
  const { samples, timeDeltas } = profile
  let atUs = profile.startTime
  let spanUs = 0
  for (let i = 0; i < samples.length; i++) {
    atUs += timeDeltas[i]
    if (!windows.some((w) => atUs >= w.fromUs && atUs <= w.toUs)) continue
    const us = timeDeltas[i + 1] ?? 0
    spanUs += us
    self.set(samples[i], (self.get(samples[i]) ?? 0) + us / 1000)
  }
  return { self, spanMs: spanUs / 1000 }
}

/** The area of a script URL: the project's folder, a package, or node's own code. */
function areaOf(url, functionName) {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native, V8 builtins)'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (pkg !== null) return pkg[1]
  if (url.startsWith('node:')) return 'node:' + (url.startsWith('node:internal/') ? url.split('/')[1] : url.slice(5))
  const own = /\/(?:dist\/)?(src|bench|scripts)\/([^/]+)(\/)?/.exec(url)
  if (own !== null) return own[3] === '/' ? `${own[1]}/${own[2]}` : own[1]
  return url
}

function shortFile(url) {
  if (url === '') return '(no file)'
  const pkg = /node_modules\/(.*)$/.exec(url)
  if (pkg !== null) return pkg[1]
  const own = /\/(?:dist\/)?((?:src|bench|scripts)\/.*)$/.exec(url)
  return own !== null ? own[1] : url.replace(/^file:\/\//, '')
}

function add(map, key, ms) {
  map.set(key, (map.get(key) ?? 0) + ms)
}

/** Self time grouped three ways, plus the span and the time spent waiting. */
function summarise(profile, windows) {
  const { self, spanMs } = selfTimesMs(profile, windows)
  const byArea = new Map()
  const byFile = new Map()
  const byFunction = new Map()
  let idleMs = 0
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0
    if (ms === 0) continue
    const { functionName, url, lineNumber } = node.callFrame
    const name = functionName === '' ? '(anonymous)' : functionName
    if (WAITING.has(name)) {
      idleMs += ms
      continue
    }
    add(byArea, areaOf(url, name), ms)
    add(byFile, shortFile(url), ms)
    add(byFunction, url === '' ? name : `${name} ${shortFile(url)}:${lineNumber + 1}`, ms)
  }
  return { spanMs, idleMs, byArea, byFile, byFunction }
}

/** Which thread a profile is, from the scripts it loaded. */
function threadOf(file, profile) {
  const thread = /\.\d+\.(\d+)\.\d+\.cpuprofile$/.exec(file)?.[1]
  const files = profile.nodes.map((node) => node.callFrame.url).join(' ')
  const role = thread === '0' ? 'main thread'
    : files.includes('engine-worker') || files.includes('src/host/') ? 'engine worker'
      : files.includes('verify') || files.includes('piscina') ? 'signature pool thread' : 'worker thread'
  return thread === undefined ? role : `${role} (thread ${thread})`
}

function table(title, map, busyMs) {
  const rows = [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP)
  const lines = rows.map(([key, ms]) => [key, ms.toFixed(0), `${((100 * ms) / busyMs).toFixed(1)} %`])
  if (MARKDOWN) {
    const body = lines.map((l) => `| ${l.join(' | ')} |`)
    return [`| ${title} | self ms | of busy |`, '| --- | ---: | ---: |', ...body].join('\n')
  }
  const width = Math.max(title.length, ...lines.map((l) => l[0].length))
  return [`${title.padEnd(width)}  self ms   of busy`, ...lines.map(([key, ms, pct]) =>
    `${key.padEnd(width)}  ${ms.padStart(7)}  ${pct.padStart(8)}`)].join('\n')
}

/** The report of one profile, or null when it has no samples in the phase (a thread of another phase). */
function report(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'))
  const summary = summarise(profile, windowsOf(dirname(file), PHASE))
  if (summary.spanMs === 0) return null
  const busyMs = summary.spanMs - summary.idleMs
  const phase = PHASE === null ? '' : `, phase ${PHASE}`
  const heading = `${basename(file)}: ${threadOf(file, profile)}${phase}; ` +
    `${(summary.spanMs / 1000).toFixed(1)} s profiled, ` +
    `busy ${(busyMs / 1000).toFixed(1)} s (${((100 * busyMs) / summary.spanMs).toFixed(0)} %), idle ` +
    `${(summary.idleMs / 1000).toFixed(1)} s`
  return [MARKDOWN ? `### ${heading}` : `== ${heading}`, '', table('area', summary.byArea, busyMs), '',
    table('file', summary.byFile, busyMs), '', table('function', summary.byFunction, busyMs), ''].join('\n')
}

const files = statSync(target).isDirectory()
  ? readdirSync(target).filter((name) => name.endsWith('.cpuprofile')).sort().map((name) => join(target, name))
  : [target]
for (const file of files) {
  const text = report(file)
  if (text !== null) process.stdout.write(text + '\n')
}
