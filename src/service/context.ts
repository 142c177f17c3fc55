/**
 * What the services work with: the engine host, the read model, the credentials, the
 * verification pool, the clock and the configuration that matters to them. Faces hold one and
 * pass it to the services; they never reach into it for the engine themselves.
 */
import type { CredentialStore } from '../auth/credentials.js'
import type { VerifierPool } from '../crypto/verifier-pool.js'
import type { EngineHost } from '../host/engine-host.js'
import type { ReadModel } from '../read/read-model.js'
import type { Metrics } from '../metrics.js'
import type { Heartbeats } from './trading/heartbeats.js'
import type { Log } from '../log.js'
import type { LoadShedder } from './trading/load-shedder.js'
import type { ReplicaLag } from '../replication/replica-feed.js'
import type { Chain } from '../chain/chain.js'
import type { Settlement } from './testnet/settlement.js'

export interface ServiceContext {
  readonly host: EngineHost
  readonly read: ReadModel
  readonly credentials: CredentialStore
  readonly pool: VerifierPool
  /** The chain behind the test network (--chain): the engine's own ledger, or a real one. */
  readonly chain: Pick<Chain, 'status' | 'clients'>
  /** Settlement of trades on a real chain (null or absent on the builtin one, where a match is final). */
  readonly settlement?: Pick<Settlement, 'keepOrder' | 'of' | 'onChange' | 'checkBacklog' | 'unsettledCount'> | null
  readonly chainId: number
  readonly version: string
  readonly startedMs: number
  readonly metrics: Metrics
  readonly nowMs: () => number
  /**
   * The test network's faucet: the most USDC one request may ask for, the wait between two
   * requests of an address, and the credits per hour for everyone (FAUCET_CREDITS_PER_HOUR_MAX
   * unless told; null: no bound, with --rate-limits false, for benchmarks).
   */
  readonly faucet: {
    readonly amountMicrosMax: number
    readonly cooldownMs: number
    readonly creditsPerHourMax?: number | null
  }
  /** Proxy and Safe wallets registered for a signer (none can be registered yet). */
  readonly isLinked: (maker: string, signer: string) => boolean
  /** Cancel on disconnect for REST clients: the keys' heartbeat chains (heartbeats.ts). */
  readonly heartbeats: Heartbeats
  /** For what a client is not told: an unexpected failure behind an INTERNAL answer. */
  readonly log: Log
  /** Sheds order placements while the front end's event loop lags (absent: never sheds). */
  readonly shedder?: LoadShedder
  /** A read replica's feed (issue 34): how far behind the primary it is. Absent on a primary. */
  readonly replica?: { lag(): ReplicaLag } | null
}
