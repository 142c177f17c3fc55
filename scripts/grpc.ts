/**
 * `npm run grpc`: grpcurl's list, describe and call for Predex's gRPC face, over server reflection,
 * with nothing to install (grpcurl is not packaged for Debian 12, and the README used it). The
 * services and message types come from the server itself (scripts/grpc/reflection.ts); requests
 * and answers are JSON in protobuf's mapping (camelCase names, 64-bit integers and decimals as
 * strings), as grpcurl writes them. Unary and server-streaming methods can be called; a stream
 * prints each message until it ends, `--max N` messages arrived, or Ctrl-C.
 *
 *   npm run grpc -- [--addr HOST:PORT] list [SERVICE]
 *   npm run grpc -- [--addr HOST:PORT] describe [SYMBOL]
 *   npm run grpc -- [--addr HOST:PORT] [-H 'key: value']... [--max N] call SERVICE/METHOD [JSON | -d JSON | -]
 *
 * The address is 127.0.0.1:$GRPC_PORT (9090 without it) unless --addr says otherwise: the same
 * GRPC_PORT the server reads. Exit status: 0, 1 for a failed call or an unreachable server, 2
 * for a usage error.
 */
import { fromBinary, fromJson, toBinary, toJson, type DescMethod, type FileRegistry, type JsonValue }
  from '@bufbuild/protobuf'
import { Client, credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js'
import { readFileSync } from 'node:fs'
import { callErrorOf } from '../src/client/grpc/transport.js'
import { GRPC_SEND_MESSAGE_BYTES_MAX } from '../src/limits.js'
import { closeNames, enumText, messageText, methodText, registryOf, serviceText, splitMethod }
  from './grpc/descriptors.js'
import { ReflectionClient, ReflectionRefusal } from './grpc/reflection.js'

const USAGE = `usage: npm run grpc -- [--addr HOST:PORT] [-H 'key: value']... [--max N] COMMAND
  list [SERVICE]                   the services, or a service's methods
  describe [SYMBOL]                a service, method, message or enum (every service without SYMBOL)
  call SERVICE/METHOD [JSON]       a unary or server-streaming call; JSON also as -d JSON, or - for stdin
  --addr HOST:PORT                 default 127.0.0.1:$GRPC_PORT, else 127.0.0.1:9090
  -H 'key: value'                  request metadata, repeatable
  --max N                          a server stream: stop after N messages (default: until it ends or Ctrl-C)`
/** A unary call's deadline. */
const CALL_DEADLINE_MS = 30_000

class UsageError extends Error {}

interface Arguments {
  readonly addr: string
  readonly headers: readonly [string, string][]
  readonly maxMessages: number | null
  readonly command: string
  readonly operands: readonly string[]
  readonly data: string | null
}

function parse(argv: readonly string[], env: NodeJS.ProcessEnv): Arguments {
  let addr = `127.0.0.1:${env['GRPC_PORT'] || '9090'}`
  const headers: [string, string][] = []
  let maxMessages: number | null = null
  let data: string | null = null
  const positional: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const [flag, inline] = arg.startsWith('--') && arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined]
    const value = (): string => {
      const text = inline ?? argv[++i]
      if (text === undefined) throw new UsageError(`${flag} needs a value`)
      return text
    }
    if (flag === '--help' || flag === '-h') throw new UsageError('')
    else if (flag === '--addr') addr = value()
    else if (flag === '-H' || flag === '--header') headers.push(header(value()))
    else if (flag === '-d' || flag === '--data') data = value()
    else if (flag === '--max') maxMessages = positive(value(), '--max')
    else if (flag.startsWith('-') && flag !== '-') throw new UsageError(`unknown flag ${flag}`)
    else positional.push(arg)
  }
  const [command, ...operands] = positional
  if (command === undefined) throw new UsageError('no command')
  return { addr, headers, maxMessages, command, operands, data }
}

function header(text: string): [string, string] {
  const colon = text.indexOf(':')
  if (colon <= 0) throw new UsageError(`-H takes "key: value", not "${text}"`)
  return [text.slice(0, colon).trim().toLowerCase(), text.slice(colon + 1).trim()]
}

function positive(text: string, flag: string): number {
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new UsageError(`${flag} takes a positive integer, not "${text}"`)
  }
  return value
}

function print(text: string): void {
  process.stdout.write(`${text}\n`)
}

/** What a reflection stream or call that never reached the server says: the address, and how to set it. */
function unreachable(addr: string, error: ServiceError): Error {
  return new Error(`cannot reach the gRPC server at ${addr} (${status[error.code]}: ${error.details}). ` +
    'Is Predex running (npm start)? Its gRPC port is --grpc-port / GRPC_PORT, 9090 by default: ' +
    'pass --addr HOST:PORT, or set GRPC_PORT.')
}

class Tool {
  private readonly client: Client
  private readonly metadata = new Metadata()
  private readonly reflection: ReflectionClient

