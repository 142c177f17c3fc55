/**
 * The proto is the gRPC face's contract, so three checks keep it honest: `buf lint` passes (the
 * STANDARD rules; google/rpc, copied from googleapis, is ignored in proto/buf.yaml), the committed
 * code in src/gen is exactly what `npm run gen` produces from proto/ now, and `buf breaking`
 * (FILE rules) finds nothing against the previous commit, so a change that would break deployed
 * clients fails the suite. All three run buf from npm (@bufbuild/buf), offline.
 */
import t from 'tap'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { ROOT } from '../support/compiled.js'

const BIN = join(ROOT, 'node_modules', '.bin')
const env = { ...process.env, PATH: `${BIN}:${process.env.PATH ?? ''}` }

function buf(args: string[]): { status: number | null; output: string } {
  const run = spawnSync(join(BIN, 'buf'), args, { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 })
  return { status: run.status, output: `${run.stdout}${run.stderr}` }
}

function filesUnder(dir: string): Map<string, string> {
  const files = new Map<string, string>()
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (name.endsWith('.ts')) files.set(relative(dir, join(dir, name)), readFileSync(join(dir, name), 'utf8'))
  }
  return files
}

t.test('buf lint passes', (t) => {
  const lint = buf(['lint', 'proto'])
  t.equal(lint.status, 0, lint.output || 'no findings')
  t.end()
})

t.test('src/gen is what npm run gen generates from proto/ now', (t) => {
  const out = mkdtempSync(join(tmpdir(), 'predex-gen-'))
  t.teardown(() => rmSync(out, { recursive: true, force: true }))
  const template = JSON.stringify({ version: 'v2', plugins: [{ local: 'protoc-gen-es', out, include_imports: true,
    opt: ['target=ts', 'import_extension=js'] }] })
  const generated = buf(['generate', 'proto', '--template', template])
  t.equal(generated.status, 0, generated.output || 'generated')
  const fresh = filesUnder(out)
  const committed = filesUnder(join(ROOT, 'src', 'gen'))
  t.same([...committed.keys()].sort(), [...fresh.keys()].sort(), 'the same files')
  for (const [name, text] of fresh) {
    t.ok(committed.get(name) === text, `${name} is current (run npm run gen and commit it)`)
  }
  t.end()
})

t.test('buf breaking finds nothing against the previous commit', (t) => {
  let previousHasProto = true
  try {
    execFileSync('git', ['cat-file', '-e', 'HEAD~1:proto/predex/v1'], { cwd: ROOT, stdio: 'ignore' })
  } catch {
    previousHasProto = false
  }
  if (!previousHasProto) {
    t.comment('the previous commit has no proto/predex/v1 (or this clone has no history): nothing to compare with')
    t.end()
    return
  }
  const breaking = buf(['breaking', 'proto', '--against', '.git#ref=HEAD~1,subdir=proto'])
  t.equal(breaking.status, 0, breaking.output || 'no breaking change')
  t.end()
})
