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
import { ByteWriter } from '../../src/engine/bytes.js'
import type { Command, UnstampedCommand } from '../../src/engine/command.js'
import { Journal, unsealed } from '../../src/journal/journal.js'
import { decodeStampedCommand, writeCommand } from '../../src/ring/command-codec.js'
import { commandOf } from './load.js'

const CHILD = new URL(`./crash-child.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url)

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
  private stderr = ''

  constructor(dataDir: string, seed: number, firstIndex: number, count: number, unsafeAckBeforeJournalMs = 0) {
    this.process = spawn(process.execPath, [...process.execArgv, CHILD.pathname, dataDir, String(seed),
      String(firstIndex), String(count), String(unsafeAckBeforeJournalMs)], { stdio: ['ignore', 'pipe', 'pipe'] })
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

  kill(): Promise<number | null> {
    this.process.kill('SIGKILL')
    return this.exited
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
 * Replays the journal from seq 1 up to `upToSeq` in a fresh engine (ignoring snapshots), and
 * checks sequence numbers, checksums and that every acknowledged command is where it was said
 * to be, with the content the load generator gave it.
 */
export async function checkJournal(dataDir: string, upToSeq: number, seed: number, acks: ReadonlyMap<number, number>): Promise<JournalCheck> {
  const journal = Journal.open({ path: dataDir, durability: 'sync', readOnly: true })
  const problems: string[] = []
  const bySeq = new Map<number, Command>()
  const engine = new Engine()
  let lastSeq = 0
  try {
    for (const { seq, bytes } of journal.rawRecords()) {
      if (seq !== lastSeq + 1) problems.push(`gap: ${lastSeq} is followed by ${seq}`)
      lastSeq = seq
      const payload = unsealed(bytes)
      if (payload === null) {
        problems.push(`record ${seq}: checksum`)
        continue
      }
      const command = decodeStampedCommand(payload)
      if (command.seq !== seq) problems.push(`record ${seq} says seq ${command.seq}`)
      bySeq.set(seq, command)
      if (seq <= upToSeq) engine.apply(command)
    }
  } finally {
    await journal.close()
  }
  checkInvariants(engine)
  if (lastSeq < upToSeq) problems.push(`the journal ends at ${lastSeq}, before the recovered seq ${upToSeq}`)
  for (const [index, seq] of acks) {
    const command = bySeq.get(seq)
    if (command === undefined) problems.push(`acknowledged command ${index} (seq ${seq}) is not in the journal`)
    else if (!sameCommand(command, commandOf(seed, index))) problems.push(`seq ${seq} holds another command than ${index}`)
  }
  return { lastSeq, stateHash: stateHashOf(engine), problems }
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
