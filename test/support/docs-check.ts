/**
 * The docs checker behind test/unit/scripts/docs-truth.test.ts: reads Markdown as text and reports every
 * mention that the repository no longer backs, as `file:line: token: problem`. It is pure over
 * the text and a `RepoFacts` (what exists, which scripts, flags and routes there are), so the
 * test can run it on a small broken document as well as on the real ones.
 *
 * The rules, each a kind of mention a reader acts on:
 * - a path under one of the repository's top folders (`src/`, `test/`, `scripts/`, `bench/`,
 *   `docs/`, `proto/`, `examples/`), anywhere in the text, and every relative link, exists;
 *   placeholders (`<date>`, `$A`, `...`) and what a run writes (`data/`, `dist/`, runtime
 *   reports under bench/results) are not paths of the repository;
 * - `npm run X` names a script of package.json, and so does a backticked `test:sim`-like name of
 *   a script family (`npm run test:unit`, `test:sim`, ...);
 * - a flag after `npm start --` is one the server accepts; any other `--flag` is the server's or
 *   one of another tool's (the benches and scripts, node, tap, curl), so a renamed flag is caught;
 * - an HTTP path on port 8080 is a route of the REST server (with the method `curl` uses);
 * - the README's layout map has a line for every folder of src/.
 */
import { dirname, join, normalize } from 'node:path'

export interface DocFile {
  /** Repository-relative, such as docs/rest.md. */
  readonly path: string
  readonly text: string
}

export interface RepoFacts {
  /** Whether a repository-relative path exists (file or folder). */
  readonly exists: (repoPath: string) => boolean
  readonly scripts: ReadonlySet<string>
  readonly serverFlags: ReadonlySet<string>
  /** Flags of the other programs the docs mention: the benches, scripts, node, tap, curl. */
  readonly otherFlags: ReadonlySet<string>
  /** Whether the REST server answers `method` on `path` (a /compat path included; `$X` is any segment). */
  readonly hasRoute: (method: string, path: string) => boolean
  /** Every folder of src/ the layout map must name, such as src/api/rest. */
  readonly srcFolders: readonly string[]
}

export interface Finding {
  readonly file: string
  readonly line: number
  readonly token: string
  readonly problem: string
}

export function findingText(finding: Finding): string {
  return `${finding.file}:${finding.line}: ${finding.token}: ${finding.problem}`
}

const PATH_ROOTS = ['src', 'test', 'scripts', 'bench', 'docs', 'proto', 'examples']
/** A path under a root, not inside a longer word or a URL (`8080/docs` is a route, not a folder). */
const ROOT_PATH = new RegExp(`(?<![\\w./:@$-])(?:${PATH_ROOTS.join('|')})/[\\w./*<>{},@+$-]*`, 'g')
/** What a run writes: named by the docs as outputs, absent from a fresh clone (.gitignore). */
const RUNTIME_OUTPUTS = [
  'data/', 'dist/', 'node_modules/', '.tap/', 'bench/results/summary.', 'bench/results/engine.',
  'bench/results/rest.', 'bench/results/profiles/',
]
const LINK = /\]\(([^)\s]+)\)/g
const NPM_RUN = /npm run ([\w:.-]+)/g
const BACKTICKED = /`([^`]+)`/g
/** A flag ends at a letter or digit: `--ring-->` in a diagram is an arrow, not a flag. */
const FLAG = /(?<![\w-])--[a-zA-Z][a-zA-Z0-9]*(?:-[a-zA-Z0-9]+)*(?![\w>-])/g
/** In a code block, only a command's line has flags (the rest are diagrams and output). */
const COMMAND_LINE = /(^|[\s$(])(npm|npx|node|curl|tap)\s/
const LOCAL_URL = /(?:localhost|127\.0\.0\.1):8080(\/[^\s"'`?)#*]*)?/g

/** Every finding in `docs`, in file and line order. */
export function checkDocs(docs: readonly DocFile[], facts: RepoFacts): Finding[] {
  const findings: Finding[] = []
  for (const doc of docs) {
    let inCode = false
    doc.text.split('\n').forEach((text, index) => {
      if (text.startsWith('```')) inCode = !inCode
      const at = { file: doc.path, line: index + 1 }
      const flagged = inCode && !COMMAND_LINE.test(text) ? [] : flagFindings(text, facts)
      const found = dedupe([...pathFindings(doc.path, text, facts), ...scriptFindings(text, facts),
        ...flagged, ...routeFindings(text, facts)])
      for (const finding of found) findings.push({ ...at, ...finding })
    })
    if (doc.path === 'README.md') findings.push(...layoutFindings(doc, facts))
  }
  return findings
}

type LineFinding = Omit<Finding, 'file' | 'line'>

