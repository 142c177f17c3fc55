/**
 * Binary encoding of a message straight from its init shape (the plain object a face builds), with
 * a writer compiled once per schema: the bytes `toBinary(schema, create(schema, init))` gives, with
 * no message built and no reflection per field. It is every gRPC method's response serializer
 * (definition.ts), so a face answers with an init and never builds the message (issue 29, "hot
 * answers written without building intermediate objects"): creating the message and the
 * reflective encoding were 10-13 % of the main thread's time in bench:grpc's stream phase. A
 * message already built encodes the same way (its fields are where an init's are).
 *
 * protobuf-es's rules, kept here (test/unit/api/grpc/init-encoder.test.ts compares the bytes
 * over random messages): fields in field-number order; a field with implicit presence is written
 * only when it differs from its zero value ("" , 0, 0n, false, an enum's first value, an empty
 * list or map); a message field, or a field with explicit presence, whenever it is given; the
 * member of a oneof named by its `case`, whatever its value; repeated numbers packed when the
 * field is; a map entry's key and value always.
 *
 * A number out of its type's range, or not an integer where one is due, throws as protobuf-es's
 * writer throws (never a silent wrap); so does a string field given anything but a string. Only
 * the scalar types Predex's schemas use are compiled (an unknown one throws when the encoder is
 * made, not on a message); delimited (group) encoding is not supported.
 */
import { ScalarType, type DescField, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf'
import { GRPC_ENCODE_BUFFER_BYTES_KEPT_MAX } from '../../limits.js'

const WIRE_VARINT = 0
const WIRE_FIXED64 = 1
const WIRE_LENGTH_DELIMITED = 2

/** Explicit presence in protobuf-es's descriptors (FeatureSet.FieldPresence): 1 explicit, 2 implicit. */
const IMPLICIT = 2

const encoder = new TextEncoder()

const BUFFER_BYTES_INITIAL = 1 << 12

/**
 * A growable buffer reused from message to message; `finish` copies out each message's bytes. A
 * buffer grown past GRPC_ENCODE_BUFFER_BYTES_KEPT_MAX by one large message is dropped after it.
 */
class ProtoWriter {
  private buffer = new Uint8Array(BUFFER_BYTES_INITIAL)
  private view = new DataView(this.buffer.buffer)
  length = 0

  reset(): void {
    this.length = 0
  }

  /** After a message: a buffer grown past the bound is let go. */
  release(): void {
    if (this.buffer.length > GRPC_ENCODE_BUFFER_BYTES_KEPT_MAX) {
      this.buffer = new Uint8Array(BUFFER_BYTES_INITIAL)
      this.view = new DataView(this.buffer.buffer)
    }
  }

  /** The bytes kept between messages (tests: the bound). */
  get capacity(): number {
    return this.buffer.length
  }

  tag(fieldNumber: number, wireType: number): void {
    this.varint32(fieldNumber * 8 + wireType)
  }

  /** An unsigned varint of a value within 32 bits. */
  varint32(value: number): void {
    this.reserve(5)
    let rest = value >>> 0
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest & 0x7f) | 0x80
      rest >>>= 7
    }
    this.buffer[this.length++] = rest
  }

  /** A 64-bit varint: two's complement for a negative value (an int32 or int64 below zero: 10 bytes). */
  varint64(value: bigint): void {
    this.reserve(10)
    let rest = BigInt.asUintN(64, value)
    while (rest >= 0x80n) {
      this.buffer[this.length++] = Number(rest & 0x7fn) | 0x80
      rest >>= 7n
    }
    this.buffer[this.length++] = Number(rest)
  }

  int32(value: number): void {
    if (value >= 0) this.varint32(value)
    else this.varint64(BigInt(value))
  }

  double(value: number): void {
    this.reserve(8)
    this.view.setFloat64(this.length, value, true)
    this.length += 8
  }

  /** Length-prefixed UTF-8; ASCII (ids, decimals, codes) copied char by char. */
  string(value: string): void {
    const chars = value.length
    this.reserve(5 + chars)
    const start = this.length
    this.varint32(chars)
    const at = this.length
    const buffer = this.buffer
    for (let i = 0; i < chars; i++) {
      const code = value.charCodeAt(i)
      if (code >= 0x80) {
        this.length = start
        this.bytes(encoder.encode(value))
        return
      }
      buffer[at + i] = code
    }
    this.length = at + chars
  }

  bytes(value: Uint8Array): void {
    this.varint32(value.length)
    this.reserve(value.length)
    this.buffer.set(value, this.length)
    this.length += value.length
  }

  /**
   * Starts a length-delimited part: one byte is kept for its length, filled in by `end` (which
   * moves the part up in the rare case its length needs more: 128 bytes or more).
   */
  begin(): number {
    this.reserve(1)
    return this.length++
  }

  end(lengthAt: number): void {
    const partBytes = this.length - lengthAt - 1
    if (partBytes < 0x80) {
      this.buffer[lengthAt] = partBytes
      return
    }
    const lengthBytes = varint32Bytes(partBytes)
    this.reserve(lengthBytes - 1)
    this.buffer.copyWithin(lengthAt + lengthBytes, lengthAt + 1, this.length)
    this.length = lengthAt
    this.varint32(partBytes)
    this.length += partBytes
  }

  finish(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length))
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return
    let size = this.buffer.length * 2
    while (size < this.length + bytes) size *= 2
    const grown = new Uint8Array(size)
    grown.set(this.buffer.subarray(0, this.length))
    this.buffer = grown
    this.view = new DataView(grown.buffer)
  }
}

