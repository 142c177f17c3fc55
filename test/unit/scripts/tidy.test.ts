/**
 * The tidy check (scripts/tidy.ts): first proves that each rule fires, once, on a tree built to
 * break it once (with near misses beside each violation that must not fire), then checks the
 * real tree.
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { ALL_CODES } from '../../../src/errors.js'
import { catalogueOf, formatViolation, FUNCTION_LINES_MAX, LINE_COLUMNS_MAX, tidy, type Violation } from '../../../scripts/tidy.js'
import { ROOT } from '../../support/compiled.js'

const catalogue = catalogueOf(ROOT)

/** A function of exactly `lines` lines, from its first line to its closing brace. */
function functionOf(name: string, lines: number): string {
  return [`export function ${name}(): number {`, '  let n = 0', ...Array.from({ length: lines - 4 }, () => '  n += 1'), '  return n', '}']
    .join('\n')
}

/** One violation of each rule, beside near misses that must pass. */
const BAD_TREE = {
  src: {
    'lines.ts': [
      `//${'x'.repeat(LINE_COLUMNS_MAX - 2)}`, // 120 columns: allowed
      `//${'€'.repeat(LINE_COLUMNS_MAX - 2)}`, // 120 code points, more bytes: allowed
      `//${'x'.repeat(LINE_COLUMNS_MAX - 1)}`, // 121 columns: line 3
    ].join('\n'),
    'functions.ts': [
      '// The longest allowed, then one line too long (line 72), then a long expression arrow (not a block).',
      functionOf('fits', FUNCTION_LINES_MAX),
      functionOf('tooLong', FUNCTION_LINES_MAX + 1),
      'export const listed = (): number[] => [',
      ...Array.from({ length: FUNCTION_LINES_MAX + 5 }, (_, i) => `  ${i},`),
      ']',
    ].join('\n'),
    'codes.ts': [
      "import { Code } from './engine/codes.js'",
      '// TOKEN_NOT_FOUND in a comment is fine, and so are longer strings and the constant.',
      "export const fine = ['TOKEN_NOT_FOUND_ELSEWHERE', `${Code.TOKEN_NOT_FOUND}`, Code.TOKEN_NOT_FOUND]",
      "export const isMissing = (code: string): boolean => code === 'TOKEN_NOT_FOUND'", // line 4
    ].join('\n'),
    // The catalogue's own file may spell its codes.
    'errors.ts': "export const ALL = ['TOKEN_NOT_FOUND', 'RATE_LIMITED']\n",
    engine: {
      'book.ts': [
        "import { assert } from '../stdx/assert.js'",
        "import type { Order } from './order.js'",
        "export { x } from './x.js'",
        "import { Journal } from '../journal/journal.js'", // line 4
      ].join('\n'),
    },
  },
}

const summary = (violations: readonly Violation[]) => violations.map((v) => [v.file, v.line, v.rule])

t.test('the catalogue read off src/errors.ts: every code of ALL_CODES, and the files of its tables', async (t) => {
  t.same([...catalogue.codes].sort(), [...ALL_CODES].sort())
  t.same([...catalogue.files].sort(), ['src/engine/codes.ts', 'src/errors.ts'])
})

t.test('each rule fires once on a tree that breaks it once', async (t) => {
  const root = t.testdir(BAD_TREE)
  const violations = tidy(root, catalogue)
  t.same(summary(violations), [
    ['src/codes.ts', 4, 'error-code-literal'],
    ['src/engine/book.ts', 4, 'engine-import'],
    ['src/functions.ts', 2 + FUNCTION_LINES_MAX, 'function-length'],
    ['src/lines.ts', 3, 'line-length'],
  ])
  t.same(violations.map(formatViolation), [
    "src/codes.ts:4: error code 'TOKEN_NOT_FOUND' spelled as a string: use its constant from the catalogue",
    "src/engine/book.ts:4: src/engine imports '../journal/journal.js' (src/journal/journal.js): only src/engine and src/stdx are allowed",
    `src/functions.ts:72: function tooLong is ${FUNCTION_LINES_MAX + 1} lines (max ${FUNCTION_LINES_MAX})`,
    `src/lines.ts:3: line is ${LINE_COLUMNS_MAX + 1} columns (max ${LINE_COLUMNS_MAX})`,
  ])
})

