/**
 * Server reflection (grpc.reflection.v1 and v1alpha), bounded like every other stream of the face.
 * @grpc/reflection's own handler answered every request at once into grpc-js's buffer: a client
 * that sent requests and never read grew the server's memory until the process died (issue 27).
 * Here the answers are still @grpc/reflection's (the same descriptors, the same errors), but the
 * stream is ours (reflection-stream.ts): requests bounded in size and rate, answers bounded in
 * number while the client does not read; malformed requests are INVALID_ARGUMENT, not INTERNAL;
 * streams bounded per client address and in total, a slot held until the call is really over.
 *
 * The services' definitions come from @grpc/reflection itself (its `addToServer` is given a
 * recorder), with the request left as bytes so that the stream decodes it (a throwing
 * deserializer is grpc-js's INTERNAL).
 */
import type { MethodDefinition, Server, ServerDuplexStream, ServiceDefinition, UntypedServiceImplementation }
  from '@grpc/grpc-js'
import type { PackageDefinition } from '@grpc/proto-loader'
import { ReflectionService } from '@grpc/reflection'
import { ReflectionV1Implementation } from '@grpc/reflection/build/src/implementations/reflection-v1.js'
import type { ServerReflectionRequest }
  from '@grpc/reflection/build/src/generated/grpc/reflection/v1/ServerReflectionRequest.js'
import type { ServerReflectionResponse }
  from '@grpc/reflection/build/src/generated/grpc/reflection/v1/ServerReflectionResponse.js'
import { ApiCode, PredexError } from '../../errors.js'
import { GRPC_REFLECTION_STREAMS_MAX, GRPC_REFLECTION_STREAMS_PER_ADDRESS_MAX } from '../../limits.js'
import { remoteAddressOf, type GrpcFace } from './call.js'
import { ReflectionStream, type ReflectionBudget } from './reflection-stream.js'
import { asPredexError, statusOf } from './status.js'
import { StreamSlots } from './stream-slots.js'

type Definition = ServiceDefinition<Record<string, MethodDefinition<unknown, unknown>>>
type Call = ServerDuplexStream<Buffer, ServerReflectionResponse>

/** Every stream's slot of the whole server (StreamSlots counts per subject; this is the one subject). */
const ALL = ''

export class Reflection {
  private readonly answers: ReflectionV1Implementation
  private readonly definitions: readonly Definition[]
  private readonly addressSlots = new StreamSlots('reflection streams of this address',
    GRPC_REFLECTION_STREAMS_PER_ADDRESS_MAX)
  private readonly allSlots = new StreamSlots('reflection streams', GRPC_REFLECTION_STREAMS_MAX)
  private readonly open = new Set<ReflectionStream>()
  private closing = false

  constructor(private readonly face: GrpcFace, descriptors: PackageDefinition,
    private readonly budget: ReflectionBudget) {
    this.answers = new ReflectionV1Implementation(descriptors)
    this.definitions = definitionsOf(descriptors)
  }

  addToServer(server: Pick<Server, 'addService'>): void {
    for (const definition of this.definitions) {
      const [name, method] = Object.entries(definition)[0]!
      const implementation: UntypedServiceImplementation = {
        [name]: (call: Call) =>
          this.serve(call, (bytes) => method.requestDeserialize(bytes) as ServerReflectionRequest),
      }
      server.addService({ [name]: { ...method, requestDeserialize: (bytes: Buffer) => bytes } }, implementation)
    }
  }

  /** Ends every open stream (server shutdown) with NOT_READY. */
  close(): void {
    this.closing = true
    const error = new PredexError(ApiCode.NOT_READY, 'the server is shutting down')
    for (const stream of [...this.open]) stream.fail(error)
  }

  private serve(call: Call, decode: (bytes: Buffer) => ServerReflectionRequest): void {
    let stream: ReflectionStream
    try {
      if (this.closing) throw new PredexError(ApiCode.NOT_READY, 'the server is shutting down')
      const address = remoteAddressOf(call.getPeer())
      this.face.gate.admit(address)
      const release = this.takeSlots(address)
      stream = new ReflectionStream(call, { address, decode, budget: this.budget,
        answer: (request) => this.answers.handleServerReflectionRequest(request) })
      this.open.add(stream)
      // The slots are given back when the call is over (its status sent, or the client gone), not
      // when the stream fails: a client that does not read keeps its answers until then.
      call.once('close', () => {
        this.open.delete(stream)
        release()
      })
    } catch (error) {
      call.emit('error', statusOf(asPredexError(error)))
    }
  }

  /** One slot of `address`'s and one of the server's, or a throw (TOO_MANY_STREAMS); returns their release. */
  private takeSlots(address: string): () => void {
    const releaseAll = this.allSlots.take(ALL)
    try {
      const releaseAddress = this.addressSlots.take(address)
      return () => {
        releaseAddress()
        releaseAll()
      }
    } catch (error) {
      releaseAll()
      throw error
    }
  }
}

/** @grpc/reflection's service definitions (v1 and v1alpha), as its `addToServer` registers them. */
function definitionsOf(descriptors: PackageDefinition): Definition[] {
  const definitions: Definition[] = []
  new ReflectionService(descriptors).addToServer({ addService: (definition) => void definitions.push(definition) })
  return definitions
}
