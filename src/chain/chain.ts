/**
 * The chain behind the test network, chosen at start with `--chain` (docs/testnet.md, "Chains"):
 * - `builtin` (the default): the engine's ledger is the chain; nothing else runs.
 * - `local`: anvil from npm, started on a loopback port with the configured chain id, its state
 *   under `<data-dir>/chain/`, Predex's contracts at the addresses the clients know
 *   (contract-placement.ts); stopped with the exchange.
 * - `rpc`: an external chain's node, with Predex's contracts where they were deployed
 *   (deployment.ts) and the operator's key from a file; Predex neither starts nor stops it
 *   (rpc-chain.ts).
 *
 * A real chain's code (viem, anvil) is loaded only when one is asked for.
 */
import type { Log } from '../log.js'
import type { ChainClients } from './node-chain.js'

export type ChainKind = 'builtin' | 'local' | 'rpc'

export interface ChainStatus {
  readonly kind: ChainKind
  /** For a real chain: its JSON-RPC URL, id, the last head block seen, and the last poll's failure. */
  readonly rpcUrl: string | null
  readonly chainId: number | null
  readonly headBlock: number | null
  /** Blocks on top of one before Predex takes it as final; null for the builtin chain. */
  readonly confirmations: number | null
  readonly rpcError: string | null
  /** How far the ledger follows it (src/service/testnet/chain-mirror.ts); null until a mirror follows. */
  readonly follower: ChainFollowerStatus | null
}

export interface ChainFollowerStatus {
  /** The last block whose facts the ledger has (or that had none). */
  readonly syncedBlock: number
  /** Transactions skipped: they move funds in a way the ledger does not mirror (src/chain/chain-facts.ts). */
  readonly unmirroredTransactions: number
  /** Why the last step failed; null when it did not. */
  readonly error: string | null
}

export interface ChainOptions {
  readonly kind: ChainKind
  readonly chainId: number
  readonly dataDir: string
  readonly blockMs: number
  readonly confirmations: number
  /** `rpc` only: the node, the contracts file, and the operator's key file. */
  readonly rpcUrl: string | null
  readonly contractsFile: string | null
  readonly operatorKeyFile: string | null
}

export interface Chain {
  readonly kind: ChainKind
  /** A real chain's node, for the services that follow it and send to it; null for the builtin one. */
  readonly clients: ChainClients | null
  status(): ChainStatus
  /** Whoever follows the chain into the ledger tells how far it is, for status(). */
  followedBy(follower: () => ChainFollowerStatus): void
  stop(): Promise<void>
}

export const BUILTIN_CHAIN: Chain = {
  kind: 'builtin',
  clients: null,
  status: () => ({ kind: 'builtin', rpcUrl: null, chainId: null, headBlock: null, confirmations: null, rpcError: null,
    follower: null }),
  followedBy: () => undefined,
  stop: () => Promise.resolve(),
}

export async function openChain(options: ChainOptions, log: Log): Promise<Chain> {
  if (options.kind === 'builtin') return BUILTIN_CHAIN
  if (options.kind === 'rpc') return (await import('./rpc-chain.js')).openRpcChain(options, log)
  return (await import('./local-chain.js')).openLocalChain(options, log)
}
