// Module hooks of scripts/ts-loader.mjs. The sources import each other as `./x.js` (NodeNext
// resolution, the same paths the build's output uses), so a relative `.js` that does not exist
// resolves to the `.ts` beside it; a `.ts` is compiled by swc to an ES module with an inline
// source map (stack traces and tap's failure lines point into the source). tsconfig's
// isolatedModules and verbatimModuleSyntax keep a file compilable on its own, as swc needs.
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
let swc // loaded at the first .ts: a hook thread that only resolves need not pay for it

const SWC_OPTIONS = {
  sourceMaps: 'inline',
  module: { type: 'es6' },
  jsc: { parser: { syntax: 'typescript' }, target: 'es2022', transform: { useDefineForClassFields: true } },
}

export async function resolve(specifier, context, next) {
  const relative = specifier.startsWith('.') || specifier.startsWith('file:')
  if (relative && specifier.endsWith('.js') && context.parentURL?.startsWith('file:')) {
    const url = new URL(specifier, context.parentURL)
    const source = new URL(`${url.href.slice(0, -'.js'.length)}.ts`)
    if (!existsSync(url) && existsSync(source)) return { url: source.href, format: 'module', shortCircuit: true }
  }
  return next(specifier, context)
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context)
  const filename = fileURLToPath(url)
  swc ??= require('@swc/core')
  const { code } = swc.transformSync(await readFile(filename, 'utf8'), { ...SWC_OPTIONS, filename })
  return { format: 'module', source: code, shortCircuit: true }
}
