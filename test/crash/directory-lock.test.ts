/**
 * One process at a time on a data directory (src/journal/directory-lock.ts), with the kernel
 * holding the lock: while an engine host runs in another process, opening its journal here,
 * read-only or not, is refused before LMDB is touched, and so is a second host; once that process
 * is killed (-9), the kernel has released its lock, and a restart started at once (no sleep, its
 * killed predecessor perhaps not even reaped) starts. What the lock file says never blocks: a pid
 * in it of a process that is gone, or of a live unrelated one. Threads of one process share the
 * environment, so a read-only open beside this process's own host goes ahead.
 */
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface, type Interface } from 'node:readline'
import { EngineHost } from '../../src/host/engine-host.js'
import { DataDirectoryInUseError, LOCK_FILE, processIdentity } from '../../src/journal/directory-lock.js'
import { Journal } from '../../src/journal/journal.js'
import { freshCompiled, siblingModule } from '../support/compiled.js'
import { Child } from './harness.js'

const RESTARTS = 20
const CONTENDERS = 4
const RACE_ROUNDS = 40
/**
 * A restart recovers in about 0.5 s here (several seconds from the TypeScript sources on a busy
 * machine); a refused one never does, since its sleeping parent keeps its pipes open.
 */
const RECOVERY_MS_MAX = 30_000

