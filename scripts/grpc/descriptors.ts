/**
 * The descriptors `npm run grpc` fetched by reflection, as a @bufbuild/protobuf registry (what
 * turns JSON into request bytes and answer bytes into JSON), their text for `describe` (in
 * grpcurl's shape: a service's rpc lines, a message's fields), and the names close to a
 * misspelt one.
 */
import { createFileRegistry, create, ScalarType, type DescEnum, type DescField, type DescMessage, type DescMethod,
  type DescService, type FileRegistry } from '@bufbuild/protobuf'
import { FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt'

/** A registry of `files`, each added after the files it imports (createFileRegistry needs them first). */
export function registryOf(files: ReadonlyMap<string, FileDescriptorProto>): FileRegistry {
  const ordered: FileDescriptorProto[] = []
  const placed = new Set<string>()
  const place = (file: FileDescriptorProto): void => {
    if (placed.has(file.name)) return
    placed.add(file.name)
    for (const name of file.dependency) {
      const dependency = files.get(name)
      if (dependency === undefined) throw new Error(`the server's reflection lacks ${name}, imported by ${file.name}`)
      place(dependency)
    }
    ordered.push(file)
  }
  for (const file of files.values()) place(file)
  return createFileRegistry(create(FileDescriptorSetSchema, { file: ordered }))
}

/** "pkg.Service/Method" or "pkg.Service.Method" as [service, method]; null when there is no method part. */
export function splitMethod(symbol: string): [string, string] | null {
  const slash = symbol.lastIndexOf('/')
  const at = slash >= 0 ? slash : symbol.lastIndexOf('.')
  if (at <= 0 || at === symbol.length - 1) return null
  return [symbol.slice(0, at).replace(/^\//, ''), symbol.slice(at + 1)]
}

/** "unary", or the stream markers of an rpc line. */
function rpcLine(method: DescMethod): string {
  const client = method.methodKind === 'client_streaming' || method.methodKind === 'bidi_streaming' ? 'stream ' : ''
  const server = method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming' ? 'stream ' : ''
  return `rpc ${method.name} ( ${client}.${method.input.typeName} ) returns ( ${server}.${method.output.typeName} );`
}

export function serviceText(service: DescService): string {
  return [`${service.typeName} is a service:`, `service ${service.name} {`,
    ...service.methods.map((method) => `  ${rpcLine(method)}`), '}'].join('\n')
}

export function methodText(method: DescMethod): string {
  return [`${method.parent.typeName}.${method.name} is a method:`, rpcLine(method)].join('\n')
}

function scalarName(scalar: ScalarType): string {
  return ScalarType[scalar].toLowerCase()
}

function fieldType(field: DescField): string {
  switch (field.fieldKind) {
    case 'scalar': return scalarName(field.scalar)
    case 'enum': return `.${field.enum.typeName}`
    case 'message': return `.${field.message.typeName}`
    case 'list': return `repeated ${field.listKind === 'scalar' ? scalarName(field.scalar)
      : `.${(field.listKind === 'enum' ? field.enum : field.message).typeName}`}`
    case 'map': return `map<${scalarName(field.mapKey)}, ${field.mapKind === 'scalar' ? scalarName(field.scalar)
      : `.${(field.mapKind === 'enum' ? field.enum : field.message).typeName}`}>`
  }
}

export function messageText(message: DescMessage): string {
  const lines = message.fields.map((field) => {
    const optional = field.proto.proto3Optional ? 'optional ' : ''
    const oneof = field.oneof === undefined ? '' : `  // oneof ${field.oneof.name}`
    return `  ${optional}${fieldType(field)} ${field.name} = ${field.number};${oneof}`
  })
  return [`${message.typeName} is a message:`, `message ${message.name} {`, ...lines, '}'].join('\n')
}

export function enumText(descEnum: DescEnum): string {
  return [`${descEnum.typeName} is an enum:`, `enum ${descEnum.name} {`,
    ...descEnum.values.map((value) => `  ${value.name} = ${value.number};`), '}'].join('\n')
}

/** Edit distance of two short names, case-insensitive (for "did you mean"). */
function distance(a: string, b: string): number {
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  let row = Array.from({ length: y.length + 1 }, (_, j) => j)
  for (let i = 1; i <= x.length; i++) {
    const next = [i]
    for (let j = 1; j <= y.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1))
    }
    row = next
  }
  return row[y.length]!
}

/** Up to `max` of `names` close to `wanted`: containing it or within a third of its length in edits, closest first. */
export function closeNames(wanted: string, names: readonly string[], max = 5): string[] {
  const last = (name: string): string => name.slice(name.lastIndexOf('.') + 1)
  const target = last(wanted).toLowerCase()
  return names
    .map((name) => ({ name, d: distance(last(name), target) }))
    .filter(({ name, d }) => last(name).toLowerCase().includes(target) || target.includes(last(name).toLowerCase())
      || d <= Math.max(2, Math.floor(target.length / 3)))
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, max)
    .map(({ name }) => name)
}
