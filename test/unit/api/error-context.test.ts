/**
 * Every error's context fields are documented as they are sent (issue 15, point 8): the fields
 * src/error-context.ts declares for each code are exactly the fields the sources write, and
 * docs/errors.md is what scripts/error-docs.ts makes of them now.
 *
 * How: src/**\/*.ts (not tests, not src/gen) is parsed once with the TypeScript compiler's parser
 * (syntax trees, no type checker: fast). Every place a context is made is found: `new
 * PredexError(code, message, context)`, `engineError(code, message, context)`, the engine's
 * `rejection(code, context)`, `authFailure(code, message, context)`, the signature verdicts
 * `fail(check, message, context)` of src/crypto/verify-order.ts (INVALID_SIGNATURE, or
 * ORDER_VERSION_MISMATCH for the check `signature-version`: src/service/trading/signed-order.ts), and the
 * objects refusal-fix.ts adds to INVALID_ORDER_NOT_ENOUGH_BALANCE. For each, the code and the
 * field names are resolved from the syntax: `Code.X` and its siblings, conditionals, local
 * constants, object literals and their spreads, and a helper's parameter through the helper's
 * callers (`invalid(field, message, { allowed })`, `this.busy({ pendingMax })`). What cannot be
 * resolved must be in DYNAMIC below, with why it is safe; an entry no longer used fails too.
 *
 * Then: every field written is declared for its code; every declared field is written somewhere
 * (a removed field cannot stay documented); and docs/errors.md equals a fresh generation.
 * `ERROR_CONTEXT_DUMP=1 npx tap test/unit/api/error-context.test.ts` prints every code and field
 * written, with where.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import ts from 'typescript'
import { CATALOGUE, type ErrorCode } from '../../../src/errors.js'
import { ERROR_CONTEXT } from '../../../src/error-context.js'
import { ERRORS_DOC_FILE, errorsDoc } from '../../../scripts/error-docs.js'
import { ROOT } from '../../support/compiled.js'

/** How far a value is followed through constants and callers' arguments (a cycle stops here). */
const DEPTH_MAX = 8

interface Sink {
  /** The function called (or the class constructed); the last name of a property access counts. */
  readonly callee: string
  readonly construct: boolean
  /** Only calls in this file (`fail` is a common name). */
  readonly file?: string
  /** Index of the code argument, and of the context argument. */
  readonly code: number
  readonly context: number
  /** The code argument is a signature check, not a code (src/crypto/verify-order.ts). */
  readonly isCheck?: boolean
}

const SINKS: readonly Sink[] = [
  { callee: 'PredexError', construct: true, code: 0, context: 2 },
  { callee: 'engineError', construct: false, code: 0, context: 2 },
  { callee: 'rejection', construct: false, code: 0, context: 1 },
  { callee: 'authFailure', construct: false, code: 0, context: 2 },
  { callee: 'fail', construct: false, file: 'src/crypto/verify-order.ts', code: 0, context: 2, isCheck: true },
]

/**
 * Functions whose returned objects are fields added to a code elsewhere: withFix (refusal-fix.ts)
 * spreads what usdcFix and sharesFix return into INVALID_ORDER_NOT_ENOUGH_BALANCE's context.
 */