function dataDir(t: { teardown: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'predex.lock-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function refusalOf(open: () => Journal): unknown {
  try {
    void open().close()
    return null
  } catch (error) {
    return error
  }
}

const holderPid = (dir: string): number => Number.parseInt(readFileSync(join(dir, LOCK_FILE), 'utf8'), 10)

t.test('a live host in another process keeps every other process off its journal', async (t) => {
  const dir = dataDir(t)
  const child = new Child(dir, 5, 0, 1_000_000)
  t.teardown(() => void child.kill())
  await child.recovered
  t.equal(holderPid(dir), child.pid, 'the lock names the host\'s process')
  for (const readOnly of [true, false]) {
    const refusal = refusalOf(() => Journal.open({ path: dir, durability: 'sync', readOnly, lockWaitMsMax: 100 }))
    t.ok(refusal instanceof DataDirectoryInUseError && refusal.pid === child.pid,
      `a ${readOnly ? 'read-only' : 'writing'} open here is refused, naming process ${child.pid}`)
  }
  const second = new Child(dir, 5, 2_000_000, 10)
  t.teardown(() => void second.kill())
  await t.rejects(second.recovered, new RegExp(`DataDirectoryInUseError.*in use by process ${child.pid}`),
    'a second host does not start, and names the first')
  await child.kill()
  t.ok(child.acks.size > 0, `the host kept working meanwhile (${child.acks.size} commands acknowledged)`)

  const journal = Journal.open({ path: dir, durability: 'sync', readOnly: true, lockWaitMsMax: 0 })
  t.ok(journal.lastSeq() > 0, 'once its holder is gone the lock is free at once, and the journal reads')
  t.equal(readFileSync(join(dir, LOCK_FILE), 'utf8').trim(), processIdentity(), 'the lock names this process now')
  await journal.close()
})

t.test(`kill -9 and an immediate restart, ${RESTARTS} times in a row: every restart starts`, async (t) => {
  const dir = dataDir(t)
  const children: Child[] = []
  t.teardown(() => children.forEach((child) => void child.kill()))
  const start = (restart: number): Child => {
    const child = new Child(dir, 7, restart * 1_000_000, 1_000_000, 0, true)
    children.push(child)
    return child
  }
  let child = start(0)
  let lastSeq = (await child.recovered).seq
  for (let restart = 1; restart <= RESTARTS; restart++) {
    while (child.acks.size === 0) await new Promise((resolve) => setTimeout(resolve, 5)) // it has journaled
    const hostPid = holderPid(dir)
    process.kill(hostPid, 'SIGKILL')
    child = start(restart) // at once: no sleep, and the killed host is not reaped (its parent never waits)
    const recovered = await withinMs(child.recovered, RECOVERY_MS_MAX, () => child.errors).catch((error: Error) => error)
    t.equal(processState(hostPid), 'Z', `restart ${restart}: the killed host ${hostPid} is still a zombie`)
    if (recovered instanceof Error) {
      t.fail(`restart ${restart} was refused: ${recovered.message.slice(0, 300)}`)
      break
    }
    t.ok(recovered.seq > lastSeq && recovered.invariantsHold, `restart ${restart} starts, at seq ${recovered.seq}`)
    lastSeq = recovered.seq
  }
})

/**
 * `promise`, or a rejection after `ms` saying `why()`: a host that exits refused is not seen to
 * exit here, since its parent sleeps on with its pipes.
 */
function withinMs<T>(promise: Promise<T>, ms: number, why: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no recovery within ${ms} ms: ${why()}`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** The state letter of a process (/proc/<pid>/stat: Z for a zombie), or null when it is gone. */
function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
  } catch {
    return null
  }
}

t.test('what the lock file says never blocks: a pid that is gone, or a live unrelated one', async (t) => {
  const dir = dataDir(t)
  await Journal.open({ path: dir, durability: 'sync' }).close()
  const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' })
  t.teardown(() => void sleeper.kill('SIGKILL'))
  for (const text of ['2147483646\n', `${sleeper.pid}\n`, `${sleeper.pid} 1\n`, '', 'garbage']) {
    writeFileSync(join(dir, LOCK_FILE), text)
    const journal = Journal.open({ path: dir, durability: 'sync', lockWaitMsMax: 0 })
    t.equal(readFileSync(join(dir, LOCK_FILE), 'utf8').trim(), processIdentity(), `a lock file saying ${JSON.stringify(text)} is taken`)
    await journal.close()
  }
})

t.test('threads of one process share the journal; the lock goes when the owner closes', async (t) => {
  const dir = dataDir(t)
  const host = await EngineHost.start({ dataDir: dir, hashSeed: 1 })
  const reader = Journal.open({ path: dir, durability: 'sync', readOnly: true, lockWaitMsMax: 0 })
  reader.lastSeq()
  await reader.close()
  const other = new Contender()
  t.teardown(() => other.stop())
  t.match(await other.ask(`acquire ${dir}`), `refused ${process.pid}`, 'the host\'s lock stays after the reader closes')
  await host.stop()
  t.equal(await other.ask(`acquire ${dir}`), 'owner', 'the host gives it back when it stops')
})

t.test(`${CONTENDERS} processes taking one lock together, ${RACE_ROUNDS} rounds: one owner each time`, async (t) => {
  const contenders = Array.from({ length: CONTENDERS }, () => new Contender())
  t.teardown(() => contenders.forEach((contender) => contender.stop()))
  let roundsWithOneOwner = 0
  for (let round = 0; round < RACE_ROUNDS; round++) {
    const dir = dataDir(t)
    // Each round starts from a lock file naming a process that is gone, as kill -9 leaves it.
    writeFileSync(join(dir, LOCK_FILE), '2147483646\n')
    const answers = await Promise.all(contenders.map((contender) => contender.ask(`acquire ${dir}`)))
    const owners = answers.filter((answer) => answer === 'owner').length
    if (owners === 1) roundsWithOneOwner++
    else t.fail(`round ${round}: ${owners} owners (${answers.join(', ')})`)
    await Promise.all(contenders.map((contender) => contender.ask('release')))
  }
  t.equal(roundsWithOneOwner, RACE_ROUNDS, 'exactly one process owned the directory in every round')
})

/** A process of test/crash/lock-child.ts, asked one line at a time. */
class Contender {
  private readonly process: ChildProcess
  private readonly lines: Interface
  private readonly waiting: ((line: string) => void)[] = []

  constructor() {
    const compiled = freshCompiled('test/crash/lock-child.js', ['src', 'test/crash'])
    const command = compiled !== null ? [compiled] : [...process.execArgv, siblingModule('lock-child', import.meta.url)]
    this.process = spawn(process.execPath, command, { stdio: ['pipe', 'pipe', 'inherit'] })
    this.lines = createInterface({ input: this.process.stdout! })
    this.lines.on('line', (line) => this.waiting.shift()?.(line))
  }

  ask(line: string): Promise<string> {
    return new Promise((resolve) => {
      this.waiting.push(resolve)
      this.process.stdin!.write(`${line}\n`)
    })
  }

  stop(): void {
    this.process.kill('SIGKILL')
  }
}
