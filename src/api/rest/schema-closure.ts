/**
 * The named schemas a document needs: those its operations or messages reference, and those they
 * reference in turn. The generated components (src/api/rest/gen/schemas.ts) hold the types of
 * both documents; each document carries only its own.
 */
import type { JsonSchema } from './gen/schemas.js'

const PREFIX = '#/components/schemas/'

/** Every component name referenced from `value`, with what they reference, in `components`' order. */
export function referencedSchemas(value: unknown, components: Readonly<Record<string, JsonSchema>>):
  Record<string, JsonSchema> {
  const seen = new Set<string>()
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item)
      return
    }
    if (typeof node !== 'object' || node === null) return
    for (const [key, child] of Object.entries(node)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(PREFIX)) {
        const name = child.slice(PREFIX.length)
        if (seen.has(name)) continue
        if (!Object.hasOwn(components, name)) throw new Error(`${child}: no such schema`)
        seen.add(name)
        visit(components[name])
      } else {
        visit(child)
      }
    }
  }
  visit(value)
  return Object.fromEntries(Object.entries(components).filter(([name]) => seen.has(name)))
}