function pathFindings(docPath: string, text: string, facts: RepoFacts): LineFinding[] {
  const rootPaths = [...text.matchAll(ROOT_PATH)].map((match) => match[0])
  const links = [...text.matchAll(LINK)].map((match) => match[1]!)
    .filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'))
    .map((target) => normalize(join(dirname(docPath), target.split('#')[0]!)))
  const findings: LineFinding[] = []
  for (const token of [...rootPaths, ...links]) {
    const path = token.replace(/[.,:;]+$/, '')
    if (isPlaceholder(path) || RUNTIME_OUTPUTS.some((prefix) => path.startsWith(prefix))) continue
    for (const expanded of bracesExpanded(path)) {
      if (!facts.exists(existingPrefix(expanded))) findings.push({ token: expanded, problem: 'no such path' })
    }
  }
  return findings
}

function isPlaceholder(path: string): boolean {
  return path.includes('<') || path.includes('$') || path.includes('...') || path.startsWith('../')
}

/** `src/service/{testnet,admin}.ts` -> both paths (one level of braces is all the docs use). */
function bracesExpanded(path: string): string[] {
  const match = /\{([^}]*)\}/.exec(path)
  if (match === null) return [path]
  return match[1]!.split(',').map((item) => path.slice(0, match.index) + item + path.slice(match.index + match[0].length))
}

/** For a glob (`test/simulation/seed-*.test.ts`), the folder it lists must exist. */
function existingPrefix(path: string): string {
  const star = path.indexOf('*')
  const trimmed = star < 0 ? path : path.slice(0, path.lastIndexOf('/', star))
  return trimmed.replace(/\/+$/, '')
}

function scriptFindings(text: string, facts: RepoFacts): LineFinding[] {
  const families = new Set([...facts.scripts].filter((name) => name.includes(':')).map((name) => name.split(':')[0]))
  const named = [...text.matchAll(NPM_RUN)].map((match) => match[1]!.replace(/[.,:;]+$/, ''))
  const listed = [...text.matchAll(BACKTICKED)].map((match) => match[1]!)
    .filter((token) => /^[a-z]+:[a-z][\w-]*$/.test(token) && families.has(token.split(':')[0]))
  return [...named, ...listed].filter((name) => !facts.scripts.has(name))
    .map((name) => ({ token: `npm run ${name}`, problem: 'no such script in package.json' }))
}

function flagFindings(text: string, facts: RepoFacts): LineFinding[] {
  const start = text.indexOf('npm start --')
  const serverPart = start < 0 ? '' : text.slice(start + 'npm start --'.length).split('`')[0]!
  const serverOnly = new Set(serverPart.match(FLAG) ?? [])
  const findings: LineFinding[] = []
  for (const flag of text.match(FLAG) ?? []) {
    if (facts.serverFlags.has(flag)) continue
    if (serverOnly.has(flag)) findings.push({ token: flag, problem: 'not a flag of the server (src/config.ts)' })
    else if (!facts.otherFlags.has(flag)) findings.push({ token: flag, problem: 'no program here takes this flag' })
  }
  return findings
}

/** Each curl command of a line on its own (a line may chain several with `;`), with its method. */
function routeFindings(text: string, facts: RepoFacts): LineFinding[] {
  const findings: LineFinding[] = []
  for (const command of text.split(/(?=\bcurl\s)/)) {
    const method = command.startsWith('curl') ? curlMethod(command) : 'GET'
    for (const match of command.matchAll(LOCAL_URL)) {
      if (match[1] === undefined) continue // a base URL (`http://127.0.0.1:8080`), not a route
      const path = match[1].replace(/[.,:;]+$/, '')
      if (path.startsWith('/ws/')) continue
      if (!facts.hasRoute(method, path)) findings.push({ token: `${method} ${path}`, problem: 'no such REST route' })
    }
  }
  return findings
}

/** The method of a curl command: -X's, else POST with a body, else GET. */
function curlMethod(command: string): string {
  const explicit = /-X\s+([A-Z]+)/.exec(command)
  if (explicit !== null) return explicit[1]!
  return /\s(-d|--data)\s/.test(command) ? 'POST' : 'GET'
}

function dedupe(findings: LineFinding[]): LineFinding[] {
  const seen = new Set<string>()
  return findings.filter((finding) => {
    const key = finding.token + finding.problem
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * The layout map is the code in the README's "## Layout" section; each folder of src/ must begin
 * a line of it (`src/api/rest/  ...`), so a new folder cannot go unmapped.
 */
function layoutFindings(doc: DocFile, facts: RepoFacts): Finding[] {
  const lines = doc.text.split('\n')
  const heading = lines.findIndex((line) => /^## Layout/.test(line))
  if (heading < 0) return [{ file: doc.path, line: 1, token: '## Layout', problem: 'no layout map' }]
  const next = lines.findIndex((line, index) => index > heading && line.startsWith('## '))
  const section = lines.slice(heading + 1, next < 0 ? lines.length : next)
  let inCode = false
  const named = new Set<string>()
  for (const line of section) {
    if (line.startsWith('```')) inCode = !inCode
    const folder = inCode ? /^\s*(src\/[\w/-]*)/.exec(line)?.[1] : undefined
    if (folder !== undefined) named.add(folder.replace(/\/$/, ''))
  }
  return facts.srcFolders.filter((folder) => !named.has(folder))
    .map((folder) => ({ file: doc.path, line: heading + 1, token: `${folder}/`, problem: 'not in the layout map' }))
}
