/**
 * The local cluster's port block (test/support/port-block.ts) lies below the kernel's ephemeral
 * range, whatever the draw: cluster.test.ts drew 20 000-59 900, mostly inside it, and lost a port
 * to a test beside it.
 */
import t from 'tap'
import { ephemeralPortFirst, PORT_BLOCK_FIRST, portBlockBase } from '../../support/port-block.js'

const CLUSTER_BLOCK_PORTS = 33

t.test('every draw gives a block between PORT_BLOCK_FIRST and the ephemeral range', (t) => {
  for (const ephemeralFirst of [32_768, 49_152, ephemeralPortFirst()]) {
    for (const random of [0, 0.25, 0.5, 0.999_999]) {
      const base = portBlockBase(random, CLUSTER_BLOCK_PORTS, ephemeralFirst)
      t.ok(base >= PORT_BLOCK_FIRST && base + CLUSTER_BLOCK_PORTS <= ephemeralFirst,
        `draw ${random}, ephemeral from ${ephemeralFirst}: ${base} .. ${base + CLUSTER_BLOCK_PORTS - 1}`)
    }
  }
  t.end()
})

t.test('this machine\'s ephemeral range is read from the kernel', (t) => {
  const first = ephemeralPortFirst()
  t.ok(Number.isInteger(first) && first > PORT_BLOCK_FIRST && first < 65_536, `from ${first}`)
  t.end()
})

t.test('no room below the ephemeral range is said, not drawn into it', (t) => {
  t.throws(() => portBlockBase(0.5, CLUSTER_BLOCK_PORTS, PORT_BLOCK_FIRST + 20), /no room/)
  t.end()
})
