// npm run cluster:local -- --base-port P [--data-dir DIR]: a local high-availability cluster on
// loopback (issue 34): three nats-servers clustered with JetStream (client ports P..P+2, routes
// P+10..P+12), then a primary, a standby and a read replica (REST P+20..P+22, gRPC P+30..P+32)
// replicating on a stream of three copies. When all answer it prints one JSON line:
//   {"nats": ["127.0.0.1:P", ...], "nodes": [{"role", "pid", "http", "grpc"}, ...]}
// and runs until SIGTERM or SIGINT, which stop the nodes, then the nats-servers. Nodes take their
// settings from the environment as `npm start` does (ADMIN_API_KEY, DEMO, ...); data goes under
// DIR (./data/cluster by default): nats-1..3, primary, standby, replica. Every node of a cluster
// must share the master key (API secrets derive from it: a client's key must still verify after a
// failover) and the admin key: PREDEX_MASTER_KEY and ADMIN_API_KEY, made here when not set.
// The JSON line also gives the nats-servers' pids (`natsPids`), for fault tests.
/* global setTimeout, clearTimeout, setInterval, clearInterval */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import { buildIfStale } from './build.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const NATS_SERVER = '/usr/sbin/nats-server'
const START_MS_MAX = 60_000
const ROLES = ['primary', 'standby', 'replica']

function option(name, fallback) {
  const at = process.argv.indexOf(name)
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback
}

const basePort = Number(option('--base-port', '4300'))
if (!Number.isInteger(basePort) || basePort < 1024 || basePort > 65_000 - 40) {
  process.stderr.write(`cluster:local: --base-port must be an integer from 1024 to 64960, got ${basePort}\n`)
  process.exit(2)
}
const dataDir = resolve(option('--data-dir', join(ROOT, 'data', 'cluster')))
const children = []
const env = { ...process.env, PREDEX_MASTER_KEY: process.env.PREDEX_MASTER_KEY || randomBytes(32).toString('hex'),
  ADMIN_API_KEY: process.env.ADMIN_API_KEY || randomBytes(24).toString('hex') }

/** Starts `command`, its output prefixed with `name` on stderr; resolves once `ready` matches it. */
function start(name, command, args, ready) {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env })
  children.push(child)
  let output = ''
  const onData = (text) => {
    output += text
    for (const line of text.split('\n').filter((l) => l !== '')) process.stderr.write(`[${name}] ${line}\n`)
  }
  child.stdout.setEncoding('utf8').on('data', onData)
  child.stderr.setEncoding('utf8').on('data', onData)
  return new Promise((resolveReady, reject) => {
    const deadline = setTimeout(() => reject(new Error(`${name} did not start in ${START_MS_MAX} ms`)), START_MS_MAX)
    const check = setInterval(() => {
      if (ready.test(output)) {
        clearInterval(check)
        clearTimeout(deadline)
        resolveReady(child)
      } else if (child.exitCode !== null) {
        clearInterval(check)
        clearTimeout(deadline)
        reject(new Error(`${name} exited (code ${child.exitCode})`))
      }
    }, 50)
  })
}

async function stopAll() {
  // Nodes first (a clean stop gives the lease up after the last group), then the nats-servers.
  const nodes = children.filter((c) => c.spawnfile !== NATS_SERVER)
  for (const group of [nodes, children.filter((c) => c.spawnfile === NATS_SERVER)]) {
    await Promise.all(group.map((child) => new Promise((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done()
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      child.once('exit', () => { clearTimeout(killer); done() })
      child.kill('SIGTERM')
    })))
  }
}

/** Resolves once the cluster's JetStream answers (its meta leader elected). */
async function jetStreamReady(servers) {
  const deadline = Date.now() + START_MS_MAX
  for (;;) {
    try {
      const connection = await connect({ servers })
      try {
        await (await jetstreamManager(connection)).getAccountInfo()
        return
      } finally {
        await connection.close()
      }
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`JetStream did not become ready: ${error.message}`, { cause: error })
      await new Promise((done) => setTimeout(done, 200))
    }
  }
}

async function main() {
  if (buildIfStale() !== 0) throw new Error('the build failed (npm run build shows why)')
  const nats = [0, 1, 2].map((i) => `127.0.0.1:${basePort + i}`)
  const routes = [0, 1, 2].map((i) => `nats://127.0.0.1:${basePort + 10 + i}`)
  const natsChildren = await Promise.all([0, 1, 2].map((i) => {
    const store = join(dataDir, `nats-${i + 1}`)
    mkdirSync(store, { recursive: true })
    return start(`nats-${i + 1}`, NATS_SERVER, ['-js', '-a', '127.0.0.1', '-p', String(basePort + i),
      '-n', `nats-${i + 1}`, '--cluster_name', 'predex', '--cluster', routes[i],
      '--routes', routes.filter((_, j) => j !== i).join(','), '-sd', store], /Server is ready/)
  }))
  await jetStreamReady(nats)
  const nodes = []
  for (const [i, role] of ROLES.entries()) {
    const http = basePort + 20 + i
    const grpc = basePort + 30 + i
    const child = await start(role, process.execPath, ['scripts/start.mjs', '--data-dir', join(dataDir, role),
      '--port', String(http), '--grpc-port', String(grpc), '--nats-servers', nats.join(','), '--nats-replicas', '3',
      '--role', role, '--log-format', 'json',
      ...(role === 'replica' ? ['--primary-url', `http://127.0.0.1:${basePort + 20}`] : [])], /REST listening on/)
    nodes.push({ role, pid: child.pid, http: `http://127.0.0.1:${http}`, grpc: `127.0.0.1:${grpc}` })
  }
  process.stdout.write(JSON.stringify({ nats, nodes, natsPids: natsChildren.map((child) => child.pid) }) + '\n')
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => void stopAll().then(() => process.exit(0)))
}
main().catch(async (error) => {
  process.stderr.write(`cluster:local: ${error.message}\n`)
  await stopAll()
  process.exit(1)
})
