/**
 * When `npm start` and `npm test` compile (scripts/build.mjs): only when dist/ is missing or a
 * source or the TypeScript configuration is newer than it, so a start on a built checkout skips
 * the compiler. And what it removes: compiled files whose source is gone (a moved test left its
 * old copy behind, which npm test ran). On made-up trees, not the repository's own.
 */
import t, { type Test } from 'tap'
import { existsSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT } from '../../support/compiled.js'

// A plain ES module of the build scripts, without type declarations, found from the repository's
// root (this file also runs from the build, dist/test, where no copy of it is).
const { staleness: stale, pruneOrphans } = await import(pathToFileURL(join(ROOT, 'scripts', 'build.mjs')).href) as {
  staleness: (root: string) => string | null; pruneOrphans: (root: string) => string[] }

function tree(t: Test, built: boolean): string {
  const root = t.testdir({
    'tsconfig.json': '{}', 'tsconfig.build.json': '{}',
    src: { 'main.ts': '', 'notes.md': '', engine: { 'book.ts': '' } }, bench: { 'engine.ts': '' }, scripts: { 'soak.ts': '' },
    ...(built ? { dist: { src: { 'main.js': '' } } } : {}),
  })
  const at = (path: string, seconds: number): void => utimesSync(join(root, path), seconds, seconds)
  for (const path of ['tsconfig.json', 'tsconfig.build.json', 'src/main.ts', 'src/engine/book.ts', 'bench/engine.ts',
    'scripts/soak.ts']) at(path, 1_000)
  if (built) at('dist/src/main.js', 2_000)
  return root
}

t.test('not built: stale', async (t) => {
  t.equal(stale(tree(t, false)), 'dist/ is not built yet')
})

t.test('built after every input: fresh', async (t) => {
  t.equal(stale(tree(t, true)), null)
})

t.test('a source, a nested source, a bench file or the configuration newer than the build: stale', async (t) => {
  for (const path of ['src/main.ts', 'src/engine/book.ts', 'bench/engine.ts', 'tsconfig.build.json']) {
    const root = tree(t, true)
    utimesSync(join(root, path), 3_000, 3_000)
    t.equal(stale(root), 'a source is newer than dist/', path)
  }
})

t.test('a file that is not TypeScript does not count', async (t) => {
  const root = tree(t, true)
  utimesSync(join(root, 'src/notes.md'), 3_000, 3_000)
  t.equal(stale(root), null)
})

t.test('compiled files whose source is gone are removed, with their maps; the others and dist/web stay', async (t) => {
  const root = t.testdir({
    src: { 'kept.ts': '', web: { 'page.tsx': '' } },
    test: { unit: { 'moved.test.ts': '' } },
    dist: {
      src: { 'kept.js': '', 'kept.js.map': '', 'gone.js': '', 'gone.js.map': '', web: { 'page.js': '' } },
      test: { unit: { 'moved.test.js': '', old: { 'moved.test.js': '', 'moved.test.js.map': '' } } },
      web: { 'index.js': '' },
    },
  })
  t.same(pruneOrphans(root).sort(), ['dist/src/gone.js', 'dist/src/gone.js.map', 'dist/test/unit/old/moved.test.js',
    'dist/test/unit/old/moved.test.js.map'])
  for (const kept of ['dist/src/kept.js', 'dist/src/kept.js.map', 'dist/src/web/page.js', 'dist/test/unit/moved.test.js',
    'dist/web/index.js']) t.ok(existsSync(join(root, kept)), `${kept} stays`)
  t.same(pruneOrphans(root), [], 'nothing more the second time')
})
