/**
 * The engine is pure (docs/engine.md; architecture: "Pure core"): no file under src/engine may
 * import Node built-ins, LMDB, uWebSockets.js, gRPC or piscina, nor read the clock (`Date`,
 * `performance`) or draw random numbers (`Math.random`). This test scans the sources with
 * comments and string contents blanked out, and first proves that its own checker catches each
 * kind of violation, so that it cannot pass vacuously.
 */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, resolve, sep } from 'node:path'
import { ROOT } from '../support/compiled.js'

const SRC_DIR = `${ROOT}src/`
const ENGINE_DIR = join(SRC_DIR, 'engine')
/** The pure helpers the engine may use besides itself (assert, bytes). */
const STDX_DIR = join(SRC_DIR, 'stdx')
const BANNED_PACKAGES = [/^node:/, /^lmdb($|\/)/, /^uWebSockets\.js($|\/)/, /^@grpc\//, /^piscina($|\/)/]
const BANNED_GLOBALS = [/\bDate\b/, /\bperformance\b/, /\bMath\s*\.\s*random\b/, /\bprocess\b/, /\bsetTimeout\b/, /\bsetInterval\b/]

/** Replaces comments and the contents of string literals with spaces (keeps import specifiers). */
function codeOnly(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/\/\/[^\n]*/g, (m) => ' '.repeat(m.length))
    .replace(/`(?:\\.|[^`\\])*`/g, (m) => '`' + ' '.repeat(m.length - 2) + '`')
}

function importsOf(source: string): string[] {
  const specifiers: string[] = []
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"]+)['"]/g
  for (const match of source.matchAll(pattern)) specifiers.push(match[1]!)
  return specifiers
}

/**
 * Every violation in one source file, as readable strings. With `dir` (the file's folder), a
 * relative import must stay inside src/engine or src/stdx.
 */
function violationsOf(source: string, dir: string | null = null): string[] {
  const violations: string[] = []
  for (const specifier of importsOf(source)) {
    if (BANNED_PACKAGES.some((p) => p.test(specifier)) || builtinModules.includes(specifier)) {
      violations.push(`imports ${specifier}`)
    }
    if (dir !== null && specifier.startsWith('.')) {
      const target = resolve(dir, specifier)
      if (![ENGINE_DIR, STDX_DIR].some((allowed) => target.startsWith(allowed + sep))) violations.push(`imports ${specifier}`)
    }
  }
  const code = codeOnly(source).replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, (m) => ' '.repeat(m.length))
  for (const pattern of BANNED_GLOBALS) if (pattern.test(code)) violations.push(`uses ${pattern.source}`)
  return violations
}

t.test('the checker catches every kind of violation', (t) => {
  const bad = [
    "import { readFileSync } from 'node:fs'",
    "import fs from 'fs'",
    "import { open } from 'lmdb'",
    "import uWS from 'uWebSockets.js'",
    "import * as grpc from '@grpc/grpc-js'",
    "import Piscina from 'piscina'",
    "const m = await import('node:crypto')",
    'const now = Date.now()',
    'const r = Math.random()',
    'const t0 = performance.now()',
    'const env = process.env',
  ]
  for (const source of bad) t.not(violationsOf(source).length, 0, `flags: ${source}`)
  t.same(violationsOf("// Date.now() is not called here\nconst s = 'Math.random'\nimport { x } from './date.js'"), [],
    'comments, strings and local modules are fine')
  t.same(violationsOf("import { x } from './date.js'\nimport { assert } from '../stdx/assert.js'", ENGINE_DIR), [],
    'the engine may import itself and src/stdx')
  t.not(violationsOf("import { Journal } from '../journal/journal.js'", ENGINE_DIR).length, 0,
    'flags an engine import from outside src/engine and src/stdx')
  t.end()
})

for (const [dir, filesMin] of [[ENGINE_DIR, 10], [STDX_DIR, 2]] as const) {
  t.test(`${dir.slice(SRC_DIR.length)} is pure and imports only src/engine and src/stdx`, (t) => {
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'))
    t.ok(files.length >= filesMin, `found its files (${files.length})`)
    for (const name of files) {
      const path = join(dir, name)
      t.same(violationsOf(readFileSync(path, 'utf8'), dirname(path)), [], path.slice(SRC_DIR.length))
    }
    t.end()
  })
}
