/**
 * The gRPC face (api.md "Streams"; docs/grpc.md): @grpc/grpc-js serving predex.v1 beside the REST
 * face, with the standard health service (grpc.health.v1) and server reflection (so grpcurl and
 * similar tools list and call it). Calls go through call.ts (budgets, decoding, the gate) to the
 * services; the streams register with the fan-out like the WebSocket channels.
 *
 * Transport settings, stated once here: HTTP/2 keepalive pings every GRPC_KEEPALIVE_TIME_MS,
 * dropped after GRPC_KEEPALIVE_TIMEOUT_MS without an answer; clients may ping down to
 * GRPC_CLIENT_PING_INTERVAL_MS_MIN, also without calls; message sizes bounded both ways; at most
 * GRPC_STREAMS_PER_CONNECTION_MAX concurrent calls per connection; connections bounded in number
 * (in total and per client address), in their rate per address, in idle time and age, and closed
 * when their address resets too many calls (connection-guard.ts, guarded-server.ts). Deadlines:
 * grpc-js cancels a call whose deadline passes (DEADLINE_EXCEEDED to the client); handlers see `call.cancelled` and
 * drop the answer, and a command already in the engine completes (its result is durable and can
 * be read back), which is what "deadline" can honestly mean for an order.
 */
import { toBinary } from '@bufbuild/protobuf'
import { FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt'
import type { DescFile } from '@bufbuild/protobuf'
import { ServerCredentials, type ChannelOptions } from '@grpc/grpc-js'
import { HealthImplementation } from 'grpc-health-check'
import {
  GRPC_CLIENT_PING_INTERVAL_MS_MIN,
  GRPC_CONNECTION_AGE_MS_MAX,
  GRPC_CONNECTION_IDLE_MS_MAX,
  GRPC_KEEPALIVE_TIME_MS,
  GRPC_KEEPALIVE_TIMEOUT_MS,
  GRPC_METADATA_BYTES_MAX,
  GRPC_RECEIVE_MESSAGE_BYTES_MAX,
  GRPC_REFLECTION_RULE,
  GRPC_SEND_MESSAGE_BYTES_MAX,
  GRPC_SHUTDOWN_GRACE_MS,
  GRPC_STREAMS_PER_CONNECTION_MAX,
} from '../../limits.js'
import { AccountService, file_predex_v1_account } from '../../gen/predex/v1/account_pb.js'
import { file_predex_v1_market_data, MarketDataService } from '../../gen/predex/v1/market_data_pb.js'
import { file_predex_v1_order_entry, OrderEntryService } from '../../gen/predex/v1/order_entry_pb.js'
import { file_predex_v1_streams, StreamService } from '../../gen/predex/v1/streams_pb.js'
import { file_grpc_health_v1_health } from '../../gen/grpc/health/v1/health_pb.js'
import { file_predex_v1_trading, TradingService } from '../../gen/predex/v1/trading_pb.js'
import { accountService } from './account.js'
import type { GrpcFace } from './call.js'
import { serverDefinitionOf } from './definition.js'
import { marketDataService } from './market-data.js'
import { OrderEntry } from './order-entry.js'
import { Streams } from './streams.js'
import { tradingService } from './trading.js'
import { callMeter } from './call-meter.js'
import { callEnds } from './call-end.js'
import { AddressBudgets } from './address-budgets.js'
import { Reflection } from './reflection.js'
import { ConnectionGuard } from './connection-guard.js'
import { GuardedServer } from './guarded-server.js'

export const SERVICES = [TradingService, AccountService, MarketDataService, OrderEntryService, StreamService] as const
/** What reflection describes: Predex's services, and the standard health service beside them. */
const FILES = [file_predex_v1_trading, file_predex_v1_account, file_predex_v1_market_data, file_predex_v1_order_entry,
  file_predex_v1_streams, file_grpc_health_v1_health]

export const CHANNEL_OPTIONS: ChannelOptions = {
  'grpc.keepalive_time_ms': GRPC_KEEPALIVE_TIME_MS,
  'grpc.keepalive_timeout_ms': GRPC_KEEPALIVE_TIMEOUT_MS,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.http2.min_ping_interval_without_data_ms': GRPC_CLIENT_PING_INTERVAL_MS_MIN,
  'grpc.max_receive_message_length': GRPC_RECEIVE_MESSAGE_BYTES_MAX,
  'grpc.max_send_message_length': GRPC_SEND_MESSAGE_BYTES_MAX,
  'grpc.max_concurrent_streams': GRPC_STREAMS_PER_CONNECTION_MAX,
  'grpc.max_connection_idle_ms': GRPC_CONNECTION_IDLE_MS_MAX,
  'grpc.max_connection_age_ms': GRPC_CONNECTION_AGE_MS_MAX,
}

export class GrpcServer {
  private readonly server: GuardedServer
  private readonly health: HealthImplementation
  private readonly orderEntry: OrderEntry
  private readonly streams: Streams
  private readonly reflection: Reflection
  /** The gRPC port's budgets per client address (connections, resets, reflection requests). */
  private readonly budgets: AddressBudgets

  constructor(face: GrpcFace) {
    this.budgets = new AddressBudgets(() => face.gate.monotonicMs())
    const guard = new ConnectionGuard(this.budgets, (why, address) => {
      if (face.refusalLines.take()) face.log.info('grpc connection refused', { why, address })
    })
    // The port is this server's alone: GuardedServer listens with node:net, which sets no SO_REUSEPORT.
    this.server = new GuardedServer({ ...CHANNEL_OPTIONS,
      interceptors: [callEnds([callMeter(face.context.metrics), guard])] }, guard, GRPC_METADATA_BYTES_MAX)
    this.orderEntry = new OrderEntry(face)
    this.streams = new Streams(face)
    this.server.addService(serverDefinitionOf(TradingService), tradingService(face))
    this.server.addService(serverDefinitionOf(AccountService), accountService(face))
    this.server.addService(serverDefinitionOf(MarketDataService), marketDataService(face))
    this.server.addService(serverDefinitionOf(OrderEntryService), this.orderEntry.implementation())
    this.server.addService(serverDefinitionOf(StreamService), this.streams.implementation())
    const statuses: Record<string, 'SERVING' | 'NOT_SERVING'> = { '': 'NOT_SERVING' }
    for (const service of SERVICES) statuses[service.typeName] = 'NOT_SERVING'
    this.health = new HealthImplementation(statuses)
    this.health.addToServer(this.server)
    this.reflection = new Reflection(face, { 'predex.v1': { fileDescriptorProtos: descriptorsOf(FILES) } } as never,
      { take: (address) => this.budgets.take('reflection', GRPC_REFLECTION_RULE, address) })
    this.reflection.addToServer(this.server)
  }

  /** Binds `host`:`port` (0: a free port) and reports SERVING; resolves with the bound port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
      this.server.bindAsync(address, ServerCredentials.createInsecure(), (error, bound) => {
        if (error !== null) {
          return reject(new Error(`cannot listen on port ${port} on ${host} (gRPC): ${error.message}; `
            + 'choose another with --grpc-port / GRPC_PORT', { cause: error }))
        }
        this.setServing('SERVING')
        resolve(bound)
      })
    })
  }

  /**
   * Graceful stop: NOT_SERVING first (load balancers stop sending), the sessions and streams
   * ended by the server (order entry applies cancel on disconnect while the engine still runs),
   * then calls in progress get GRPC_SHUTDOWN_GRACE_MS to finish before they are cancelled.
   */
  async close(): Promise<void> {
    this.setServing('NOT_SERVING')
    await this.orderEntry.close()
    this.streams.close()
    this.reflection.close()
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => this.server.forceShutdown(), GRPC_SHUTDOWN_GRACE_MS)
      this.server.tryShutdown(() => {
        clearTimeout(force)
        resolve()
      })
    })
  }

  private setServing(status: 'SERVING' | 'NOT_SERVING'): void {
    this.health.setStatus('', status)
    for (const service of SERVICES) this.health.setStatus(service.typeName, status)
  }
}

/** Each file's descriptor and its imports', once each, encoded: what reflection serves. */
function descriptorsOf(files: readonly DescFile[]): Buffer[] {
  const seen = new Map<string, FileDescriptorProto>()
  const visit = (file: DescFile): void => {
    if (seen.has(file.proto.name)) return
    seen.set(file.proto.name, file.proto)
    for (const dependency of file.dependencies) visit(dependency)
  }
  for (const file of files) visit(file)
  return [...seen.values()].map((proto) => Buffer.from(toBinary(FileDescriptorProtoSchema, proto)))
}
