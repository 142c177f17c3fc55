/**
 * fast-check arbitraries of protobuf messages from their protobuf-es descriptors (src/gen), for
 * the gRPC live fuzz (test/fuzz/grpc-live.test.ts): a message of any schema with its fields set to
 * values of the field's type that are garbage for the server (strings of anything, known ids
 * where another kind is expected, huge strings, extreme numbers, enum values the proto does not
 * name, long lists), or a valid message with one to three fields replaced so; and the encoded
 * bytes, possibly mutated below the schema (truncated, bytes flipped, unknown fields, a field
 * with the wrong wire type, a length past the end).
 */
import fc from 'fast-check'
import { create, ScalarType, toBinary, type DescField, type DescMessage } from '@bufbuild/protobuf'

/** One step of a path into a message's init object: a field, or a oneof member (its `case`). */
interface PathStep {
  readonly name: string
  readonly oneofCase?: string
}

interface FieldPath {
  readonly steps: readonly PathStep[]
  readonly field: DescField
}

/** Values the generator mixes into string fields (ids the server knows, decimals, addresses...). */
export interface Pools {
  readonly strings: readonly string[]
}

const INT32 = [0, -1, 1, 2 ** 31 - 1, -(2 ** 31)]
const UINT32 = [0, 1, 2 ** 31, 2 ** 32 - 1]
const INT64 = [0n, -1n, 1n, 2n ** 63n - 1n, -(2n ** 63n), 9_007_199_254_740_993n]
const UINT64 = [0n, 1n, 2n ** 63n, 2n ** 64n - 1n, 9_007_199_254_740_993n]

export function textArb(pools: Pools): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...pools.strings) },
    { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.stringMatching(/^0x[0-9a-fA-F]{0,70}$/) },
    { weight: 1, arbitrary: fc.bigInt({ min: -1n, max: 2n ** 260n }).map(String) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', '0', '-1', '0.5', '1.0000001', '1e309', 'NaN', 'Infinity', '-0',
      '99999999999999999999999999999999', '\u0000', '%00', '..', '__proto__', 'constructor') },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 5_000 }).map((n) => 'x'.repeat(n)) })
}

function scalarArb(type: ScalarType, pools: Pools): fc.Arbitrary<unknown> {
  switch (type) {
    case ScalarType.STRING: return textArb(pools)
    case ScalarType.BYTES: return fc.uint8Array({ maxLength: 40 })
    case ScalarType.BOOL: return fc.boolean()
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT: return fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, -0, 1e308))
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32: return fc.oneof(fc.constantFrom(...INT32), fc.integer())
    case ScalarType.UINT32:
    case ScalarType.FIXED32: return fc.oneof(fc.constantFrom(...UINT32), fc.nat({ max: 2 ** 32 - 1 }))
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return fc.oneof(fc.constantFrom(...INT64), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }))
    case ScalarType.UINT64:
    case ScalarType.FIXED64: return fc.oneof(fc.constantFrom(...UINT64), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }))
  }
}

function enumArb(values: readonly number[]): fc.Arbitrary<number> {
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...values) },
    { weight: 1, arbitrary: fc.constantFrom(-1, 5, 99, 2 ** 31 - 1, -(2 ** 31)) },
    { weight: 1, arbitrary: fc.integer() })
}

const memo = new WeakMap<Pools, Map<DescField, Map<number, fc.Arbitrary<unknown>>>>()

/** A value for `field` (a whole list or map for those), `depth` levels of messages deep at most (built once). */
function valueArb(field: DescField, pools: Pools, depth: number): fc.Arbitrary<unknown> {
  let byField = memo.get(pools)
  if (byField === undefined) memo.set(pools, byField = new Map())
  let byDepth = byField.get(field)
  if (byDepth === undefined) byField.set(field, byDepth = new Map())
  let arbitrary = byDepth.get(depth)
  if (arbitrary === undefined) byDepth.set(depth, arbitrary = buildValueArb(field, pools, depth))
  return arbitrary
}

