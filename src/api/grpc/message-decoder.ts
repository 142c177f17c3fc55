/**
 * Binary decoding of a request with a reader compiled once per schema: the message
 * `fromBinary(schema, bytes)` gives, for the messages clients send, without protobuf-es's
 * reflection per field (its decode was about 10 % of the main thread in bench:grpc's stream phase
 * once the answers were written by init-encoder.ts).
 *
 * The compiled reader takes only the plain case: known fields with the wire type their type
 * writes, ASCII strings, varints that fit the field, each singular message field once, no map.
 * Anything else (an unknown field, a merge, a packed list, a non-ASCII or invalid string, a
 * truncated or malformed message) is decoded again by `fromBinary` itself, which returns what it
 * returns or throws what it throws: the compiled reader never decides an unusual case.
 * test/unit/api/grpc/message-decoder.test.ts checks both over random messages and corruptions.
 *
 * The objects are built as protobuf-es builds proto3 messages: `$typeName`, then every field with
 * implicit presence at its zero value and every oneof as `{ case: undefined }`, in declaration
 * order; a message field is a property only once it is read.
 */
import { fromBinary, ScalarType, type DescField, type DescMessage, type MessageShape } from '@bufbuild/protobuf'

const WIRE_VARINT = 0
const WIRE_LENGTH_DELIMITED = 2
/** Explicit presence in protobuf-es's descriptors (FeatureSet.FieldPresence): 2 is implicit. */
const IMPLICIT = 2

/** Thrown by the compiled reader for anything it does not take: `fromBinary` decodes the message instead. */
const UNUSUAL = new Error('not the plain case: decoded by fromBinary')

type Fields = Record<string, unknown>

/** The bytes being read and the position in them. */
interface Cursor {
  readonly bytes: Buffer
  pos: number
}

/** A varint of at most `bytesMax` bytes (7 bits each) as a number; longer, or past the end, is unusual. */
function varint(cursor: Cursor, end: number, bytesMax: number): number {
  const bytes = cursor.bytes
  let value = 0
  let scale = 1
  for (let i = 0; i < bytesMax; i++) {
    if (cursor.pos >= end) throw UNUSUAL
    const byte = bytes[cursor.pos++]!
    value += (byte & 0x7f) * scale
    if (byte < 0x80) return value
    scale *= 0x80
  }
  throw UNUSUAL
}

/** A length-delimited part's end, within the message's. */
function partEnd(cursor: Cursor, end: number): number {
  const length = varint(cursor, end, 5)
  const partEnd = cursor.pos + length
  if (partEnd > end) throw UNUSUAL
  return partEnd
}

/** An ASCII string (the ids, decimals and codes clients send); any other byte is unusual. */
function asciiString(cursor: Cursor, end: number): string {
  const stop = partEnd(cursor, end)
  const bytes = cursor.bytes
  const start = cursor.pos
  for (let i = start; i < stop; i++) if (bytes[i]! >= 0x80) throw UNUSUAL
  cursor.pos = stop
  return bytes.toString('latin1', start, stop)
}

/** Reads one field's value (its tag read already, with `wireType`) into the message. */
type FieldReader = (cursor: Cursor, end: number, wireType: number, message: Fields) => void
/** Reads a scalar's value (its wire type checked already). */
type ValueReader = (cursor: Cursor, end: number) => unknown

/** The value reader of a scalar type and the wire type it needs, or null for a type left to fromBinary. */
function scalarReader(type: ScalarType): { wireType: number; read: ValueReader } | null {
  switch (type) {
    case ScalarType.STRING: return { wireType: WIRE_LENGTH_DELIMITED, read: asciiString }
    case ScalarType.BOOL: return { wireType: WIRE_VARINT, read: (cursor, end) => {
      const value = varint(cursor, end, 1)
      if (value > 1) throw UNUSUAL
      return value === 1
    } }
    case ScalarType.INT32: return { wireType: WIRE_VARINT, read: (cursor, end) => {
      const value = varint(cursor, end, 5)
      // A negative int32 takes 10 bytes (unusual); within 5 bytes the low 32 bits are the value.
      return value | 0
    } }
    case ScalarType.UINT32: return { wireType: WIRE_VARINT, read: (cursor, end) => varint(cursor, end, 5) >>> 0 }
    // Up to 49 bits, exact as a number; a longer one (or a negative int64) is unusual.
    case ScalarType.INT64:
    case ScalarType.UINT64: return { wireType: WIRE_VARINT, read: (cursor, end) => BigInt(varint(cursor, end, 7)) }
    default: return null
  }
}

interface Compiled {
  readonly zero: () => Fields
  /** By field number; undefined: unknown here, or of a kind left to fromBinary. */
  readonly fields: readonly (FieldReader | undefined)[]
}

class Compiler {
  private readonly messages = new Map<string, Compiled>()

