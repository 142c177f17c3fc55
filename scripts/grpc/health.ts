/**
 * grpc.health.v1.Health's descriptor (health.proto of gRPC: Check and Watch), which `npm run grpc`
 * carries because Predex runs the health service without reflecting it (its reflection serves
 * predex.v1 only). Written out here: the descriptor proto-loader builds from grpc-health-check's
 * health.proto has names relative to their scope and a map entry misnamed, which
 * @bufbuild/protobuf's registry rightly refuses.
 */
import { create, toBinary } from '@bufbuild/protobuf'
import { FieldDescriptorProto_Label as Label, FieldDescriptorProto_Type as Type, FileDescriptorProtoSchema }
  from '@bufbuild/protobuf/wkt'

export const HEALTH_SERVICE = 'grpc.health.v1.Health'
/** The package as a fully-qualified type name's prefix. */
const PACKAGE = '.grpc.health.v1'

/** health.proto, encoded as reflection would serve it. */
export function healthFile(): Uint8Array {
  const optional = Label.OPTIONAL
  return toBinary(FileDescriptorProtoSchema, create(FileDescriptorProtoSchema, {
    name: 'grpc/health/v1/health.proto', package: 'grpc.health.v1', syntax: 'proto3',
    messageType: [
      { name: 'HealthCheckRequest', field: [{ name: 'service', number: 1, label: optional, type: Type.STRING,
        jsonName: 'service' }] },
      { name: 'HealthCheckResponse', field: [{ name: 'status', number: 1, label: optional, type: Type.ENUM,
        typeName: `${PACKAGE}.HealthCheckResponse.ServingStatus`, jsonName: 'status' }],
      enumType: [{ name: 'ServingStatus', value: [{ name: 'UNKNOWN', number: 0 }, { name: 'SERVING', number: 1 },
        { name: 'NOT_SERVING', number: 2 }, { name: 'SERVICE_UNKNOWN', number: 3 }] }] },
    ],
    service: [{ name: 'Health', method: [
      { name: 'Check', inputType: `${PACKAGE}.HealthCheckRequest`, outputType: `${PACKAGE}.HealthCheckResponse` },
      { name: 'Watch', inputType: `${PACKAGE}.HealthCheckRequest`, outputType: `${PACKAGE}.HealthCheckResponse`,
        serverStreaming: true },
    ] }],
  }))
}