t.test('function bounds: methods, constructors, accessors and block arrows count; from the start line to the brace', async (t) => {
  const body = (lines: number) => Array.from({ length: lines - 2 }, () => '    void 0').join('\n')
  const root = t.testdir({ src: { 'shapes.ts': [
    'export class Shapes {', // 1
    `  constructor() {\n${body(FUNCTION_LINES_MAX + 1)}\n  }`, // 2
    `  get size(): number {\n${body(FUNCTION_LINES_MAX)}\n    return 0\n  }`, // 2 + 71 = 73
    `  method(): void {\n${body(FUNCTION_LINES_MAX)}\n  }`, // 73 + 71 = 144, 70 lines: fits
    '}', // 214
    `export const arrow = (): void => {\n${body(FUNCTION_LINES_MAX + 1)}\n}`, // 215
    `export const expression = function named(): void {\n${body(FUNCTION_LINES_MAX + 1)}\n}`, // 215 + 71 = 286
  ].join('\n') } })
  t.same(tidy(root, catalogue).map((v) => [v.line, v.message]), [
    [2, `function constructor is ${FUNCTION_LINES_MAX + 1} lines (max ${FUNCTION_LINES_MAX})`],
    [73, `function size is ${FUNCTION_LINES_MAX + 1} lines (max ${FUNCTION_LINES_MAX})`],
    [215, `function arrow is ${FUNCTION_LINES_MAX + 1} lines (max ${FUNCTION_LINES_MAX})`],
    [286, `function named is ${FUNCTION_LINES_MAX + 1} lines (max ${FUNCTION_LINES_MAX})`],
  ])
})

t.test('src/engine: packages, built-ins, dynamic imports and re-exports from outside are flagged', async (t) => {
  const root = t.testdir({ src: { engine: { 'pure.ts': [
    "import { sha256 } from '@noble/hashes/sha2.js'",
    "import { readFileSync } from 'node:fs'",
    "export { ApiCode } from '../errors.js'",
    "export const later = () => import('../../host/engine-host.js')",
    "export type Read = import('../../read/read-model.js').ReadModel",
    "import { assert } from '../stdx/assert.js'",
  ].join('\n') } } })
  const violations = tidy(root, catalogue)
  t.same(violations.map((v) => [v.line, v.rule]), [[1, 'engine-import'], [2, 'engine-import'], [3, 'engine-import'],
    [4, 'engine-import'], [5, 'engine-import']])
})

t.test('the command line prints file:line: what per violation and exits 1; 0 on a clean tree', async (t) => {
  const run = (root: string) => spawnSync(process.execPath, ['--import', './scripts/ts-loader.mjs', 'scripts/tidy.ts', root],
    { cwd: ROOT, encoding: 'utf8' })
  const bad = run(t.testdir(BAD_TREE))
  t.equal(bad.status, 1, bad.stderr)
  const lines = bad.stdout.trim().split('\n')
  t.equal(lines.length, 5)
  t.match(lines[0], /^src\/codes\.ts:4: error code 'TOKEN_NOT_FOUND'/)
  t.equal(lines[4], 'tidy: 4 violations')
  const clean = run(t.testdir({ src: { 'fine.ts': 'export const fine = 1\n' } }))
  t.equal(clean.status, 0, clean.stderr)
  t.equal(clean.stdout, '')
})

t.test('the real tree is tidy', async (t) => {
  const violations = tidy(ROOT, catalogue)
  const byRule = new Map<string, number>()
  for (const violation of violations) byRule.set(violation.rule, (byRule.get(violation.rule) ?? 0) + 1)
  t.comment(`${violations.length} violations: ${[...byRule].map(([rule, count]) => `${rule} ${count}`).join(', ') || 'none'}`)
  for (const violation of violations) t.comment(formatViolation(violation))
  t.same(violations.map(formatViolation), [], 'no violation')
})
