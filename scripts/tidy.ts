/**
 * Tidy (after TigerBeetle's `tidy`): mechanical rules on the sources that review should not have
 * to argue about. Run `npm run tidy` (or the script with a root folder to check instead of this
 * repository's); it prints one `file:line: what` per violation and exits 1 if there is any.
 * test/unit/scripts/tidy.test.ts runs it in the suite.
 *
 * - lines in src/ are at most 120 columns;
 * - functions in src/ are at most 70 lines, from the line a function, method, accessor or
 *   block-bodied arrow starts on to its closing brace (bounds from the TypeScript compiler's
 *   syntax tree, not from regexes);
 * - no string literal equal to an error code outside the catalogue (src/errors.ts `ALL_CODES`
 *   and the code tables it is built from): a comparison reads `Code.TOKEN_NOT_FOUND`, so that a
 *   renamed code is a compile error and a search finds every use;
 * - src/engine imports only src/engine and src/stdx (relative imports resolved; packages and
 *   Node built-ins are banned: the engine is pure).
 *
 * The script is TypeScript and is run without a build (a tree mid-change may not compile, and
 * tidy should still say what it sees), through the loader tap uses for the tests.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'
import { packageRoot } from '../src/package-root.js'

export const LINE_COLUMNS_MAX = 120
export const FUNCTION_LINES_MAX = 70

export type Rule = 'line-length' | 'function-length' | 'error-code-literal' | 'engine-import'

export interface Violation {
  /** Relative to the root, with `/` separators. */
  readonly file: string
  /** 1-based. */
  readonly line: number
  readonly rule: Rule
  readonly message: string
}

/** The error catalogue: every code, and the files allowed to spell codes as strings. */
export interface Catalogue {
  readonly codes: ReadonlySet<string>
  /** Relative to the root, with `/` separators. */
  readonly files: ReadonlySet<string>
}

// From the package's root: this module runs from scripts/ (npm run) and from dist/scripts/ (npm test).
const ROOT = packageRoot(import.meta.url).dir
const CATALOGUE_FILE = 'src/errors.ts'

/**
 * Reads the catalogue off `src/errors.ts` of `root` with the type checker: `ALL_CODES` is a
 * list of spreads `...Object.values(Table)`; each table is an object of string-literal
 * constants, declared in errors.ts or in a file it imports (src/engine/codes.ts). The codes are the tables' literal values; the files are where the
 * tables live, plus errors.ts.
 */
export function catalogueOf(root: string = ROOT): Catalogue {
  const path = join(root, CATALOGUE_FILE)
  // No lib and no @types: the tables' literal types need neither, and loading them costs seconds.
  const options = { module: ts.ModuleKind.NodeNext, noEmit: true, noLib: true, types: [] }
  const program = ts.createProgram([path], options)
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(path)
  if (source === undefined) throw new Error(`tidy: no ${CATALOGUE_FILE} under ${root}`)
  const codes = new Set<string>()
  const files = new Set<string>([CATALOGUE_FILE])
  for (const table of codeTablesOf(source)) {
    let symbol = checker.getSymbolAtLocation(table)
    if (symbol === undefined) throw new Error(`tidy: cannot resolve ${table.text} in ALL_CODES`)
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol)
    for (const declaration of symbol.declarations ?? []) {
      files.add(relativePath(root, declaration.getSourceFile().fileName))
    }
    for (const property of checker.getTypeOfSymbolAtLocation(symbol, table).getProperties()) {
      const type = checker.getTypeOfSymbolAtLocation(property, table)
      if (type.isStringLiteral()) codes.add(type.value)
    }
  }
  if (codes.size === 0) throw new Error(`tidy: found no codes in ALL_CODES of ${CATALOGUE_FILE}`)
  return { codes, files }
}

/** The identifiers `X` of `ALL_CODES = [...Object.values(X), ...]`. */
function codeTablesOf(source: ts.SourceFile): ts.Identifier[] {
  const tables: ts.Identifier[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === 'ALL_CODES' &&
      node.initializer !== undefined && ts.isArrayLiteralExpression(node.initializer)) {
      for (const element of node.initializer.elements) {
        if (ts.isSpreadElement(element) && ts.isCallExpression(element.expression)) {
          const argument = element.expression.arguments[0]
          if (argument !== undefined && ts.isIdentifier(argument)) tables.push(argument)
        }
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  if (tables.length === 0) throw new Error(`tidy: no ALL_CODES = [...Object.values(Table), ...] in ${source.fileName}`)
  return tables
}

/** Every violation under `root`/src, ordered by file and line. */
export function tidy(root: string = ROOT, catalogue: Catalogue = catalogueOf(ROOT)): Violation[] {
  const violations: Violation[] = []
  for (const path of sourcesOf(join(root, 'src'))) {
    const file = relativePath(root, path)
    const text = readFileSync(path, 'utf8')
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)
    violations.push(...longLines(file, text), ...longFunctions(file, source))
    if (!catalogue.files.has(file)) violations.push(...codeLiterals(file, source, catalogue.codes))
    if (file.startsWith('src/engine/')) violations.push(...engineImports(root, file, source))
  }
  return violations.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
}

/** Generated code (src/gen, from proto/ by `npm run gen`) is checked against its generator, not for style. */
const GENERATED_DIR = 'gen'

function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.split(sep).includes(GENERATED_DIR))
    .map((name) => join(dir, name))
    .sort()
}

