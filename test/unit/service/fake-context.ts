/**
 * A ServiceContext for unit tests of the services: a real engine applied in process (no worker,
 * no journal), a real read model fed with each command's events, and a clock the test moves.
 * Every command the services submit is kept, so a test can see that a refusal journaled nothing.
 */
import { BUILTIN_CHAIN } from '../../../src/chain/chain.js'
import { Engine } from '../../../src/engine/engine.js'
import type { Command, UnstampedCommand } from '../../../src/engine/command.js'
import { answer, type Query } from '../../../src/host/query.js'
import { ReadModel } from '../../../src/read/read-model.js'
import type { ReadStore } from '../../../src/read/read-store.js'
import type { ServiceContext } from '../../../src/service/context.js'
import { SILENT_LOG } from '../../../src/log.js'

export const T0_MS = 1_700_000_000_000
export const USDC = 1_000_000
export const CHAIN_ID = 31_337

export interface FakeWorld {
  readonly context: ServiceContext
  readonly engine: Engine
  readonly commands: Command[]
  /** Moves the clock (the services' `nowMs` and the next command's stamp). */
  advance(ms: number): void
}

/** `store`: the read model keeps its history there (on disk), saved after each command as the server does. */
export function fakeWorld(faucet: ServiceContext['faucet'] = { amountMicrosMax: 1_000 * USDC, cooldownMs: 60_000 },
  store?: ReadStore): FakeWorld {
  const engine = new Engine()
  const read = store === undefined ? new ReadModel() : new ReadModel(store)
  const commands: Command[] = []
  let nowMs = T0_MS
  const host = {
    submit: async (command: UnstampedCommand) => {
      const stamped = { ...command, seq: engine.seq + 1, timeMs: nowMs } as Command
      commands.push(stamped)
      const applied = engine.apply(stamped)
      read.apply(stamped.seq, applied.events, stamped.timeMs)
      store?.save(read)
      return { requestId: stamped.seq, seq: stamped.seq, timeMs: stamped.timeMs, result: applied.result, events: applied.events }
    },
    query: async (query: Query) => answer(engine, query),
  }
  const context = {
    host, read, credentials: { size: 0 }, pool: null, chain: BUILTIN_CHAIN, chainId: CHAIN_ID, version: 'test', startedMs: T0_MS,
    metrics: { observeEngineAck: () => undefined }, nowMs: () => nowMs, faucet, isLinked: () => false, log: SILENT_LOG,
  } as unknown as ServiceContext
  return { context, engine, commands, advance: (ms) => { nowMs += ms } }
}
