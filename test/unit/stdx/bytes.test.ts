/**
 * ByteWriter's unsigned integers are LEB128, the journal's and the snapshots' format: the bytes
 * written must be exactly those of the plain seven-bits-at-a-time definition for every safe
 * integer (around each power of two the writer's fast paths switch at, and seeded random ones),
 * `uintLength` must count them, and ByteReader must read them back.
 */
import t from 'tap'
import { ByteReader, ByteWriter } from '../../../src/stdx/bytes.js'
import { seedOf } from '../../support/seed.js'

const SEED = seedOf('BYTES_SEED')

/** LEB128 by its definition: the low seven bits first, the high bit set on all but the last byte. */
function reference(value: number): number[] {
  const bytes: number[] = []
  let rest = BigInt(value)
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80)
    rest >>= 7n
  }
  bytes.push(Number(rest))
  return bytes
}

/** A small deterministic generator (mulberry32), for values spread over every magnitude. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = Math.imul(state ^ (state >>> 15), state | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32
  }
}

function values(): number[] {
  const edges: number[] = [0, 1, Number.MAX_SAFE_INTEGER, 1_700_000_000_000, 1_764_460_800_123]
  for (let bits = 1; bits <= 53; bits++) {
    const power = 2 ** bits
    for (const value of [power - 1, power, power + 1]) if (Number.isSafeInteger(value)) edges.push(value)
  }
  const next = random(SEED)
  for (let i = 0; i < 2_000; i++) edges.push(Math.floor(next() * 2 ** Math.ceil(next() * 53)))
  return edges
}

t.test(`uint writes LEB128 exactly, counts it and reads it back (seed ${SEED})`, (t) => {
  const writer = new ByteWriter(16)
  let wrong = 0
  for (const value of values()) {
    writer.reset()
    writer.uint(value)
    const written = [...writer.bytes()]
    const expected = reference(value)
    const back = new ByteReader(writer.bytes()).uint()
    if (written.join() !== expected.join() || ByteWriter.uintLength(value) !== expected.length || back !== value) {
      if (wrong++ === 0) t.fail(`${value}: wrote ${written.join()}, expected ${expected.join()}, read ${back}`)
    }
  }
  t.equal(wrong, 0, 'every value is written, counted and read as LEB128 says')
  t.throws(() => writer.uint(-1), 'a negative number is refused')
  t.throws(() => writer.uint(2 ** 53), 'an unsafe integer is refused')
  t.throws(() => writer.uint(0.5), 'a fraction is refused')
  t.end()
})
