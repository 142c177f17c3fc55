/**
 * The string cache (src/stdx/string-cache.ts) gives back exactly what decoding would: for ASCII
 * that repeats (the same string object), for strings of other bytes (multi-byte UTF-8, invalid
 * bytes, which decode to U+FFFD one byte each), for strings that share a slot, and for strings
 * longer than it keeps. Seeded random byte strings from a small alphabet make slots collide.
 */
import t from 'tap'
import { StringCache } from '../../../src/stdx/string-cache.js'
import { Random } from '../../simulation/random.js'

const decoder = new TextDecoder()
const decode = (bytes: Uint8Array, start: number, end: number): string => decoder.decode(bytes.subarray(start, end))
const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text)
const seed = Number(process.env.STRING_CACHE_SEED ?? 20_261_129)

t.test('a repeated ASCII string comes back as the same string', (t) => {
  const cache = new StringCache(decode, 4_096, 128)
  const address = bytesOf('0x' + 'ab'.repeat(20))
  const first = cache.get(address, 0, address.length)
  const again = cache.get(bytesOf('0x' + 'ab'.repeat(20)), 0, address.length)
  t.equal(first, '0x' + 'ab'.repeat(20))
  t.equal(Object.is(first, again), true, 'the same string')
  t.equal(cache.get(address, 0, 0), '')
  t.end()
})

t.test('bytes that are not one ASCII character each read as the decoder reads them', (t) => {
  const cache = new StringCache(decode, 4_096, 128)
  // 'é' is two bytes; 0x80 alone is invalid (U+FFFD); both keep their own reading after an
  // ASCII string of the same length sits in the slot, and the ASCII one after them.
  const cases = [bytesOf('caf\u00e9'), new Uint8Array([0x63, 0x61, 0x66, 0x80]), bytesOf('cafe'), new Uint8Array([0x80, 0x80])]
  for (let round = 0; round < 3; round++) {
    for (const bytes of cases) t.equal(cache.get(bytes, 0, bytes.length), decode(bytes, 0, bytes.length))
  }
  t.end()
})

t.test('random strings with colliding slots, offsets and long strings all read as decoded', (t) => {
  t.comment(`seed ${seed} (STRING_CACHE_SEED=${seed} to reproduce)`)
  const random = new Random(seed)
  const cache = new StringCache(decode, 4_096, 128)
  const alphabet = [0x30, 0x31, 0x61, 0x62, 0xc3, 0xa9, 0x80, 0x7a]
  const pool = Array.from({ length: 20_000 }, () => {
    const length = random.int(1, random.int(0, 9) === 0 ? 200 : 12)
    return Uint8Array.from({ length }, () => alphabet[random.int(0, alphabet.length - 1)]!)
  })
  let wrong = 0
  for (let i = 0; i < 100_000; i++) {
    const bytes = pool[random.int(0, pool.length - 1)]!
    // Inside a larger record, at an offset.
    const record = new Uint8Array(bytes.length + 7)
    record.set(bytes, 3)
    if (cache.get(record, 3, bytes.length) !== decode(bytes, 0, bytes.length)) wrong++
  }
  t.equal(wrong, 0, 'every read equals the decoder\'s')
  t.end()
})
