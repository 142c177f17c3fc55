/**
 * A client of gRPC server reflection (grpc.reflection.v1, falling back to v1alpha, whose messages
 * are the same on the wire) for `npm run grpc`: it lists services and fetches the file descriptors
 * that declare a symbol, with the files they import. One stream per run, one request in flight
 * at a time, every answer awaited under a deadline, so a silent server cannot hold the tool.
 *
 * The reflection messages are encoded by hand (five fields): their generated code would be a
 * second protobuf runtime or a .proto file to find in @grpc/reflection's package at run time.
 */
import { fromBinary } from '@bufbuild/protobuf'
import { FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt'
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire'
import { Metadata, status, type Client, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js'

const VERSIONS = ['grpc.reflection.v1', 'grpc.reflection.v1alpha'] as const
/** How long one reflection answer may take, connecting included. */
export const REFLECTION_ANSWER_MS_MAX = 10_000

/** The reflection request's fields we send (ServerReflectionRequest). */
type Request = { readonly listServices: true } | { readonly fileContainingSymbol: string }
  | { readonly fileByFilename: string }

/** A reflection answer: service names, file descriptors, or the server's error for that request. */
type Answer = { readonly services: string[] } | { readonly files: Uint8Array[] }
  | { readonly error: { readonly code: number; readonly message: string } }

/** A reflection failure the server answered for one request (NOT_FOUND for an unknown symbol). */
export class ReflectionRefusal extends Error {
  override readonly name = 'ReflectionRefusal'
  constructor(readonly code: number, message: string) {
    super(message)
  }
}

function encode(request: Request): Buffer {
  const writer = new BinaryWriter()
  // Field numbers of ServerReflectionRequest: file_by_filename 3, file_containing_symbol 4, list_services 7.
  const [field, text] = 'listServices' in request ? [7, '*']
    : 'fileContainingSymbol' in request ? [4, request.fileContainingSymbol] : [3, request.fileByFilename]
  writer.tag(field, WireType.LengthDelimited).string(text)
  return Buffer.from(writer.finish())
}

/** Each field of the message in `bytes`, as (number, reader positioned on its value, wire type). */
function forEachField(bytes: Uint8Array,
  visit: (field: number, reader: BinaryReader, wire: WireType) => boolean): void {
  const reader = new BinaryReader(bytes)
  while (reader.pos < reader.len) {
    const [field, wire] = reader.tag()
    if (!visit(field, reader, wire)) reader.skip(wire)
  }
}

function decode(bytes: Uint8Array): Answer {
  let answer: Answer = { services: [] }
  forEachField(bytes, (field, reader) => {
    if (field === 4) answer = { files: fileDescriptors(reader.bytes()) }
    else if (field === 6) answer = { services: serviceNames(reader.bytes()) }
    else if (field === 7) answer = { error: errorOf(reader.bytes()) }
    else return false
    return true
  })
  return answer
}

/** FileDescriptorResponse { repeated bytes file_descriptor_proto = 1 } */
function fileDescriptors(bytes: Uint8Array): Uint8Array[] {
  const files: Uint8Array[] = []
  forEachField(bytes, (field, reader) => field === 1 && files.push(reader.bytes()) > 0)
  return files
}

/** ListServiceResponse { repeated ServiceResponse service = 1 }, ServiceResponse { string name = 1 } */
function serviceNames(bytes: Uint8Array): string[] {
  const names: string[] = []
  forEachField(bytes, (field, reader) => {
    if (field !== 1) return false
    forEachField(reader.bytes(), (f, r) => f === 1 && names.push(r.string()) > 0)
    return true
  })
  return names
}

/** ErrorResponse { int32 error_code = 1; string error_message = 2 } */
function errorOf(bytes: Uint8Array): { code: number; message: string } {
  const error = { code: status.UNKNOWN as number, message: '' }
  forEachField(bytes, (field, reader) => {
    if (field === 1) error.code = reader.int32()
    else if (field === 2) error.message = reader.string()
    else return false
    return true
  })
  return error
}

/** Waits for the next answer on `call`, or its failure, within REFLECTION_ANSWER_MS_MAX. */
function nextAnswer(call: ClientDuplexStream<Buffer, Buffer>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(() => reject(Object.assign(new Error('no answer'),
      { code: status.DEADLINE_EXCEEDED, details: `no reflection answer within ${REFLECTION_ANSWER_MS_MAX} ms` })),
    ), REFLECTION_ANSWER_MS_MAX)
    const onData = (bytes: Buffer): void => done(() => resolve(bytes))
    const onError = (error: ServiceError): void => done(() => reject(error))
    const onEnd = (): void => done(() => reject(Object.assign(new Error('ended'),
      { code: status.UNAVAILABLE, details: 'the server ended the reflection stream' })))
    function done(then: () => void): void {
      clearTimeout(timer)
      call.off('data', onData).off('error', onError).off('end', onEnd)
      then()
    }
    call.on('data', onData).on('error', onError).on('end', onEnd)
  })
}

