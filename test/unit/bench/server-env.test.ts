/**
 * The benchmarks and the contract tests start the server in the environment `npm start` gives it
 * (bench/predex-server.ts, SERVER_ENV): each variable the harness sets is set the same way by
 * package.json's start script, with the operator's own value kept, and the start script still
 * runs the server itself (exec, no shell left in between).
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { SERVER_ENV } from '../../../bench/predex-server.js'

const startScript = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.start!

t.test('npm start sets what the harness sets, and an operator\'s value wins', (t) => {
  t.ok(Object.keys(SERVER_ENV).length > 0, 'the harness sets a variable')
  for (const [name, value] of Object.entries(SERVER_ENV)) {
    const defaultValue = process.env[name] === undefined ? value : null
    t.match(startScript, `${name}=\${${name}:-`, `${name}: the start script keeps an operator's own value`)
    if (defaultValue !== null) t.match(startScript, `${name}=\${${name}:-${defaultValue}}`, `${name}: the same default`)
  }
  t.match(startScript, /^exec env .* node scripts\/start\.mjs$/, 'the shell gives way to the server (signals reach it)')
  t.end()
})