const ADDED: readonly { file: string; functions: readonly string[]; code: ErrorCode }[] = [
  { file: 'src/service/trading/refusal-fix.ts', functions: ['usdcFix', 'sharesFix'], code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' },
]

/**
 * The sources the syntax cannot resolve, each safe for a stated reason. `codes`: the codes the
 * site can carry, as the engine functions named (their `rejection` sites) give them, so that the
 * fields the site adds are checked against those codes.
 */
interface Dynamic {
  readonly file: string
  /** The unresolved expression, as written (white space collapsed). */
  readonly text: string
  readonly why: string
  readonly codesOf?: { readonly file: string; readonly functions: readonly string[] }
}

const DYNAMIC: readonly Dynamic[] = [
  { file: 'src/auth/gate.ts', text: 'identity.code',
    why: 'an AuthFailure passed on as it is' },
  { file: 'src/auth/gate.ts', text: 'identity.context',
    why: "an AuthFailure's context, checked where authFailure(...) makes it" },
  { file: 'src/service/testnet/testnet.ts', text: 'timing.code',
    why: "checkRelayTiming's rejection (src/engine/rules.ts) passed on as it is" },
  { file: 'src/service/testnet/testnet.ts', text: 'timing.context',
    why: "checkRelayTiming's rejection context, checked where rejection(...) makes it" },
  { file: 'src/service/testnet/chain-relay.ts', text: 'refusal.code',
    why: 'a ledger rule\'s rejection (checkFreeFunds, checkUsdcApproval, checkRedeemable: src/engine/rules.ts) passed on as it is' },
  { file: 'src/service/testnet/chain-relay.ts', text: 'refusal.context',
    why: 'that rejection\'s context, checked where rejection(...) makes it' },
  { file: 'src/service/trading/signed-order.ts', text: 'verdict.code',
    why: "checkOrderOnMarket's rejection (src/engine/rules.ts) passed on as it is" },
  { file: 'src/service/trading/signed-order.ts', text: 'verdict.context',
    why: 'a rejection context (checked at rejection(...)) or a signature verdict context (checked at fail(...))' },
  { file: 'src/service/commands.ts', text: 'rejection.code',
    why: 'an engine rejection passed on as it is' },
  { file: 'src/service/commands.ts', text: 'withFix(rejection.code, rejection.context)',
    why: 'the rejection context (checked at rejection(...)) plus what usdcFix and sharesFix return (ADDED)' },
  { file: 'src/service/admin/admin.ts', text: 'error.code',
    why: 'the engine refused one change of an admin market update: its code, with `field` and `applied` added',
    codesOf: { file: 'src/engine/market-admin.ts', functions: ['setTickSize', 'setFeeRate', 'setMarketStatus'] } },
  { file: 'src/service/admin/admin.ts', text: 'error.context',
    why: 'that rejection context, checked where rejection(...) makes it' },
  { file: 'src/api/rest/server.ts', text: '(error as { code?: unknown }).code',
    why: 'a coded error that lost its class (thrown across a boundary) passed on as it is' },
  { file: 'src/api/rest/server.ts', text: '(error as { context?: Record<string, unknown> }).context',
    why: "that error's own context, made by one of the sites checked here" },
]

// ---- Parsing ------------------------------------------------------------------------------------

interface Parsed {
  /** Relative to the root, with `/` separators. */
  readonly file: string
  readonly source: ts.SourceFile
}

function sourcesUnder(folder: string): Parsed[] {
  const parsed: Parsed[] = []
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
    const path = `${folder}/${entry.name}`
    if (entry.isDirectory()) {
      if (path !== 'src/gen') parsed.push(...sourcesUnder(path))
    } else if (path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts')) {
      const text = readFileSync(join(ROOT, path), 'utf8')
      parsed.push({ file: path, source: ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true) })
    }
  }
  return parsed
}

type Invocation = ts.CallExpression | ts.NewExpression

interface Located<N extends ts.Node> {
  readonly file: string
  readonly node: N
}

function calleeName(node: Invocation): string | null {
  const callee = node.expression
  if (ts.isIdentifier(callee)) return callee.text
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text
  return null
}

/** Every call and construction of the sources, by the name called. */
function invocationsOf(sources: readonly Parsed[]): Map<string, Located<Invocation>[]> {
  const byName = new Map<string, Located<Invocation>[]>()
  for (const { file, source } of sources) {
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
        const name = calleeName(node)
        if (name !== null) byName.set(name, [...(byName.get(name) ?? []), { file, node }])
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return byName
}

// ---- Resolving values ---------------------------------------------------------------------------

/** What an expression can be: the expressions it comes from (literals, accesses, calls...), and what stopped. */
interface Origins {
  readonly leaves: Located<ts.Expression>[]
  readonly unresolved: Located<ts.Expression>[]
}

function textOf(node: ts.Node): string {
  return node.getText().replace(/\s+/g, ' ')
}

function lineOf(located: Located<ts.Node>): string {
  const { line } = located.node.getSourceFile().getLineAndCharacterOfPosition(located.node.getStart())
  return `${located.file}:${line + 1}`
}

/** The declaration an identifier names: a parameter of an enclosing function, or a variable of an enclosing block. */
function declarationOf(id: ts.Identifier): ts.ParameterDeclaration | ts.VariableDeclaration | undefined {
  for (let node: ts.Node = id.parent; node !== undefined; node = node.parent) {
    if (ts.isFunctionLike(node)) {
      const parameter = node.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === id.text)
      if (parameter !== undefined) return parameter
    }
    if (ts.isBlock(node) || ts.isSourceFile(node)) {
      for (const statement of node.statements) {
        if (!ts.isVariableStatement(statement)) continue
        const found = statement.declarationList.declarations
          .find((d) => ts.isIdentifier(d.name) && d.name.text === id.text)
        if (found !== undefined) return found
      }
    }
  }
  return undefined
}