function buildValueArb(field: DescField, pools: Pools, depth: number): fc.Arbitrary<unknown> {
  switch (field.fieldKind) {
    case 'scalar': return scalarArb(field.scalar, pools)
    case 'enum': return enumArb(field.enum.values.map((v) => v.number))
    case 'message': return messageArb(field.message, {}, pools, depth - 1)
    case 'list': {
      const item = field.listKind === 'scalar' ? scalarArb(field.scalar, pools)
        : field.listKind === 'enum' ? enumArb(field.enum.values.map((v) => v.number))
          : messageArb(field.message, {}, pools, depth - 1)
      // Long lists of scalars past every bound (1 000 ids, 500 tokens, 100 per stream); messages a few.
      return field.listKind === 'message' ? fc.array(item, { maxLength: 14 })
        : fc.oneof({ weight: 4, arbitrary: fc.array(item, { maxLength: 8 }) },
          { weight: 1, arbitrary: fc.integer({ min: 90, max: 1_100 })
            .chain((n) => fc.array(item, { minLength: n, maxLength: n })) })
    }
    case 'map': {
      const value = field.mapKind === 'scalar' ? scalarArb(field.scalar, pools)
        : field.mapKind === 'enum' ? enumArb(field.enum.values.map((v) => v.number))
          : messageArb(field.message, {}, pools, depth - 1)
      return fc.dictionary(fc.string({ maxLength: 10 }), value, { maxKeys: 4 })
    }
  }
}

/** Every field of `schema` and of its messages down to `depth`, as paths into an init object. */
function pathsOf(schema: DescMessage, depth: number, prefix: readonly PathStep[] = []): FieldPath[] {
  const paths: FieldPath[] = []
  for (const field of schema.fields) {
    const step = field.oneof === undefined ? { name: field.localName }
      : { name: field.oneof.localName, oneofCase: field.localName }
    const steps = [...prefix, step]
    paths.push({ steps, field })
    if (field.fieldKind === 'message' && depth > 1) paths.push(...pathsOf(field.message, depth - 1, steps))
  }
  return paths
}

/** A copy of `init` with the field at `steps` set to `value` (messages and oneof cases on the way made as needed). */
function withValue(init: unknown, steps: readonly PathStep[], value: unknown): Record<string, unknown> {
  const object: Record<string, unknown> = { ...(isPlainObject(init) ? init : {}) }
  const [step, ...rest] = steps
  if (step === undefined) return object
  if (step.oneofCase === undefined) {
    object[step.name] = rest.length === 0 ? value : withValue(object[step.name], rest, value)
    return object
  }
  const current = object[step.name] as { case?: string; value?: unknown } | undefined
  const inner = current?.case === step.oneofCase ? current.value : undefined
  object[step.name] = { case: step.oneofCase, value: rest.length === 0 ? value : withValue(inner, rest, value) }
  return object
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
}

/**
 * Init objects of `schema`: `base` as it is, `base` with one to three fields (at any depth)
 * replaced by garbage of their type, or a message of garbage fields only.
 */
export function messageArb(schema: DescMessage, base: Record<string, unknown>, pools: Pools,
  depth = 3): fc.Arbitrary<Record<string, unknown>> {
  const paths = pathsOf(schema, Math.max(depth, 1))
  if (paths.length === 0 || depth <= 0) return fc.constant(base)
  const change = fc.constantFrom(...paths)
    .chain((path) => valueArb(path.field, pools, depth).map((value) => ({ path, value })))
  const apply = (start: Record<string, unknown>) => (changes: readonly { path: FieldPath; value: unknown }[]) =>
    changes.reduce<Record<string, unknown>>((init, { path, value }) => withValue(init, path.steps, value), start)
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(base) },
    { weight: 4, arbitrary: fc.array(change, { minLength: 1, maxLength: 3 }).map(apply(base)) },
    { weight: 2, arbitrary: fc.array(change, { maxLength: 6 }).map(apply({})) })
}