  constructor(private readonly args: Arguments) {
    this.client = new Client(args.addr, credentials.createInsecure(),
      { 'grpc.max_receive_message_length': GRPC_SEND_MESSAGE_BYTES_MAX })
    for (const [key, value] of args.headers) this.metadata.add(key, value)
    this.reflection = new ReflectionClient(this.client, this.metadata)
  }

  close(): void {
    this.reflection.close()
    this.client.close()
  }

  async run(): Promise<void> {
    const { command, operands } = this.args
    if (command === 'list' && operands.length <= 1) return this.list(operands[0])
    if (command === 'describe' && operands.length <= 1) return this.describe(operands[0])
    if (command === 'call' && operands.length >= 1 && operands.length <= 2) return this.call(operands[0]!, operands[1])
    throw new UsageError(['list', 'describe', 'call'].includes(command)
      ? `wrong operands for ${command}` : `unknown command "${command}"`)
  }

  /** A reflection step; a server that cannot be reached says so with the address. */
  private async reflect<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step()
    } catch (error) {
      const code = (error as Partial<ServiceError>).code
      if (!(error instanceof ReflectionRefusal) && (code === status.UNAVAILABLE || code === status.DEADLINE_EXCEEDED)) {
        throw unreachable(this.args.addr, error as ServiceError)
      }
      throw error
    }
  }

  /** The reflected services (the server's reflection describes grpc.health.v1 beside predex.v1). */
  private async services(): Promise<string[]> {
    return (await this.reflect(() => this.reflection.services())).sort()
  }

  private async list(serviceName: string | undefined): Promise<void> {
    const services = await this.services()
    if (serviceName === undefined) return services.forEach(print)
    const service = (await this.registryWith(serviceName, services)).getService(serviceName)
    if (service === undefined) throw new Error(`${serviceName} is not a service`)
    for (const method of service.methods) print(`${service.typeName}.${method.name}`)
  }

  private async describe(symbol: string | undefined): Promise<void> {
    const services = await this.services()
    if (symbol === undefined) {
      await this.loadAll(services)
      const registry = registryOf(this.reflection.files)
      return print(services.map((name) => serviceText(registry.getService(name)!)).join('\n\n'))
    }
    const method = splitMethod(symbol)
    const registry = await this.registryWith(symbol, services, method?.[0])
    const found = registry.get(symbol)
    if (found?.kind === 'service') return print(serviceText(found))
    if (found?.kind === 'message') return print(messageText(found))
    if (found?.kind === 'enum') return print(enumText(found))
    const rpc = method === null ? undefined : registry.getService(method[0])?.methods.find((m) => m.name === method[1])
    if (rpc !== undefined) return print(methodText(rpc))
    throw new Error(`the server declares no "${symbol}"${await this.closeTo(symbol, services)}`)
  }

  /**
   * A registry holding `symbol` (or `fallback`, its service when it names a method); an unknown
   * symbol fails with the close names the server has.
   */
  private async registryWith(symbol: string, services: string[], fallback?: string): Promise<FileRegistry> {
    for (const name of fallback === undefined ? [symbol] : [symbol, fallback]) {
      if (registryOf(this.reflection.files).get(name) !== undefined) return registryOf(this.reflection.files)
      try {
        await this.reflect(() => this.reflection.loadSymbol(name))
        return registryOf(this.reflection.files)
      } catch (error) {
        if (!(error instanceof ReflectionRefusal && error.code === status.NOT_FOUND)) throw error
      }
    }
    throw new Error(`the server declares no "${symbol}"${await this.closeTo(symbol, services)}`)
  }

  /** "; close: a, b" from every symbol of every service's files, or the services when none is close. */
  private async closeTo(symbol: string, services: string[]): Promise<string> {
    await this.loadAll(services)
    const names: string[] = []
    for (const desc of registryOf(this.reflection.files)) {
      if (desc.kind === 'service') names.push(desc.typeName, ...desc.methods.map((m) => `${desc.typeName}/${m.name}`))
      else if (desc.kind === 'message' || desc.kind === 'enum') names.push(desc.typeName)
    }
    const close = closeNames(symbol, names)
    return close.length > 0 ? `; close: ${close.join(', ')}` : `; its services: ${services.join(', ')}`
  }

  /** Every service's files (those the tool carries are there already). */
  private async loadAll(services: readonly string[]): Promise<void> {
    const known = registryOf(this.reflection.files)
    for (const name of services) {
      if (known.get(name) === undefined) await this.reflect(() => this.reflection.loadSymbol(name))
    }
  }

  private async call(target: string, json: string | undefined): Promise<void> {
    const parts = splitMethod(target)
    if (parts === null) throw new UsageError(`call takes SERVICE/METHOD, not "${target}"`)
    const [serviceName, methodName] = parts
    const services = await this.services()
    if (!services.includes(serviceName)) {
      const close = closeNames(serviceName, services)
      throw new Error(`unknown service "${serviceName}"; ${close.length > 0 ? `close: ${close.join(', ')}`
        : `the server's services: ${services.join(', ')}`}`)
    }
    const registry = await this.registryWith(serviceName, services)
    const service = registry.getService(serviceName)!
    const method = service.methods.find((m) => m.name === methodName)
    if (method === undefined) {
      const names = service.methods.map((m) => m.name)
      const close = closeNames(methodName, names)
      throw new Error(`${serviceName} has no method "${methodName}"; ${close.length > 0 ? `close: ${close.join(', ')}`
        : `its methods: ${names.join(', ')}`}`)
    }
    const request = this.requestBytes(method, registry, json)
    if (method.methodKind === 'unary') return this.unary(method, registry, request)
    if (method.methodKind === 'server_streaming') return this.serverStream(method, registry, request)
    throw new Error(`${serviceName}/${methodName} is a ${method.methodKind.replace('_', '-')} method: this tool ` +
      'calls unary and server-streaming methods (the order-entry session: the SDK, src/client/grpc)')
  }

  private requestBytes(method: DescMethod, registry: FileRegistry, operand: string | undefined): Buffer {
    if (operand !== undefined && this.args.data !== null) throw new UsageError('the request twice: -d and an operand')
    const source = operand ?? this.args.data ?? '{}'
    const text = source === '-' ? readFileSync(0, 'utf8') : source
    let json: JsonValue
    try {
      json = JSON.parse(text) as JsonValue
    } catch (error) {
      throw new Error(`the request is not JSON: ${(error as Error).message}`, { cause: error })
    }
    try {
      return Buffer.from(toBinary(method.input, fromJson(method.input, json, { registry })))
    } catch (error) {
      throw new Error(`the request is not a ${method.input.typeName}: ${(error as Error).message}`, { cause: error })
    }
  }

  /** The answer as JSON (protobuf's mapping, as grpcurl prints it). */
  private answerText(method: DescMethod, registry: FileRegistry, bytes: Buffer): string {
    return JSON.stringify(toJson(method.output, fromBinary(method.output, bytes), { registry }), null, 2)
  }

  private unary(method: DescMethod, registry: FileRegistry, request: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(`/${method.parent.typeName}/${method.name}`, (b: Buffer) => b, (b: Buffer) => b,
        request, this.metadata, { deadline: Date.now() + CALL_DEADLINE_MS }, (error, answer) => {
          if (error) reject(this.callFailure(error))
          else resolve(print(this.answerText(method, registry, answer!)))
        })
    })
  }

  private serverStream(method: DescMethod, registry: FileRegistry, request: Buffer): Promise<void> {
    const call = this.client.makeServerStreamRequest(`/${method.parent.typeName}/${method.name}`, (b: Buffer) => b,
      (b: Buffer) => b, request, this.metadata)
    let received = 0
    let cancelled = false
    return new Promise((resolve, reject) => {
      const stop = (): void => {
        cancelled = true
        call.cancel()
        resolve()
      }
      process.once('SIGINT', stop)
      call.on('data', (bytes: Buffer) => {
        if (cancelled) return
        print(this.answerText(method, registry, bytes))
        if (this.args.maxMessages !== null && ++received >= this.args.maxMessages) stop()
      })
      call.on('error', (error: ServiceError) => {
        if (!cancelled) reject(this.callFailure(error))
      })
      call.on('end', () => resolve())
    })
  }

  /** A failed call: the status, the catalogue code and context when the server sent them. */
  private callFailure(error: ServiceError): Error {
    if (error.code === status.UNAVAILABLE && /ECONNREFUSED|No connection/.test(error.details)) {
      return unreachable(this.args.addr, error)
    }
    const failure = callErrorOf(error)
    const context = Object.keys(failure.context).length > 0 ? ` ${JSON.stringify(failure.context)}` : ''
    const code = failure.code === '' ? '' : ` (${failure.code})`
    return new Error(`${status[error.code]}: ${error.details}${code}${context}`)
  }
}

async function main(): Promise<number> {
  let args: Arguments
  try {
    args = parse(process.argv.slice(2), process.env)
  } catch (error) {
    const message = (error as Error).message
    process.stderr.write(message === '' ? `${USAGE}\n` : `grpc: ${message}\n${USAGE}\n`)
    return message === '' ? 0 : 2
  }
  const tool = new Tool(args)
  try {
    await tool.run()
    return 0
  } catch (error) {
    process.stderr.write(`grpc: ${(error as Error).message}${error instanceof UsageError ? `\n${USAGE}` : ''}\n`)
    return error instanceof UsageError ? 2 : 1
  } finally {
    tool.close()
  }
}

// Exit once the output is written: grpc-js's channel may keep the loop alive for a moment.
main().then((code) => process.stdout.write('', () => process.exit(code)))