/** The name a function is called by: its own, or the variable's it is assigned to. */
function functionName(fn: ts.SignatureDeclaration): string | null {
  if (fn.name !== undefined && ts.isIdentifier(fn.name)) return fn.name.text
  const parent = fn.parent
  if (parent !== undefined && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text
  return null
}

class Resolver {
  constructor(private readonly invocations: ReadonlyMap<string, readonly Located<Invocation>[]>) {}

  /** The origins of `node`, through parentheses, casts, conditionals, `??`, constants and parameters. */
  origins(located: Located<ts.Expression>, depth = 0): Origins {
    const { file, node } = located
    const result: Origins = { leaves: [], unresolved: [] }
    const add = (more: Origins): void => {
      result.leaves.push(...more.leaves)
      result.unresolved.push(...more.unresolved)
    }
    if (depth > DEPTH_MAX) return { leaves: [], unresolved: [located] }
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node)) {
      return this.origins({ file, node: node.expression }, depth + 1)
    }
    if (ts.isConditionalExpression(node)) {
      add(this.origins({ file, node: node.whenTrue }, depth + 1))
      add(this.origins({ file, node: node.whenFalse }, depth + 1))
      return result
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) {
      add(this.origins({ file, node: node.left }, depth + 1))
      add(this.origins({ file, node: node.right }, depth + 1))
      return result
    }
    if (ts.isIdentifier(node) && node.text !== 'undefined') return this.ofIdentifier({ file, node }, depth)
    return { leaves: [located], unresolved: [] }
  }

  private ofIdentifier(located: Located<ts.Identifier>, depth: number): Origins {
    const declaration = declarationOf(located.node)
    if (declaration === undefined) return { leaves: [], unresolved: [located] }
    if (ts.isVariableDeclaration(declaration)) {
      const constant = (declaration.parent.flags & ts.NodeFlags.Const) !== 0
      if (!constant || declaration.initializer === undefined) return { leaves: [], unresolved: [located] }
      return this.origins({ file: located.file, node: declaration.initializer }, depth + 1)
    }
    return this.ofParameter(located, declaration, depth)
  }

  /** A parameter: the arguments its function's callers pass (in its file, else anywhere), or its default. */
  private ofParameter(located: Located<ts.Identifier>, parameter: ts.ParameterDeclaration, depth: number): Origins {
    const fn = parameter.parent
    const name = functionName(fn)
    if (name === null) return { leaves: [], unresolved: [located] }
    const index = fn.parameters.indexOf(parameter)
    const all = (this.invocations.get(name) ?? []).filter((call) => call.node.arguments?.length !== undefined)
    const local = all.filter((call) => call.file === located.file)
    const callers = local.length > 0 ? local : all
    const result: Origins = { leaves: [], unresolved: [] }
    for (const call of callers) {
      const argument = call.node.arguments?.[index] ?? parameter.initializer
      if (argument === undefined) continue
      const more = this.origins({ file: call.file, node: argument }, depth + 1)
      result.leaves.push(...more.leaves)
      result.unresolved.push(...more.unresolved)
    }
    return result
  }
}

// ---- Sites --------------------------------------------------------------------------------------

const CODE_TABLES = new Set(['Code', 'ApiCode', 'AuthCode', 'ServiceCode'])

/** One place a context is made. */
interface Site {
  readonly where: string
  readonly file: string
  /** The name of the function it is in ('' at the top level). */
  readonly inFunction: string
  readonly codes: Set<ErrorCode>
  readonly fields: Set<string>
  /** `file: text` of each expression left unresolved. */
  readonly unresolved: string[]
}

function isCode(text: string): text is ErrorCode {
  return Object.hasOwn(CATALOGUE, text)
}

/** The code of a leaf: `Code.X` (or ApiCode, AuthCode, ServiceCode), or a string literal; null if neither. */
function codeOfLeaf(node: ts.Expression): ErrorCode | null {
  if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) &&
    CODE_TABLES.has(node.expression.text) && isCode(node.name.text)) return node.name.text
  if (ts.isStringLiteralLike(node) && isCode(node.text)) return node.text
  return null
}

