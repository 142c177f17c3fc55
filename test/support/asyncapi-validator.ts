/**
 * Checks a frame a WebSocket channel sent against the AsyncAPI document (GET /asyncapi.json, whose
 * schemas are generated from the types the channels build their messages with): the channel is
 * found by its address (`/ws/market`), the message by the frame itself (text PONG; an array, the
 * book dump; else its `event_type`), and the payload validated with ajv under JSON Schema draft-07,
 * AsyncAPI's default schema format. test/support/ws-client.ts runs every frame a contract test receives
 * through it, as test/support/rest-harness.ts does with REST answers and the OpenAPI document.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import { isJson, localizedRefs } from './openapi-validator.js'

type Json = { readonly [key: string]: unknown }

const COMPONENTS_ID = 'predex-ws-components'

const localized = (schema: unknown): unknown => localizedRefs(schema, `${COMPONENTS_ID}#/definitions/`)

/** The name of the message a frame is, by what it carries. */
export function messageNameOf(text: string, body: unknown): string {
  if (text === 'PONG') return 'pong'
  if (Array.isArray(body)) return 'book'
  return isJson(body) && typeof body.event_type === 'string' ? body.event_type : '(no event_type)'
}

export class WsMessageValidator {
  // Strict (an unknown keyword is an error), unions of types allowed (number | string), tuples as draft-07 writes them.
  private readonly ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, strictTuples: false })
  private readonly compiled = new Map<string, ValidateFunction>()
  /** Address -> the channel's id and the messages the server sends on it (name -> payload schema). */
  private readonly channels = new Map<string, { id: string; sent: Map<string, unknown> }>()

  constructor(document: Json) {
    const components = isJson(document.components) && isJson(document.components.schemas)
      ? document.components.schemas : {}
    this.ajv.addSchema({ $id: COMPONENTS_ID, definitions: localized(components) })
    const channels = isJson(document.channels) ? document.channels : {}
    const operations = isJson(document.operations) ? Object.values(document.operations).filter(isJson) : []
    for (const [id, channel] of Object.entries(channels)) {
      if (!isJson(channel) || !isJson(channel.messages)) continue
      const messages = channel.messages
      const sent = new Map<string, unknown>()
      for (const operation of operations) {
        if (operation.action !== 'send' || !isJson(operation.channel) || operation.channel.$ref !== `#/channels/${id}`) {
          continue
        }
        for (const ref of Array.isArray(operation.messages) ? operation.messages.filter(isJson) : []) {
          const name = String(ref.$ref).slice(String(ref.$ref).lastIndexOf('/') + 1)
          const message = messages[name]
          if (isJson(message)) sent.set(name, message.payload)
        }
      }
      this.channels.set(String(channel.address), { id, sent })
    }
  }

  /** The channel ids by address, and the messages the server sends on each. */
  sentMessages(address: string): string[] {
    return [...this.channels.get(address)?.sent.keys() ?? []]
  }

  /** Why a frame the server sent on `address` does not fit the document, or null when it does. */
  mismatch(address: string, text: string): string | null {
    const channel = this.channels.get(address)
    if (channel === undefined) return `${address}: no such channel in the document`
    let body: unknown = text
    if (text !== 'PONG') {
      try {
        body = JSON.parse(text)
      } catch {
        return `${address}: a frame that is neither JSON nor PONG: ${text.slice(0, 200)}`
      }
    }
    const name = messageNameOf(text, body)
    const payload = channel.sent.get(name)
    if (payload === undefined) return `${address}: message "${name}" is not one the document says the server sends`
    const key = `${channel.id}/${name}`
    let validate = this.compiled.get(key)
    if (validate === undefined) {
      validate = this.ajv.compile(localized(payload) as Json)
      this.compiled.set(key, validate)
    }
    if (validate(body)) return null
    return `${address} ${name}: ${this.ajv.errorsText(validate.errors, { dataVar: 'message' })}; ` +
      `frame ${text.slice(0, 400)}`
  }
}
