/** The LRU map (src/stdx/lru.ts): bounded, and it forgets the least recently used entry, a read counting as a use. */
import t from 'tap'
import { Lru } from '../../../src/stdx/lru.js'

t.test('beyond its bound it forgets the least recently used entry', (t) => {
  const lru = new Lru<number>(2)
  lru.set('a', 1)
  lru.set('b', 2)
  t.equal(lru.get('a'), 1, 'a read makes a the most recent')
  lru.set('c', 3)
  t.equal(lru.get('b'), undefined, 'b, least recently used, is gone')
  t.equal(lru.get('a'), 1)
  t.equal(lru.get('c'), 3)
  t.equal(lru.size, 2, 'bounded')
  lru.delete('a')
  t.equal(lru.get('a'), undefined)
  t.end()
})
