/**
 * grpc-js service definitions from the protobuf-es descriptors (src/gen): grpc-js needs a path and
 * (de)serializers per method, protobuf-es has the schemas. The server side does NOT decode in
 * the deserializer: grpc-js answers a throwing deserializer with INTERNAL, and a message that
 * does not parse is the client's fault (INVALID_ARGUMENT); the raw bytes are also what the L2
 * HMAC covers. So a request arrives as its bytes, and the call wrapper decodes it (call.ts).
 */
import type { DescMethod, DescService, MessageInitShape } from '@bufbuild/protobuf'
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js'
import { initEncoder } from './init-encoder.js'

/** The full method name, as gRPC sends it in the `:path` header and L2 signs it: "/pkg.Service/Method". */
export function pathOf(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`
}

export function isRequestStreaming(method: DescMethod): boolean {
  return method.methodKind === 'client_streaming' || method.methodKind === 'bidi_streaming'
}

export function isResponseStreaming(method: DescMethod): boolean {
  return method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming'
}

/** What a handler answers: a message of the method's output, or its init shape (no message built). */
export type Answer = MessageInitShape<DescMethod['output']>

/**
 * The server's definition: requests stay bytes; responses, messages or their init shapes, are
 * written by an encoder compiled for the method's output (init-encoder.ts), so no face builds a
 * message to answer and no answer goes through protobuf-es's reflection.
 */
export function serverDefinitionOf(service: DescService): ServiceDefinition {
  const definition: Record<string, MethodDefinition<Buffer, Answer>> = {}
  for (const method of service.methods) {
    const encode = initEncoder(method.output)
    definition[method.localName] = {
      path: pathOf(method),
      requestStream: isRequestStreaming(method),
      responseStream: isResponseStreaming(method),
      requestSerialize: (bytes) => bytes,
      requestDeserialize: (bytes) => bytes,
      responseSerialize: encode,
      // Never called on the server; grpc-js requires it.
      responseDeserialize: () => { throw new Error('server definitions do not decode responses') },
      originalName: method.localName,
    }
  }
  return definition
}