/** A signature check's code (signed-order.ts, signatureError); a check not known here could be either. */
function codesOfCheck(node: ts.Expression): ErrorCode[] {
  if (!ts.isStringLiteralLike(node)) return ['INVALID_SIGNATURE', 'ORDER_VERSION_MISMATCH']
  return [node.text === 'signature-version' ? 'ORDER_VERSION_MISMATCH' : 'INVALID_SIGNATURE']
}

function isNothing(node: ts.Expression): boolean {
  return node.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(node) && node.text === 'undefined')
}

function enclosingFunction(node: ts.Node): string {
  for (let n: ts.Node | undefined = node.parent; n !== undefined; n = n.parent) {
    if (ts.isFunctionLike(n)) {
      const name = functionName(n)
      if (name !== null) return name
    }
  }
  return ''
}

class Sites {
  readonly sites: Site[] = []
  constructor(private readonly resolver: Resolver) {}

  /** Adds the site of one sink invocation. */
  addSink(sink: Sink, call: Located<Invocation>): void {
    const args = call.node.arguments ?? []
    const site = this.site(call)
    const code = args[sink.code]
    if (code !== undefined) this.addCodes(site, { file: call.file, node: code }, sink.isCheck === true)
    const context = args[sink.context]
    if (context !== undefined) this.addFields(site, { file: call.file, node: context })
    this.sites.push(site)
  }

  /** Adds the returned objects of a function as fields of `code`. */
  addReturned(file: string, fn: ts.FunctionDeclaration, code: ErrorCode): void {
    const visit = (node: ts.Node): void => {
      if (ts.isReturnStatement(node) && node.expression !== undefined) {
        const site = this.site({ file, node })
        site.codes.add(code)
        this.addFields(site, { file, node: node.expression })
        this.sites.push(site)
      }
      ts.forEachChild(node, visit)
    }
    visit(fn)
  }

  private site(located: Located<ts.Node>): Site {
    return { where: lineOf(located), file: located.file, inFunction: enclosingFunction(located.node),
      codes: new Set(), fields: new Set(), unresolved: [] }
  }

  private addCodes(site: Site, located: Located<ts.Expression>, isCheck: boolean): void {
    const origins = this.resolver.origins(located)
    for (const leaf of origins.leaves) {
      if (isCheck) {
        for (const code of codesOfCheck(leaf.node)) site.codes.add(code)
        continue
      }
      const code = codeOfLeaf(leaf.node)
      if (code !== null) site.codes.add(code)
      else site.unresolved.push(`${leaf.file}: ${textOf(leaf.node)}`)
    }
    for (const stop of origins.unresolved) site.unresolved.push(`${stop.file}: ${textOf(stop.node)}`)
  }

  private addFields(site: Site, located: Located<ts.Expression>): void {
    const origins = this.resolver.origins(located)
    for (const stop of origins.unresolved) site.unresolved.push(`${stop.file}: ${textOf(stop.node)}`)
    for (const leaf of origins.leaves) {
      if (isNothing(leaf.node)) continue
      if (!ts.isObjectLiteralExpression(leaf.node)) {
        site.unresolved.push(`${leaf.file}: ${textOf(leaf.node)}`)
        continue
      }
      for (const property of leaf.node.properties) {
        if (ts.isSpreadAssignment(property)) this.addFields(site, { file: leaf.file, node: property.expression })
        else if (property.name !== undefined && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
          site.fields.add(property.name.text)
        } else site.unresolved.push(`${leaf.file}: ${textOf(property)}`)
      }
    }
  }
}

/** Every site of the sources, with the dynamic sources of DYNAMIC applied (and counted in `used`). */
function sitesOf(sources: readonly Parsed[], used: Set<Dynamic>): Site[] {
  const invocations = invocationsOf(sources)
  const sites = new Sites(new Resolver(invocations))
  for (const sink of SINKS) {
    for (const call of invocations.get(sink.callee) ?? []) {
      if (ts.isNewExpression(call.node) !== sink.construct) continue
      if (sink.file !== undefined && call.file !== sink.file) continue
      sites.addSink(sink, call)
    }
  }
  for (const added of ADDED) {
    const source = sources.find((s) => s.file === added.file)?.source
    for (const statement of source?.statements ?? []) {
      if (ts.isFunctionDeclaration(statement) && added.functions.includes(statement.name?.text ?? '')) {
        sites.addReturned(added.file, statement, added.code)
      }
    }
  }
  const all = sites.sites
  for (const site of all) {
    site.unresolved.splice(0, site.unresolved.length, ...site.unresolved.filter((key) => {
      const entry = DYNAMIC.find((d) => `${d.file}: ${d.text}` === key)
      if (entry === undefined) return true
      used.add(entry)
      const from = entry.codesOf
      if (from !== undefined) {
        for (const other of all) {
          if (other.file === from.file && from.functions.includes(other.inFunction)) {
            for (const code of other.codes) site.codes.add(code)
          }
        }
      }
      return false
    }))
  }
  return all
}