function varint32Bytes(value: number): number {
  let bytes = 1
  for (let rest = value >>> 7; rest > 0; rest >>>= 7) bytes++
  return bytes
}

/** Writes one value of a field (its tag included) to the writer. */
type ValueWriter = (writer: ProtoWriter, value: unknown) => void
/** Writes a whole message's init (its fields) to the writer. */
type FieldsWriter = (writer: ProtoWriter, init: Readonly<Record<string, unknown>>) => void

function bigintOf(value: unknown): bigint {
  return typeof value === 'bigint' ? value : BigInt(value as number | string)
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const UINT64_MAX = 2n ** 64n - 1n

/** A number within [min, max], or the error protobuf-es's writer throws for it (never a silent wrap). */
function checkedInteger(value: unknown, min: number, max: number, type: string): number {
  const number = typeof value === 'string' ? Number(value) : value
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    throw new Error(`invalid ${type}: ${String(value)}`)
  }
  return number
}

function checkedBigint(value: unknown, min: bigint, max: bigint, type: string): bigint {
  const big = bigintOf(value)
  if (big < min || big > max) throw new Error(`invalid ${type}: ${String(value)}`)
  return big
}

/** A scalar's bytes without its tag, and its wire type. */
function scalarWriter(type: ScalarType, where: string): { wireType: number; write: ValueWriter } {
  switch (type) {
    case ScalarType.STRING: return { wireType: WIRE_LENGTH_DELIMITED, write: (w, v) => {
      if (typeof v !== 'string') throw new Error(`invalid string: ${typeof v}`)
      w.string(v)
    } }
    case ScalarType.BYTES: return { wireType: WIRE_LENGTH_DELIMITED, write: (w, v) => w.bytes(v as Uint8Array) }
    // As protobuf-es writes a bool: any truthy value is 1.
    case ScalarType.BOOL: return { wireType: WIRE_VARINT, write: (w, v) => w.varint32(v ? 1 : 0) }
    case ScalarType.INT32: return { wireType: WIRE_VARINT,
      write: (w, v) => w.int32(checkedInteger(v, -0x80000000, 0x7fffffff, 'int32')) }
    case ScalarType.UINT32: return { wireType: WIRE_VARINT,
      write: (w, v) => w.varint32(checkedInteger(v, 0, 0xffffffff, 'uint32')) }
    case ScalarType.INT64: return { wireType: WIRE_VARINT,
      write: (w, v) => w.varint64(checkedBigint(v, INT64_MIN, INT64_MAX, 'int64')) }
    case ScalarType.UINT64: return { wireType: WIRE_VARINT,
      write: (w, v) => w.varint64(checkedBigint(v, 0n, UINT64_MAX, 'uint64')) }
    case ScalarType.DOUBLE: return { wireType: WIRE_FIXED64, write: (w, v) => w.double(v as number) }
    default: throw new Error(`init-encoder: ${where} has a scalar type it does not encode (${ScalarType[type]})`)
  }
}

/** Whether an implicit-presence scalar holds its zero value (then it is not written): protobuf-es's rule. */
function isZero(type: ScalarType, value: unknown): boolean {
  switch (type) {
    case ScalarType.STRING: return value === ''
    case ScalarType.BYTES: return value instanceof Uint8Array && value.byteLength === 0
    case ScalarType.BOOL: return value === false
    // -0 is written (Object.is tells it from 0).
    case ScalarType.DOUBLE: return Object.is(value, 0)
    // Loose, as protobuf-es compares: 0, 0n and "0" are zero.
    default: return value == 0
  }
}

/** Compiled writers per message type: a schema's fields are compiled once, recursion included. */
class Compiler {
  private readonly messages = new Map<string, FieldsWriter>()

  message(desc: DescMessage): FieldsWriter {
    const known = this.messages.get(desc.typeName)
    if (known !== undefined) return known
    const slots: FieldsWriter[] = []
    const writeFields: FieldsWriter = (writer, init) => {
      for (const slot of slots) slot(writer, init)
    }
    // Registered before its fields compile: a message that contains itself refers to this writer.
    this.messages.set(desc.typeName, writeFields)
    for (const field of [...desc.fields].sort((a, b) => a.number - b.number)) slots.push(this.slot(field))
    return writeFields
  }

