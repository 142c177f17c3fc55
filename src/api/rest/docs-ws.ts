/**
 * GET /docs's WebSocket section, rendered from the AsyncAPI document (asyncapi.ts): each channel's
 * address and rules, then what a client sends and what the server sends, each message with its
 * payload drawn from its schema.
 */
import { escape, isJson, list, schemaBlock, type Json, type Schemas } from './docs-schema.js'

/** The message names an operation of `action` lists for a channel (its `$ref`s' last segment). */
function messageNames(operations: Json, channelId: string, action: 'send' | 'receive'): string[] {
  return Object.values(operations).filter(isJson)
    .filter((operation) => operation.action === action && isJson(operation.channel) &&
      operation.channel.$ref === `#/channels/${channelId}`)
    .flatMap((operation) => list(operation.messages).filter(isJson))
    .map((ref) => String(ref.$ref).slice(String(ref.$ref).lastIndexOf('/') + 1))
}

function messageOf(channelId: string, name: string, message: Json, schemas: Schemas): string {
  const media = typeof message.contentType === 'string' ? ` <code>${escape(message.contentType)}</code>` : ''
  return `<details id="ws-${escape(channelId)}-${escape(name)}"><summary><code>${escape(name)}</code>${media} ` +
    `<span class="d">${escape(message.summary ?? '')}</span></summary>${schemaBlock(message.payload, schemas)}` +
    '</details>'
}

function channelOf(id: string, channel: Json, operations: Json, schemas: Schemas): string {
  const messages = isJson(channel.messages) ? channel.messages : {}
  const group = (action: 'send' | 'receive', title: string): string => {
    const items = messageNames(operations, id, action).filter((name) => isJson(messages[name]))
      .map((name) => messageOf(id, name, messages[name] as Json, schemas))
    return items.length === 0 ? '' : `<h4>${title}</h4>${items.join('')}`
  }
  return `<h3 id="ws-${escape(id)}">${escape(channel.title ?? id)}: <code>${escape(channel.address)}</code></h3>` +
    `<p>${escape(channel.description ?? '')}</p>` +
    group('receive', 'The client sends') + group('send', 'The server sends')
}

/** The section of an AsyncAPI document as asyncApiDocument (src/api/rest/asyncapi.ts) builds it. */
export function wsSection(document: Json, schemas: Schemas): string {
  const channels = isJson(document.channels) ? document.channels : {}
  const operations = isJson(document.operations) ? document.operations : {}
  const info = isJson(document.info) ? document.info : {}
  return '<h2 id="websocket">WebSocket</h2>' +
    `<p>${escape(info.description ?? '')} The machine-readable form: <a href="/asyncapi.json">/asyncapi.json</a> ` +
    '(AsyncAPI 3.0). Addresses are on the REST port: <code>ws://&lt;host&gt;:&lt;port&gt;/ws/market</code>.</p>' +
    Object.entries(channels).filter(([, channel]) => isJson(channel))
      .map(([id, channel]) => channelOf(id, channel as Json, operations, schemas)).join('\n')
}
