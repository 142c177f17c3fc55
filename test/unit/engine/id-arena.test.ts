/**
 * The id arena (src/engine/id-arena.ts): ids of every kind (ASCII, hex, beyond ASCII), written
 * one at a time or in batches, come back as written and compare equal only to themselves, near
 * misses included (a digit off, the other case, one character more or less, an id that runs on
 * into the next one of its batch); released in the order written, the memory goes with them, and
 * released out of order nothing is lost.
 */
import t from 'tap'
import { BATCH_IDS_MAX, IdArena } from '../../../src/engine/id-arena.js'
import { Random } from '../../simulation/random.js'

const seed = Number(process.env.ID_ARENA_SEED ?? 20_261_130)

/** An id of one of the forms the arena knows, or one that only looks like hex. */
function idOf(random: Random, n: number): string {
  const hex = n.toString(16).padStart(64, '0')
  switch (random.int(0, 6)) {
    case 0: return `0x${hex}`
    case 1: return `0x${hex.slice(0, 2 * random.int(1, 32))}`
    case 2: return `0X${hex}`.toUpperCase()
    case 3: return `0x${hex}0` // an odd number of digits: not packed as hex
    case 4: return `order-${n}-é`
    case 5: return `ordre-${n}-€-𝄞`
    default: return `${n}`
  }
}

/** Ids that differ from `id` a little: what a hash collision could bring to a compare. */
function nearMisses(id: string): string[] {
  const last = id.charCodeAt(id.length - 1)
  return [id + '0', id.slice(0, -1), id.slice(0, -1) + String.fromCharCode(last === 0x30 ? 0x31 : 0x30),
    id.toUpperCase() === id ? id.toLowerCase() : id.toUpperCase(), '1' + id.slice(1)].filter((other) => other !== id)
}

t.test('every id reads back as written and equals only itself', (t) => {
  t.comment(`seed ${seed} (ID_ARENA_SEED=${seed} to reproduce)`)
  const random = new Random(seed)
  const arena = new IdArena()
  const written: [number, string][] = []
  const batch: string[] = new Array<string>(BATCH_IDS_MAX).fill('')
  const refs: number[] = []
  let batches = 0
  while (written.length < 20_000) {
    if (random.int(0, 1) === 0) {
      const id = idOf(random, random.int(0, 2 ** 31 - 1))
      written.push([arena.append(id), id])
      continue
    }
    const count = random.int(1, BATCH_IDS_MAX)
    batch.fill('')
    for (let i = 0; i < count; i++) batch[i] = idOf(random, random.int(0, 2 ** 31 - 1))
    arena.appendAll(batch, count, refs)
    for (let i = 0; i < count; i++) written.push([refs[i]!, batch[i]!])
    batches++
  }
  t.ok(batches > 100, `${batches} batches written`)
  let wrongReads = 0
  let wrongEquals = 0
  for (const [ref, id] of written) {
    if (arena.read(ref) !== id) wrongReads++
    if (!arena.equals(ref, id)) wrongEquals++
    for (const other of nearMisses(id)) if (arena.equals(ref, other)) wrongEquals++
  }
  t.equal(wrongReads, 0, 'each id reads back as it was written')
  t.equal(wrongEquals, 0, 'each id equals itself and none of its near misses')
  t.equal(arena.size, written.length)
  t.end()
})

t.test('a batch is its ids and nothing after them', (t) => {
  const arena = new IdArena()
  t.throws(() => arena.appendAll(['a', 'b', 'c'], 2, []), 'a key after the batch would be written with it')
  t.throws(() => arena.appendAll([], 0, []))
  const refs: number[] = []
  arena.appendAll(['a', 'bc', ''], 2, refs)
  t.same([arena.read(refs[0]!), arena.read(refs[1]!)], ['a', 'bc'])
  t.end()
})

t.test('released in the order written, the memory follows what is held', (t) => {
  const arena = new IdArena()
  const held: number[] = []
  const idOfN = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`
  let charsMax = 0
  // 200 000 ids pass through, at most 10 000 held at a time: a FIFO, as the order index's ended orders.
  for (let n = 0; n < 200_000; n++) {
    held.push(arena.append(idOfN(n)))
    if (held.length > 10_000) arena.release(held.shift()!)
    charsMax = Math.max(charsMax, arena.heldChars)
  }
  t.equal(charsMax, 10_000 * 66, 'the characters of the ids held, and not one more')
  let wrong = 0
  for (let i = 0; i < held.length; i++) if (arena.read(held[i]!) !== idOfN(200_000 - held.length + i)) wrong++
  t.equal(wrong, 0, 'the held ids are intact after their chunks were reused')
  for (const ref of held) arena.release(ref)
  t.equal(arena.size, 0)
  t.equal(arena.heldChars, 0, 'released, the arena holds nothing')
  t.end()
})

t.test('released out of order, no id is lost or mistaken for another', (t) => {
  const localSeed = seed + 1
  t.comment(`seed ${localSeed} (ID_ARENA_SEED=${seed} to reproduce)`)
  const random = new Random(localSeed)
  const arena = new IdArena()
  const held = new Map<number, string>()
  let n = 0
  let wrong = 0
  for (let step = 0; step < 100_000; step++) {
    if (held.size < 2_000 || random.int(0, 1) === 0) {
      const id = idOf(random, n++)
      held.set(arena.append(id), id)
    } else {
      // Mostly the oldest, sometimes any: chunks wait for their oldest ids.
      const refs = [...held.keys()]
      const ref = random.int(0, 3) === 0 ? refs[random.int(0, refs.length - 1)]! : refs[0]!
      arena.release(ref)
      held.delete(ref)
    }
    if (step % 5_000 === 0) for (const [ref, id] of held) if (!arena.equals(ref, id) || arena.read(ref) !== id) wrong++
  }
  for (const [ref, id] of held) if (!arena.equals(ref, id) || arena.read(ref) !== id) wrong++
  t.equal(wrong, 0, 'every held id reads back and compares equal')
  t.equal(arena.size, held.size)
  t.end()
})

t.test('references wrap at 2^31 batches and still name their ids', (t) => {
  // An arena that starts 100 batches before the wrap: references stay below 2^53 past it.
  const arena = new IdArena(2 ** 31 - 100)
  const held: [number, string][] = []
  for (let n = 0; n < 300; n++) {
    const id = `0x${n.toString(16).padStart(64, '0')}`
    const ref = arena.append(id)
    t.ok(Number.isSafeInteger(ref), 'a reference is an exact integer')
    held.push([ref, id])
    if (held.length > 50) arena.release(held.shift()![0])
  }
  let wrong = 0
  for (const [ref, id] of held) if (!arena.equals(ref, id) || arena.read(ref) !== id) wrong++
  t.equal(wrong, 0, 'the ids held across the wrap read back and compare equal')
  t.end()
})

t.test('an empty or overlong id is refused', (t) => {
  const arena = new IdArena()
  t.throws(() => arena.append(''))
  t.throws(() => arena.append('x'.repeat(256)))
  t.doesNotThrow(() => arena.append('x'.repeat(255)))
  t.end()
})