  /** A field's writer over its message's init: reads the field (or its oneof), decides presence, writes. */
  private slot(field: DescField): FieldsWriter {
    const write = this.field(field)
    const name = field.localName
    if (field.oneof !== undefined) {
      const oneof = field.oneof.localName
      return (writer, init) => {
        const chosen = init[oneof] as { case?: string; value?: unknown } | undefined
        if (chosen?.case === name) write(writer, chosen.value)
      }
    }
    switch (field.fieldKind) {
      case 'list': return (writer, init) => {
        const list = init[name] as readonly unknown[] | undefined
        if (list !== undefined && list.length > 0) write(writer, list)
      }
      case 'map': return (writer, init) => {
        const map = init[name] as Readonly<Record<string, unknown>> | undefined
        if (map !== undefined) write(writer, map)
      }
      case 'message': return (writer, init) => {
        if (init[name] !== undefined) write(writer, init[name])
      }
      case 'scalar': {
        const type = field.scalar
        const explicit = field.presence !== IMPLICIT
        return (writer, init) => {
          const value = init[name]
          if (value !== undefined && (explicit || !isZero(type, value))) write(writer, value)
        }
      }
      case 'enum': {
        const zero = field.enum.values[0]?.number ?? 0
        const explicit = field.presence !== IMPLICIT
        return (writer, init) => {
          const value = init[name]
          if (value !== undefined && (explicit || value !== zero)) write(writer, value)
        }
      }
    }
  }

  /** A field's value (a list's or a map's whole), tags included. */
  private field(field: DescField): ValueWriter {
    const number = field.number
    const where = `${field.parent.typeName}.${field.name}`
    switch (field.fieldKind) {
      case 'scalar': return this.tagged(number, scalarWriter(field.scalar, where))
      case 'enum': return this.tagged(number, scalarWriter(ScalarType.INT32, where))
      case 'message': return this.tagged(number, this.embedded(field.message, field.delimitedEncoding, where))
      case 'list': {
        if (field.listKind === 'message') {
          const item = this.tagged(number, this.embedded(field.message, field.delimitedEncoding, where))
          return (w, list) => { for (const value of list as readonly unknown[]) item(w, value) }
        }
        const scalar = scalarWriter(field.listKind === 'enum' ? ScalarType.INT32 : field.scalar, where)
        if (field.packed) {
          return (w, list) => {
            w.tag(number, WIRE_LENGTH_DELIMITED)
            const at = w.begin()
            for (const value of list as readonly unknown[]) scalar.write(w, value)
            w.end(at)
          }
        }
        const item = this.tagged(number, scalar)
        return (w, list) => { for (const value of list as readonly unknown[]) item(w, value) }
      }
      case 'map': {
        const key = this.tagged(1, scalarWriter(field.mapKey, where))
        const value = this.tagged(2, field.mapKind === 'message'
          ? this.embedded(field.message, false, where)
          : scalarWriter(field.mapKind === 'enum' ? ScalarType.INT32 : field.scalar, where))
        const keyOf = mapKeyReader(field.mapKey)
        return (w, map) => {
          for (const [k, v] of Object.entries(map as Readonly<Record<string, unknown>>)) {
            w.tag(number, WIRE_LENGTH_DELIMITED)
            const at = w.begin()
            key(w, keyOf(k))
            value(w, v)
            w.end(at)
          }
        }
      }
    }
  }

  private embedded(desc: DescMessage, delimitedEncoding: boolean, where: string):
    { wireType: number; write: ValueWriter } {
    if (delimitedEncoding) throw new Error(`init-encoder: ${where} uses delimited (group) encoding`)
    // Looked up when first written: the message may still be compiling (a recursive schema).
    let fields: FieldsWriter | null = null
    return { wireType: WIRE_LENGTH_DELIMITED, write: (w, v) => {
      fields ??= this.message(desc)
      const at = w.begin()
      fields(w, v as Readonly<Record<string, unknown>>)
      w.end(at)
    } }
  }

  private tagged(number: number, scalar: { wireType: number; write: ValueWriter }): ValueWriter {
    const { wireType, write } = scalar
    return (w, v) => {
      w.tag(number, wireType)
      write(w, v)
    }
  }
}

/** A map's keys are strings in JavaScript: back to the key's type for its encoding. */
function mapKeyReader(type: ScalarType): (key: string) => unknown {
  switch (type) {
    case ScalarType.STRING: return (key) => key
    case ScalarType.BOOL: return (key) => key === 'true'
    case ScalarType.INT64:
    case ScalarType.UINT64: return (key) => BigInt(key)
    default: return (key) => Number(key)
  }
}

/** An encoder of `schema`'s messages or init shapes: each call returns the bytes in a Buffer of its own. */
export interface InitEncoder<S extends DescMessage> {
  (init: MessageInitShape<S>): Buffer
  /** The bytes its buffer keeps between messages (at most GRPC_ENCODE_BUFFER_BYTES_KEPT_MAX once one is done). */
  readonly keptBytes: number
}

export function initEncoder<S extends DescMessage>(schema: S): InitEncoder<S> {
  const writeFields = new Compiler().message(schema)
  const writer = new ProtoWriter()
  const encode = (init: MessageInitShape<S>): Buffer => {
    writer.reset()
    writeFields(writer, init as Readonly<Record<string, unknown>>)
    const bytes = writer.finish()
    writer.release()
    return bytes
  }
  return Object.defineProperty(encode, 'keptBytes', { get: () => writer.capacity }) as InitEncoder<S>
}