// ---- The checks ---------------------------------------------------------------------------------

const started = performance.now()
const used = new Set<Dynamic>()
const SITES = sitesOf(sourcesUnder('src'), used)
const parseMs = performance.now() - started

/** `code field` of every field written, with where. */
function written(): Map<string, string[]> {
  const pairs = new Map<string, string[]>()
  for (const site of SITES) {
    for (const code of site.codes) {
      for (const field of site.fields) {
        const pair = `${code} ${field}`
        pairs.set(pair, [...(pairs.get(pair) ?? []), site.where])
      }
    }
  }
  return pairs
}

t.test('the sources are parsed and their contexts found', async (t) => {
  t.ok(SITES.length > 150, `${SITES.length} sites where an error is made`)
  // Some 2 s alone; the bound leaves room for a loaded machine (the suite runs three files at a time).
  t.ok(parseMs < 30_000, `parsed and resolved in ${Math.round(parseMs)} ms`)
  if (process.env['ERROR_CONTEXT_DUMP'] !== undefined) {
    for (const [pair, where] of [...written()].sort()) t.comment(`${pair}  ${where.join(' ')}`)
  }
})

t.test('every context source is resolved, or listed in DYNAMIC with why', async (t) => {
  const unresolved = SITES.flatMap((site) => site.unresolved.map((key) => `${site.where}: ${key}`))
  t.same(unresolved, [], 'no unresolved context source outside DYNAMIC (resolve it, or add it there with why)')
  const codeless = SITES.filter((site) => site.fields.size > 0 && site.codes.size === 0 && site.unresolved.length === 0)
  t.same(codeless.map((site) => site.where), [], 'every site with fields has a code')
  const stale = DYNAMIC.filter((entry) => !used.has(entry)).map((entry) => `${entry.file}: ${entry.text}`)
  t.same(stale, [], 'every DYNAMIC entry is still used')
})

t.test('every context field written is declared for its code in ERROR_CONTEXT', async (t) => {
  const undeclared = [...written()].filter(([pair]) => {
    const [code, field] = pair.split(' ') as [ErrorCode, string]
    return ERROR_CONTEXT[code]?.[field] === undefined
  }).map(([pair, where]) => `${pair.replace(' ', '.')} (${where.join(', ')})`)
  t.same(undeclared, [], 'declare these in src/error-context.ts (then npm run gen:errors)')
})

t.test('every field ERROR_CONTEXT declares is written somewhere, and says what it means', async (t) => {
  const pairs = written()
  const declared = Object.entries(ERROR_CONTEXT).flatMap(([code, fields]) =>
    Object.entries(fields ?? {}).map(([field, meaning]) => ({ code, field, meaning })))
  t.ok(declared.length > 100, `${declared.length} fields declared`)
  t.same(declared.filter((d) => !pairs.has(`${d.code} ${d.field}`)).map((d) => `${d.code}.${d.field}`), [],
    'no source writes these: remove them from src/error-context.ts (then npm run gen:errors)')
  t.same(declared.filter((d) => d.meaning.length < 10).map((d) => `${d.code}.${d.field}`), [], 'each has a meaning')
  // PredexError.body() keeps its own `error` and `code`: a context field of that name never reaches a client.
  t.same(declared.filter((d) => d.field === 'error' || d.field === 'code').map((d) => `${d.code}.${d.field}`), [],
    'no field is named as the body\'s own `error` or `code`')
})

t.test('docs/errors.md is what `npm run gen:errors` makes now', async (t) => {
  t.equal(readFileSync(ERRORS_DOC_FILE, 'utf8'), errorsDoc(), 'docs/errors.md is current: run npm run gen:errors')
})
