/**
 * A ring record: the request id (so the result finds its caller) and the unstamped command.
 */
import { ByteReader, ByteWriter } from '../engine/bytes.js'
import type { UnstampedCommand } from '../engine/command.js'
import { assert } from '../engine/assert.js'
import { readCommand, writeCommand } from '../ring/command-codec.js'

// One writer, reused: the record is copied into the ring before the next encode.
const writer = new ByteWriter(1024)

/** Encodes a request; the bytes are valid until the next call (copy or write them at once). */
export function encodeRequest(requestId: number, command: UnstampedCommand): Uint8Array {
  writer.reset()
  writer.uint(requestId)
  writeCommand(writer, command)
  return writer.bytes()
}

export function decodeRequest(bytes: Uint8Array): { requestId: number; command: UnstampedCommand } {
  const r = new ByteReader(bytes)
  const requestId = r.uint()
  const command = readCommand(r)
  assert(r.isAtEnd(), 'a request record has no trailing bytes')
  return { requestId, command }
}
