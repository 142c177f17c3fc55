/**
 * The crash harness: runs crash-child.ts in its own process on a data directory, reads what it
 * acknowledged, kills it with SIGKILL at a seeded moment, and checks the journal independently:
 * gap-free sequence numbers with sound checksums, every acknowledged command present at its
 * sequence number, and a replay of the journal from seq 1 (no snapshot) that reaches the state
 * hash the restarted engine reported, with every invariant holding.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { Engine } from '../../src/engine/engine.js'
import { checkInvariants } from '../../src/engine/invariants.js'
import { stateHashOf } from '../../src/engine/snapshot.js'
import { ByteWriter } from '../../src/stdx/bytes.js'
import type { Command, UnstampedCommand } from '../../src/engine/command.js'
import { Journal } from '../../src/journal/journal.js'
import { decodeStampedCommand, writeCommand } from '../../src/codec/command-codec.js'
import { commandOf } from './load.js'
import { freshCompiled, siblingModule } from '../support/compiled.js'

/**
 * The child runs from the compiled build when it is up to date (npm test builds first): a
 * TypeScript start costs seconds of transpiling, in the process and again in its engine worker,
 * and the test starts the child more than twenty times. Otherwise it runs from the sources.
 */
function childCommand(): string[] {
  const compiled = freshCompiled('test/crash/crash-child.js', ['src', 'test/crash'])
  return compiled !== null ? [compiled] : [...process.execArgv, siblingModule('crash-child', import.meta.url)]
}

const CHILD_COMMAND = childCommand()

export interface Recovered {
  readonly seq: number
  readonly stateHash: string
  readonly invariantsHold: boolean
}

export class Child {
  readonly acks = new Map<number, number>()
  readonly recovered: Promise<Recovered>
  readonly exited: Promise<number | null>
  private readonly process: ChildProcess
  /** Whether the child leads a process group of its own (the sleeping parent and its host). */
  private readonly group: boolean
  private stderr = ''

  /**
   * `underParentThatNeverReaps`: the host runs under a shell that starts it and then becomes
   * `sleep` (exec), which never waits for children, so a killed host stays a zombie as long as
   * this Child lives: what an operator's restart meets when the killed server's parent is slow to
   * reap it. `pid` is then the sleeping parent's; the host's is in the data directory's lock.
   */
  constructor(dataDir: string, seed: number, firstIndex: number, count: number, unsafeAckBeforeJournalMs = 0,
    underParentThatNeverReaps = false) {
    const args = [...CHILD_COMMAND, dataDir, String(seed), String(firstIndex), String(count),
      String(unsafeAckBeforeJournalMs)]
    this.process = underParentThatNeverReaps
      ? spawn('sh', ['-c', '"$0" "$@" & exec sleep 600', process.execPath, ...args],
        { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    this.group = underParentThatNeverReaps
    this.process.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-4_000)
    })
    this.exited = new Promise((resolve) => this.process.once('exit', (code) => resolve(code)))
    this.recovered = new Promise((resolve, reject) => {
      const lines = createInterface({ input: this.process.stdout! })
      lines.on('line', (line) => {
        const [word, a, b, c] = line.split(' ')
        if (word === 'recovered') resolve({ seq: Number(a), stateHash: b!, invariantsHold: c === 'true' })
        else if (word === 'ack') this.acks.set(Number(a), Number(b))
      })
      void this.exited.then((code) => reject(new Error(`child exited (${code}) before recovering: ${this.stderr}`)))
    })
  }

  /** Kills the child (with its whole group: the sleeping parent's host too). */
  kill(): Promise<number | null> {
    if (this.group) {
      try {
        process.kill(-this.process.pid!, 'SIGKILL')
      } catch {
        // gone already
      }
    } else {
      this.process.kill('SIGKILL')
    }
    return this.exited
  }

  get pid(): number {
    return this.process.pid!
  }

  get errors(): string {
    return this.stderr
  }
}

export interface JournalCheck {
  readonly lastSeq: number
  readonly stateHash: string
  readonly problems: string[]
}

/**
 * An independent replay of the journal, kept across restarts: each check applies the records
 * after the last one it applied, up to the seq the restarted engine reported (committed records
 * never change, so this equals a replay from seq 1, at linear cost), and checks sequence numbers,
 * checksums, and that every acknowledged command is where it was said to be, with the content the
 * load generator gave it.
 */
export class JournalReplay {
  private readonly engine = new Engine()
  private readonly checkedAcks = new Set<number>()

  constructor(private readonly dataDir: string, private readonly seed: number) {}

  async check(upToSeq: number, acks: ReadonlyMap<number, number>): Promise<JournalCheck> {
    // Acknowledged since the last check: all after the seq the last check reached.
    const pending = new Map<number, number>()
    for (const [index, seq] of acks) if (!this.checkedAcks.has(index)) pending.set(seq, index)
    const journal = Journal.open({ path: this.dataDir, durability: 'sync', readOnly: true })
    const problems: string[] = []
    let lastSeq = this.engine.seq
    try {
      for (const { seq, payload } of journal.commandRecords(this.engine.seq + 1)) {
        if (seq !== lastSeq + 1) problems.push(`gap: ${lastSeq} is followed by ${seq}`)
        lastSeq = seq
        if (payload === null) {
          problems.push(`record ${seq}: checksum`)
          continue
        }
        const command = decodeStampedCommand(payload)
        if (command.seq !== seq) problems.push(`record ${seq} says seq ${command.seq}`)
        const index = pending.get(seq)
        if (index !== undefined) {
          pending.delete(seq)
          if (sameCommand(command, commandOf(this.seed, index))) this.checkedAcks.add(index)
          else problems.push(`seq ${seq} holds another command than ${index}`)
        }
        // Records past the reported seq were still being written: the next check reads them again.
        if (seq <= upToSeq && seq === this.engine.seq + 1) this.engine.apply(command)
      }
    } finally {
      await journal.close()
    }
    checkInvariants(this.engine)
    if (this.engine.seq < upToSeq) problems.push(`the journal ends at ${lastSeq}, before the recovered seq ${upToSeq}`)
    for (const [seq, index] of pending) problems.push(`acknowledged command ${index} (seq ${seq}) is not in the journal`)
    return { lastSeq, stateHash: stateHashOf(this.engine), problems }
  }
}

/** A replay of the whole journal from seq 1 in a fresh engine (the control test, the final check). */
export async function checkJournal(dataDir: string, upToSeq: number, seed: number, acks: ReadonlyMap<number, number>): Promise<JournalCheck> {
  return new JournalReplay(dataDir, seed).check(upToSeq, acks)
}

function sameCommand(stamped: Command, expected: UnstampedCommand): boolean {
  const a = new ByteWriter(512)
  writeCommand(a, stamped)
  const b = new ByteWriter(512)
  writeCommand(b, expected)
  return Buffer.from(a.bytes()).equals(Buffer.from(b.bytes()))
}

/** mulberry32, for the kill times. */
export function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
