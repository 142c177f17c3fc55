/**
 * Checks an answer of the REST API, native or under /compat, against the OpenAPI document (GET /openapi.json, whose
 * schemas are generated from the typed shapes): the operation is found by method and path, the
 * schema by status (a documented status, else `default`, the error body), and the body validated
 * with ajv under JSON Schema 2020-12, OpenAPI 3.1's dialect. Each schema is compiled the first time
 * an answer needs it. test/support/rest-harness.ts runs every answer of the contract suite through it, so
 * a server that drifts from its types fails the test that saw it.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'

type Json = { readonly [key: string]: unknown }

const METHODS = ['get', 'post', 'put', 'patch', 'delete']

/**
 * Operations whose 2xx may still refuse the body it carried (each order of a batch stands alone; a
 * dry run reports failed checks): the body was accepted only when the answer says so.
 */
const ACCEPTED_WHEN: Readonly<Record<string, (answer: any) => boolean>> = {
  'POST /orders': (answer) => answer?.total_failed === 0,
  'POST /order/verify': (answer) => answer?.valid === true,
}
const COMPONENTS_ID = 'predex-components'

interface Operation {
  readonly method: string
  /** The document's path: `/markets/{id}`. */
  readonly path: string
  readonly pattern: RegExp
  readonly parameters: number
  readonly responses: Json
  /** The JSON body's schema, when the operation reads one. */
  readonly request: unknown
}

export interface Answer {
  readonly method: string
  /** As requested: with the query string, without the host. */
  readonly path: string
  readonly status: number
  readonly contentType: string | null
  /** The parsed JSON, or the text when it was not JSON. */
  readonly body: unknown
}

export function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A schema's references into components/schemas, pointed at `target` (the components schema ajv
 * holds: `<its $id>#/$defs/` here, `#/definitions/` in draft-07 for the AsyncAPI validator).
 */
export function localizedRefs(schema: unknown, target: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => localizedRefs(item, target))
  if (!isJson(schema)) return schema
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key,
    key === '$ref' && typeof value === 'string'
      ? value.replace('#/components/schemas/', target) : localizedRefs(value, target)]))
}

/** Whether a content-type is of a documented media type or range (`text/*`; any type, a file of the web page). */
function mediaMatches(range: string, contentType: string | null): boolean {
  if (contentType === null) return false
  if (range === '*/*') return true
  return range.endsWith('/*') ? contentType.startsWith(range.slice(0, -1)) : contentType.startsWith(range)
}

const localized = (schema: unknown): unknown => localizedRefs(schema, `${COMPONENTS_ID}#/$defs/`)

export class ResponseValidator {
  // Strict (an unknown keyword is an error), with `type: [a, b]`, which a union such as number | string becomes.
  private readonly ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true })
  private readonly compiled = new Map<string, ValidateFunction>()
  private readonly operations: readonly Operation[]
  private readonly errorSchema: unknown

  constructor(document: Json) {
    const components = isJson(document.components) && isJson(document.components.schemas)
      ? document.components.schemas : {}
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: localized(components) })
    this.errorSchema = { $ref: '#/components/schemas/Error' }
    const paths = isJson(document.paths) ? document.paths : {}
    this.operations = Object.entries(paths).flatMap(([path, item]) => METHODS
      .filter((method) => isJson(item) && isJson(item[method]))
      .map((method) => {
        const operation = (item as Json)[method] as Json
        const pattern = new RegExp('^' + path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$')
        const body = isJson(operation.requestBody) && isJson(operation.requestBody.content)
          ? operation.requestBody.content['application/json'] : undefined
        return { method: method.toUpperCase(), path, pattern, parameters: path.split('{').length - 1,
          responses: isJson(operation.responses) ? operation.responses : {},
          request: isJson(body) ? body.schema : undefined }
      }))
      // A literal path wins over a template that also matches it (/markets/upcoming over /markets/{id}).
      .sort((a, b) => a.parameters - b.parameters)
  }

  /** The documented operation an answer belongs to, or null (an unknown path). */
  operationOf(method: string, path: string): Operation | null {
    const bare = path.split('?')[0]!
    return this.operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(bare)) ?? null
  }

  /** Why the answer does not fit the document, or null when it does. */
  mismatch(answer: Answer): string | null {
    const operation = this.operationOf(answer.method, answer.path)
    const label = operation === null ? `${answer.method} ${answer.path} (undocumented)`
      : `${operation.method} ${operation.path}`
    if (operation === null && answer.status < 400) return `${label} answered ${answer.status}: not in the document`
    const key = operation !== null && isJson(operation.responses[String(answer.status)])
      ? String(answer.status) : 'default'
    const response = operation?.responses[key]
    // A status documented without content (a 304) answers no body.
    if (isJson(response) && response.content === undefined && key !== 'default') {
      return answer.body === null ? null : `${label} ${answer.status}: documented without a body, answered one`
    }
    const content = isJson(response) && isJson(response.content) ? response.content : null
    // The documented media type the answer has (GET / may answer JSON or a browser's page), else the first.
    const media = content === null ? 'application/json'
      : Object.keys(content).find((range) => mediaMatches(range, answer.contentType)) ?? Object.keys(content)[0]!
    const entry = content?.[media]
    const schema = operation === null ? this.errorSchema : isJson(entry) ? entry.schema : undefined
    if (schema === undefined) return `${label}: status ${answer.status} has no schema in the document`
    if (!mediaMatches(media, answer.contentType)) {
      return `${label} ${answer.status}: content-type ${answer.contentType}, documented ${media}`
    }
    const validate = this.validatorOf(`${label} ${key}`, schema)
    if (validate(answer.body)) return null
    const errors = this.ajv.errorsText(validate.errors, { dataVar: 'body' })
    return `${label} ${answer.status} (schema of ${key}): ${errors}; body ${JSON.stringify(answer.body).slice(0, 400)}`
  }

  /**
   * Why a request body the server accepted (2xx) does not fit the body schema of its route, or
   * null: an accepted body outside the schema means the request type is narrower than the server.
   */
  requestMismatch(method: string, path: string, status: number, text: string, answer: unknown): string | null {
    const operation = this.operationOf(method, path)
    if (operation === null || operation.request === undefined || status >= 300 || text === '') return null
    if (ACCEPTED_WHEN[`${operation.method} ${operation.path}`]?.(answer) === false) return null
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return `${operation.method} ${operation.path} accepted a body that is not JSON`
    }
    const validate = this.validatorOf(`${operation.method} ${operation.path} request`, operation.request)
    if (validate(body)) return null
    return `${operation.method} ${operation.path} accepted (${status}) a body outside its request type: ` +
      `${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}; body ${text.slice(0, 400)}`
  }

  private validatorOf(key: string, schema: unknown): ValidateFunction {
    let validate = this.compiled.get(key)
    if (validate === undefined) {
      validate = this.ajv.compile(localized(schema) as Json)
      this.compiled.set(key, validate)
    }
    return validate
  }
}
