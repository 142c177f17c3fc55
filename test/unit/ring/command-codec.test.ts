/**
 * The command codec: every command the simulation's workload produces (all kinds, valid and
 * invalid values) survives encode/decode unchanged, and damaged records fail with an assertion
 * rather than decoding into something else.
 */
import t from 'tap'
import { decodeStampedCommand, encodeStampedCommand } from '../../../src/ring/command-codec.js'
import { AssertionError } from '../../../src/engine/assert.js'
import { Workload } from '../../simulation/workload.js'
import { Engine } from '../../../src/engine/engine.js'
import type { Command } from '../../../src/engine/command.js'

t.test('every workload command round-trips', (t) => {
  const seed = 77
  t.comment(`seed ${seed}`)
  const workload = new Workload({ seed })
  const engine = new Engine()
  const kinds = new Set<string>()
  for (let i = 0; i < 20_000; i++) {
    const command = workload.next()
    const decoded = decodeStampedCommand(encodeStampedCommand(command))
    if (JSON.stringify(sortKeys(decoded)) !== JSON.stringify(sortKeys(command))) {
      t.same(decoded, command, `command ${i + 1} round-trips`)
      break
    }
    kinds.add(command.kind)
    const applied = engine.apply(command)
    workload.observe(command, applied.result, applied.events)
  }
  t.ok(kinds.size >= 18, `kinds seen: ${[...kinds].join(', ')}`)
  t.end()
})

t.test('odd numbers round-trip exactly', (t) => {
  const command: Command = { kind: 'credit', seq: 1, timeMs: 2, address: 'a', usdcMicros: 0.5, gasMicros: -0 }
  const decoded = decodeStampedCommand(encodeStampedCommand(command)) as typeof command
  t.equal(decoded.usdcMicros, 0.5)
  t.ok(Object.is(decoded.gasMicros, -0))
  const nan = decodeStampedCommand(encodeStampedCommand({ ...command, usdcMicros: Number.NaN })) as typeof command
  t.ok(Number.isNaN(nan.usdcMicros))
  t.end()
})

t.test('a field of the wrong type comes back as it went in (the engine rejects it)', (t) => {
  for (const address of [5, null, undefined, true, { a: 1 }, [1, 'x']]) {
    const bad = { kind: 'credit', seq: 1, timeMs: 2, address, usdcMicros: 1, gasMicros: 0 } as unknown as Command
    t.same((decodeStampedCommand(encodeStampedCommand(bad)) as unknown as { address: unknown }).address, address)
  }
  t.end()
})

t.test('damaged records do not decode', (t) => {
  const bytes = encodeStampedCommand({ kind: 'cancelOrder', seq: 9, timeMs: 10, address: '0xabc', orderId: '0x123' })
  t.throws(() => decodeStampedCommand(bytes.subarray(0, bytes.length - 1)), AssertionError, 'truncated')
  t.throws(() => decodeStampedCommand(new Uint8Array([...bytes, 0])), AssertionError, 'trailing byte')
  const unknownTag = bytes.slice()
  unknownTag[2] = 99
  t.throws(() => decodeStampedCommand(unknownTag), AssertionError, 'unknown kind')
  t.end()
})

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]))
}
