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

/**
 * Reads requests one after another with one reader and no object per request (the engine
 * worker's loop): `read` returns the command, and leaves its request id and where the command's
 * own bytes start in the record.
 */
export class RequestReader {
  private readonly reader = readerOf(new Uint8Array(0))
  requestId = 0
  /** Where the command's own encoding starts in the record last read. */
  commandStart = 0

  read(bytes: Uint8Array): UnstampedCommand {
    const r = this.reader
    r.reset(bytes)
    this.requestId = r.uint()
    this.commandStart = r.position
    const command = readCommand(r)
    assert(r.isAtEnd(), 'a request record has no trailing bytes')
    return command
  }
}

const oneOff = new RequestReader()

export function decodeRequest(bytes: Uint8Array): Request {
  const command = oneOff.read(bytes)
  return { requestId: oneOff.requestId, command, commandBytes: bytes.subarray(oneOff.commandStart) }
}