/** The bytes of `init` as `schema`; values the encoder refuses give a stray field-1 varint instead. */
export function encode(schema: DescMessage, init: Record<string, unknown>): Uint8Array {
  try {
    return toBinary(schema, create(schema, init as never))
  } catch {
    return Uint8Array.of(0x08, 0x01)
  }
}

/** Byte-level damage to an encoding. */
type Mutation =
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'set'; readonly at: number; readonly byte: number }
  | { readonly kind: 'insert'; readonly at: number; readonly bytes: Uint8Array }
  | { readonly kind: 'append'; readonly bytes: Uint8Array }

const SUFFIXES = [
  [0x08, 0x01], // field 1 as a varint (a string or message field elsewhere)
  [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f], // field 1 length-delimited, length past the end
  [0x0b], // field 1 as a (deprecated) group start
  [0x0c], // a group end without a start
  [0xf8, 0xff, 0xff, 0xff, 0x0f, 0x00], // field 2^29 - 1 varint: an unknown field
  [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], // an over-long varint tag
  [0x00], // field 0
  [0x11, 1, 2, 3, 4, 5, 6, 7, 8], // field 2 as fixed64
  [0x15, 1, 2, 3, 4], // field 2 as fixed32
  [0x1a, 0x03, 0xff, 0xfe, 0xfd], // field 3 length-delimited, invalid UTF-8
]

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 6 }) }),
  fc.record({ kind: fc.constant('append' as const),
    bytes: fc.oneof(fc.constantFrom(...SUFFIXES).map((b) => Uint8Array.from(b)),
      fc.uint8Array({ minLength: 1, maxLength: 12 })) }))

function mutate(bytes: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  let out = Buffer.from(bytes)
  for (const m of mutations) {
    const at = out.length === 0 ? 0 : (m.kind === 'append' ? out.length : m.at % (out.length + 1))
    switch (m.kind) {
      case 'truncate': out = out.subarray(0, at); break
      case 'set': if (at < out.length) out[at] = m.byte; break
      case 'insert': out = Buffer.concat([out.subarray(0, at), m.bytes, out.subarray(at)]); break
      case 'append': out = Buffer.concat([out, m.bytes]); break
    }
  }
  return out
}

/** Field 1, length-delimited, of `size` bytes: a huge string where field 1 is one (the last value wins). */
function hugeField(size: number): Buffer {
  const length: number[] = []
  for (let n = size; ; n = Math.floor(n / 128)) {
    if (n < 128) {
      length.push(n)
      break
    }
    length.push((n % 128) | 0x80)
  }
  return Buffer.concat([Buffer.of(0x0a, ...length), Buffer.alloc(size, 0x78)])
}

/**
 * Request bytes for `schema`: mostly generated messages (see messageArb), some with damaged
 * encodings, some random bytes, now and then nothing at all, and rarely a field 1 of up to 300 KB
 * (past the 256 KiB message limit or just under it).
 */
export function bytesArb(schema: DescMessage, base: Record<string, unknown>, pools: Pools): fc.Arbitrary<Uint8Array> {
  const encoded = messageArb(schema, base, pools).map((init) => encode(schema, init))
  return fc.oneof(
    { weight: 16, arbitrary: encoded },
    { weight: 6, arbitrary: fc.tuple(encoded, fc.array(mutation, { minLength: 1, maxLength: 3 }))
      .map(([b, m]) => mutate(b, m)) },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 200 }) },
    { weight: 1, arbitrary: fc.constant(new Uint8Array(0)) },
    { weight: 1, arbitrary: fc.tuple(encoded, fc.integer({ min: 200_000, max: 300_000 }))
      .map(([b, size]) => Buffer.concat([b, hugeField(size)])) })
}
