/**
 * A ring record: the request id (so the result finds its caller) and the unstamped command.
 */
import { ByteWriter } from '../stdx/bytes.js'
import type { UnstampedCommand } from '../engine/command.js'
import { assert } from '../stdx/assert.js'
import { readCommand, readerOf, writeCommand } from './command-codec.js'

// One writer, reused: the record is copied into the ring before the next encode.
const writer = new ByteWriter(1024)

/** Encodes a request; the bytes are valid until the next call (copy or write them at once). */
export function encodeRequest(requestId: number, command: UnstampedCommand): Uint8Array {
  writer.reset()
  writer.uint(requestId)
  writeCommand(writer, command)
  return writer.bytes()
}

export interface Request {
  readonly requestId: number
  readonly command: UnstampedCommand
  /** The command's own encoding inside the record: the journal reuses it as it is. */
  readonly commandBytes: Uint8Array
}

export function decodeRequest(bytes: Uint8Array): Request {
  const r = readerOf(bytes)
  const requestId = r.uint()
  const start = r.position
  const command = readCommand(r)
  assert(r.isAtEnd(), 'a request record has no trailing bytes')
  return { requestId, command, commandBytes: bytes.subarray(start) }
}