function relativePath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/')
}

function lineOf(source: ts.SourceFile, position: number): number {
  return source.getLineAndCharacterOfPosition(position).line + 1
}

function longLines(file: string, text: string): Violation[] {
  const violations: Violation[] = []
  text.split('\n').forEach((line, index) => {
    const columns = [...line.replace(/\r$/, '')].length // code points: a '€' is one column
    if (columns > LINE_COLUMNS_MAX) {
      violations.push({ file, line: index + 1, rule: 'line-length',
        message: `line is ${columns} columns (max ${LINE_COLUMNS_MAX})` })
    }
  })
  return violations
}

function longFunctions(file: string, source: ts.SourceFile): Violation[] {
  const violations: Violation[] = []
  const visit = (node: ts.Node): void => {
    const body = functionBodyOf(node)
    if (body !== null) {
      const start = lineOf(source, node.getStart(source))
      const lines = lineOf(source, body.getEnd()) - start + 1
      if (lines > FUNCTION_LINES_MAX) {
        violations.push({ file, line: start, rule: 'function-length',
          message: `function ${functionName(node)} is ${lines} lines (max ${FUNCTION_LINES_MAX})` })
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return violations
}

/** The block of a function, method, constructor, accessor or block-bodied arrow; null otherwise. */
function functionBodyOf(node: ts.Node): ts.Block | null {
  if (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node) ||
    ts.isArrowFunction(node)) {
    return node.body !== undefined && ts.isBlock(node.body) ? node.body : null
  }
  return null
}

function functionName(node: ts.Node): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const named = node as ts.Node & { name?: ts.Node }
  const name = named.name
  if (name !== undefined && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name))) return name.text
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text
  if (ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text
  return '(anonymous)'
}

function codeLiterals(file: string, source: ts.SourceFile, codes: ReadonlySet<string>): Violation[] {
  const violations: Violation[] = []
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && codes.has(node.text)) {
      violations.push({ file, line: lineOf(source, node.getStart(source)), rule: 'error-code-literal',
        message: `error code '${node.text}' spelled as a string: use its constant from the catalogue` })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return violations
}

/** Module specifiers of imports, re-exports, `import()` and `require()`, with the node that holds each. */
function importsOf(source: ts.SourceFile): ts.StringLiteralLike[] {
  const specifiers: ts.StringLiteralLike[] = []
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier)
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteralLike(node.moduleReference.expression)) {
      specifiers.push(node.moduleReference.expression)
    } else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
      (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      const argument = node.arguments[0]
      if (argument !== undefined && ts.isStringLiteralLike(argument)) specifiers.push(argument)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)) {
      specifiers.push(node.argument.literal)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return specifiers
}

function engineImports(root: string, file: string, source: ts.SourceFile): Violation[] {
  const allowed = [join(root, 'src', 'engine'), join(root, 'src', 'stdx')]
  const violations: Violation[] = []
  for (const specifier of importsOf(source)) {
    const target = specifier.text.startsWith('.') ? resolve(dirname(join(root, file)), specifier.text) : null
    if (target !== null && allowed.some((dir) => target.startsWith(dir + sep))) continue
    const what = target === null ? 'a package or built-in' : relativePath(root, target)
    violations.push({ file, line: lineOf(source, specifier.getStart(source)), rule: 'engine-import',
      message: `src/engine imports '${specifier.text}' (${what}): only src/engine and src/stdx are allowed` })
  }
  return violations
}

export function formatViolation(violation: Violation): string {
  return `${violation.file}:${violation.line}: ${violation.message}`
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  // An optional root (a fixture tree in the test); the catalogue is always this repository's.
  const violations = tidy(process.argv[2] === undefined ? ROOT : resolve(process.argv[2]))
  for (const violation of violations) console.log(formatViolation(violation))
  if (violations.length > 0) {
    console.log(`tidy: ${violations.length} violation${violations.length === 1 ? '' : 's'}`)
    process.exitCode = 1
  }
}