  message(desc: DescMessage): Compiled {
    const known = this.messages.get(desc.typeName)
    if (known !== undefined) return known
    const fields: (FieldReader | undefined)[] = []
    const zeros: [string, () => unknown][] = []
    for (const member of desc.members) {
      if (member.kind === 'oneof') zeros.push([member.localName, () => ({ case: undefined })])
      else if (member.presence === IMPLICIT) zeros.push([member.localName, zeroOf(member)])
    }
    const typeName = desc.typeName
    const compiled: Compiled = {
      zero: () => {
        const message: Fields = { $typeName: typeName }
        for (const [name, zero] of zeros) message[name] = zero()
        return message
      },
      fields,
    }
    // Registered before its fields compile: a message that contains itself refers to this entry.
    this.messages.set(desc.typeName, compiled)
    for (const field of desc.fields) fields[field.number] = this.field(field) ?? undefined
    return compiled
  }

  /**
   * A nested message's compiled reader, looked up on its first read and kept: the message may still
   * be compiling when the field is (a recursive schema), and a lookup per read is work done again.
   */
  private nested(desc: DescMessage): () => Compiled {
    let compiled: Compiled | null = null
    return () => (compiled ??= this.message(desc))
  }

  private field(field: DescField): FieldReader | null {
    const name = field.localName
    switch (field.fieldKind) {
      case 'scalar':
      case 'enum': {
        // proto3 enums are open: any int32 is kept, as fromBinary keeps it.
        const scalar = scalarReader(field.fieldKind === 'enum' ? ScalarType.INT32 : field.scalar)
        if (scalar === null || (field.fieldKind === 'enum' && !field.enum.open)) return null
        const { wireType, read } = scalar
        const oneof = field.oneof?.localName
        return (cursor, end, type, message) => {
          if (type !== wireType) throw UNUSUAL
          const value = read(cursor, end)
          if (oneof === undefined) message[name] = value
          else message[oneof] = { case: name, value }
        }
      }
      case 'message': {
        if (field.delimitedEncoding) return null
        const nested = this.nested(field.message)
        const oneof = field.oneof?.localName
        return (cursor, end, type, message) => {
          if (type !== WIRE_LENGTH_DELIMITED) throw UNUSUAL
          // A second occurrence merges into the first: left to fromBinary.
          if (oneof === undefined ? message[name] !== undefined : (message[oneof] as { case?: string }).case === name) {
            throw UNUSUAL
          }
          const value = readMessage(nested(), cursor, partEnd(cursor, end))
          if (oneof === undefined) message[name] = value
          else message[oneof] = { case: name, value }
        }
      }
      case 'list': {
        if (field.listKind === 'message') {
          if (field.delimitedEncoding) return null
          const nested = this.nested(field.message)
          return (cursor, end, type, message) => {
            if (type !== WIRE_LENGTH_DELIMITED) throw UNUSUAL
            ;(message[name] as unknown[]).push(readMessage(nested(), cursor, partEnd(cursor, end)))
          }
        }
        const scalar = scalarReader(field.listKind === 'enum' ? ScalarType.INT32 : field.scalar)
        if (scalar === null) return null
        const { wireType, read } = scalar
        // A packed list comes length-delimited: unusual here (only a list of strings is, and it is not packed).
        return (cursor, end, type, message) => {
          if (type !== wireType) throw UNUSUAL
          ;(message[name] as unknown[]).push(read(cursor, end))
        }
      }
      case 'map': return null
    }
  }
}

/** A field's zero value, a new one per message (lists and maps are mutable). */
function zeroOf(field: DescField): () => unknown {
  switch (field.fieldKind) {
    case 'list': return () => []
    case 'map': return () => ({})
    case 'enum': {
      const first = field.enum.values[0]?.number ?? 0
      return () => first
    }
    case 'scalar': switch (field.scalar) {
      case ScalarType.STRING: return () => ''
      case ScalarType.BOOL: return () => false
      case ScalarType.BYTES: return () => new Uint8Array(0)
      case ScalarType.INT64:
      case ScalarType.UINT64:
      case ScalarType.SINT64:
      case ScalarType.FIXED64:
      case ScalarType.SFIXED64: return () => 0n
      default: return () => 0
    }
    case 'message': throw new Error('message-decoder: a message field has explicit presence, no zero value')
  }
}

function readMessage(compiled: Compiled, cursor: Cursor, end: number): Fields {
  const message = compiled.zero()
  const fields = compiled.fields
  while (cursor.pos < end) {
    const tag = varint(cursor, end, 5)
    const reader = fields[Math.floor(tag / 8)]
    if (reader === undefined) throw UNUSUAL
    reader(cursor, end, tag & 7, message)
  }
  return message
}

/** A decoder of `schema`'s binary form: exactly what `fromBinary(schema, bytes)` returns or throws. */
export function messageDecoder<S extends DescMessage>(schema: S): (bytes: Uint8Array) => MessageShape<S> {
  const compiled = new Compiler().message(schema)
  return (bytes) => {
    try {
      const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      return readMessage(compiled, { bytes: buffer, pos: 0 }, buffer.length) as MessageShape<S>
    } catch {
      // UNUSUAL, or anything else: the reference decoder decides.
      return fromBinary(schema, bytes)
    }
  }
}