export class ReflectionClient {
  private call: ClientDuplexStream<Buffer, Buffer> | null = null
  /** The stream's failure, once it failed: an 'error' between two requests must not go unheard. */
  private failure: Error | null = null
  private version = 0
  /** Every file descriptor fetched so far, by file name. */
  readonly files = new Map<string, FileDescriptorProto>()

  constructor(private readonly client: Client, private readonly metadata: Metadata) {}

  async services(): Promise<string[]> {
    const answer = await this.ask({ listServices: true })
    if (!('services' in answer)) throw new Error('the server answered list_services with something else')
    return answer.services
  }

  /** Fetches the file declaring `symbol` (and its imports) into `files`; ReflectionRefusal when unknown. */
  async loadSymbol(symbol: string): Promise<void> {
    const answer = await this.ask({ fileContainingSymbol: symbol })
    if (!('files' in answer)) throw new Error('the server answered file_containing_symbol with something else')
    for (const bytes of answer.files) {
      const file = fromBinary(FileDescriptorProtoSchema, bytes)
      this.files.set(file.name, file)
    }
    // A server may send the file alone: fetch the imports it left out.
    for (const file of [...this.files.values()]) {
      for (const name of file.dependency) if (!this.files.has(name)) await this.loadFile(name)
    }
  }

  close(): void {
    this.call?.end()
    this.call = null
  }

  private async loadFile(name: string): Promise<void> {
    const answer = await this.ask({ fileByFilename: name })
    if (!('files' in answer)) throw new Error('the server answered file_by_filename with something else')
    for (const bytes of answer.files) {
      const file = fromBinary(FileDescriptorProtoSchema, bytes)
      if (!this.files.has(file.name)) this.files.set(file.name, file)
    }
  }

  private async ask(request: Request): Promise<Answer> {
    for (;;) {
      if (this.failure !== null) throw this.failure
      const call = this.call ?? this.open()
      call.write(encode(request))
      try {
        const answer = decode(await nextAnswer(call))
        if ('error' in answer) throw new ReflectionRefusal(answer.error.code, answer.error.message)
        return answer
      } catch (error) {
        // A server with only the older reflection: try it once.
        const unimplemented = (error as Partial<ServiceError>).code === status.UNIMPLEMENTED &&
          !(error instanceof ReflectionRefusal)
        if (!unimplemented || this.version + 1 >= VERSIONS.length) throw error
        this.call = null
        this.failure = null
        this.version++
      }
    }
  }

  private open(): ClientDuplexStream<Buffer, Buffer> {
    const call = this.client.makeBidiStreamRequest(`/${VERSIONS[this.version]}.ServerReflection/ServerReflectionInfo`,
      (bytes: Buffer) => bytes, (bytes: Buffer) => bytes, this.metadata)
    call.on('error', (error: Error) => {
      if (this.call === call) this.failure = error
    })
    this.call = call
    return call
  }
}
