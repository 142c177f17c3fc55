/**
 * Bounds on the gRPC port's TCP connections, applied before HTTP/2 starts (guarded-server.ts hands
 * each accepted socket here first): at most GRPC_CONNECTIONS_MAX open at once, at most
 * GRPC_CONNECTIONS_PER_ADDRESS_MAX per client address, and new ones within the address's
 * GRPC_CONNECT_RULE budget; past any of them the socket is closed at once. 21 000 idle
 * connections took the process's file descriptors to its limit (issue 27), and a client that
 * reconnected to reset streams at 32 000 a second kept a core busy.
 *
 * It also observes every call's end (call-end.ts): a call the client reset (CANCELLED) draws on
 * its address's GRPC_RESET_RULE budget, and past it the connection the reset came on is closed,
 * so a reset flood costs the flooder a reconnect, itself budgeted.
 */
import type { Socket } from 'node:net'
import { status as Status } from '@grpc/grpc-js'
import {
  GRPC_CONNECT_RULE, GRPC_CONNECTIONS_MAX, GRPC_CONNECTIONS_PER_ADDRESS_MAX, GRPC_RESET_RULE,
} from '../../limits.js'
import type { AddressBudgets } from './address-budgets.js'
import type { CallEnd, CallObserver } from './call-end.js'

export type Refusal = 'connections' | 'connections of the address' | 'connect budget' | 'reset budget'

export class ConnectionGuard implements CallObserver {
  private readonly byAddress = new Map<string, Set<Socket>>()
  private total = 0

  constructor(private readonly budgets: AddressBudgets,
    private readonly refused: (why: Refusal, address: string) => void) {}

  /** Connections open now. */
  get open(): number {
    return this.total
  }

  /** Keeps `socket` (true) or closes it at once (false). */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress ?? ''
    const why = this.refusalOf(address)
    if (why !== null) {
      socket.on('error', () => undefined)
      socket.destroy()
      this.refused(why, address)
      return false
    }
    this.add(address, socket)
    return true
  }

  started(): void {}

  ended(end: CallEnd): void {
    if (end.code !== Status.CANCELLED || end.remoteAddress === undefined) return
    if (this.budgets.take('reset', GRPC_RESET_RULE, end.remoteAddress) === null) return
    end.closeConnection()
    this.refused('reset budget', end.remoteAddress)
  }

  private refusalOf(address: string): Refusal | null {
    if (this.total >= GRPC_CONNECTIONS_MAX) return 'connections'
    const ofAddress = this.byAddress.get(address)?.size ?? 0
    if (ofAddress >= GRPC_CONNECTIONS_PER_ADDRESS_MAX) return 'connections of the address'
    if (this.budgets.take('connect', GRPC_CONNECT_RULE, address) !== null) return 'connect budget'
    return null
  }

  private add(address: string, socket: Socket): void {
    let sockets = this.byAddress.get(address)
    if (sockets === undefined) this.byAddress.set(address, sockets = new Set())
    sockets.add(socket)
    this.total++
    socket.once('close', () => {
      sockets.delete(socket)
      this.total--
      if (sockets.size === 0 && this.byAddress.get(address) === sockets) this.byAddress.delete(address)
    })
  }
}
