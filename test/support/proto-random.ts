/**
 * Random init shapes of any protobuf-es message, for the tests of the gRPC face's own encoder and
 * decoder against protobuf-es: each field given or left out, zero or not, strings short and long
 * (one-, two- and three-byte lengths), ASCII or not, numbers at their edges, each oneof on one of
 * its members or none, lists and maps of 0 to 3, nested up to DEPTH_MAX.
 */
import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf'
import type { Random } from '../../src/stdx/random.js'

const DEPTH_MAX = 4

const ALPHABETS = ['0123456789abcdef', 'LIVE matched 0.01 x_-', 'é€𝄞ü 中文', '\u0000\u007f\u0080']

export function stringOf(random: Random): string {
  // Mostly short, sometimes past 127 and 16 383 bytes (one-, two- and three-byte lengths).
  const length = random.pick([0, 0, 1, 5, 66, 127, 128, 300, 20_000])
  const alphabet = random.pick(ALPHABETS)
  let text = ''
  for (let i = 0; i < length; i++) text += alphabet[random.int(0, alphabet.length - 1)]
  return text
}

function scalarOf(random: Random, type: ScalarType): unknown {
  const zero = random.chance(0.25)
  switch (type) {
    case ScalarType.STRING: return zero ? '' : stringOf(random)
    case ScalarType.BOOL: return zero ? false : random.chance(0.5)
    case ScalarType.UINT32: return zero ? 0 : random.pick([1, 127, 128, 16_384, 4_294_967_295, random.int(0, 2 ** 32 - 1)])
    case ScalarType.INT32: return zero ? 0 : random.pick([1, -1, 127, -2_147_483_648, 2_147_483_647, random.int(-1000, 1000)])
    case ScalarType.UINT64: return zero ? 0n : random.pick([1n, 2n ** 64n - 1n, 2n ** 32n, BigInt(random.int(0, Number.MAX_SAFE_INTEGER))])
    case ScalarType.INT64: return zero ? 0n : random.pick([1n, -1n, -(2n ** 63n), 2n ** 63n - 1n])
    case ScalarType.DOUBLE: return zero ? 0 : random.pick([0.5, -1e300, 1e-9, 12_345.678])
    case ScalarType.BYTES: return zero ? new Uint8Array(0) : Uint8Array.from({ length: random.int(1, 200) }, (_, i) => i)
    default: throw new Error(`the test draws no ${ScalarType[type]}`)
  }
}

function valueOf(random: Random, field: DescField, depth: number): unknown {
  switch (field.fieldKind) {
    case 'scalar': return scalarOf(random, field.scalar)
    case 'enum': return random.pick(field.enum.values).number
    case 'message': return initOf(random, field.message, depth + 1)
    case 'list': return Array.from({ length: depth >= DEPTH_MAX ? 0 : random.int(0, 3) }, () => {
      if (field.listKind === 'message') return initOf(random, field.message, depth + 1)
      if (field.listKind === 'enum') return random.pick(field.enum.values).number
      return scalarOf(random, field.scalar)
    })
    case 'map': {
      const map: Record<string, unknown> = {}
      for (let i = random.int(0, 3); i > 0; i--) {
        const key = String(scalarOf(random, field.mapKey))
        if (field.mapKind === 'message') map[key] = initOf(random, field.message, depth + 1)
        else if (field.mapKind === 'enum') map[key] = random.pick(field.enum.values).number
        else map[key] = scalarOf(random, field.scalar)
      }
      return map
    }
  }
}

/** A random init of `desc`: each field given or left out; each oneof on one of its members, or none. */
export function initOf(random: Random, desc: DescMessage, depth = 0): Record<string, unknown> {
  const init: Record<string, unknown> = {}
  for (const field of desc.fields) {
    if (field.oneof !== undefined || random.chance(0.3)) continue
    if (field.fieldKind === 'message' && depth >= DEPTH_MAX) continue
    init[field.localName] = valueOf(random, field, depth)
  }
  for (const oneof of desc.oneofs) {
    if (random.chance(0.2)) continue
    const member = random.pick(oneof.fields)
    if (member.fieldKind === 'message' && depth >= DEPTH_MAX) continue
    init[oneof.localName] = { case: member.localName, value: valueOf(random, member, depth) }
  }
  return init
}

