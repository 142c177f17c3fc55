/**
 * An authentication header given twice (issue 27, finding 10: a duplicated admin-key header was
 * reported to reset the connection). HTTP allows a header list to repeat a name, and the REST face
 * kept the last one, so which of two admin keys or API keys a request was judged by depended on
 * the order of the lines: such a request is ambiguous, and is refused with 400 BAD_REQUEST naming
 * the header, on a connection that stays usable.
 */
import t from 'tap'
import { connect } from 'node:net'
import { startServer } from '../support/rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())
const adminKey = server.predex.adminKey

/**
 * Sends `head`, then, once it is answered, GET /time on the same connection (not pipelined: uWS
 * closes a connection that sends a request while its previous one is unanswered): the answers.
 */
function exchange(head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.predex.port, '127.0.0.1', () => socket.write(head))
    let answer = ''
    let second = false
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1')
      const length = Number(/content-length: (\d+)/i.exec(answer)?.[1] ?? NaN)
      const bodyStart = answer.indexOf('\r\n\r\n') + 4
      if (!second && bodyStart > 3 && answer.length >= bodyStart + length) {
        second = true
        socket.write('GET /time HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n')
      }
    })
    socket.on('end', () => resolve(answer))
    socket.on('close', () => resolve(answer))
    socket.on('error', reject)
    setTimeout(() => socket.destroy(new Error(`no end; so far: ${answer}`)), 5_000).unref()
  })
}

const cases: [string, string][] = [
  ['the admin key twice, equal', `EXCHANGE-ADMIN-KEY: ${adminKey}\r\nEXCHANGE-ADMIN-KEY: ${adminKey}\r\n`],
  ['the admin key twice, a wrong one first', `EXCHANGE-ADMIN-KEY: wrong\r\nEXCHANGE-ADMIN-KEY: ${adminKey}\r\n`],
  ['an API key twice (POLY_*)', 'POLY_API_KEY: a\r\nPOLY_API_KEY: b\r\n'],
]

for (const [what, headers] of cases) {
  t.test(`${what}: 400 BAD_REQUEST naming the header, and the connection goes on`, async (t) => {
    const answer = await exchange(`GET /admin/stats HTTP/1.1\r\nHost: t\r\n${headers}\r\n`)
    const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])
    t.same(statuses, ['400', '200'], `the refusal, then GET /time on the same connection (${JSON.stringify(answer.slice(0, 120))})`)
    const body = /\r\n\r\n(\{[^\r]*\})/.exec(answer)?.[1] ?? '{}'
    t.match(JSON.parse(body), { code: 'BAD_REQUEST', field: /^(exchange-admin-key|poly_api_key)$/ })
  })
}

t.test('one admin key: still 200', async (t) => {
  const answer = await exchange(`GET /admin/stats HTTP/1.1\r\nHost: t\r\nEXCHANGE-ADMIN-KEY: ${adminKey}\r\n\r\n`)
  t.match(answer, /^HTTP\/1\.1 200/)
})
