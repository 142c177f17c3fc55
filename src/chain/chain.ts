/**
 * The chain behind the test network, chosen at start with `--chain` (docs/testnet.md, "Chains"):
 * - `builtin` (the default): the engine's ledger is the chain; nothing else runs.
 * - `local`: anvil from npm, started on a loopback port with the configured chain id, its state
 *   under `<data-dir>/chain/`, Predex's contracts at the addresses the clients know
 *   (contract-placement.ts); stopped with the exchange.
 *
 * A real chain's code (viem, anvil) is loaded only when one is asked for (local-chain.ts).
 */
import type { ChainChoice } from '../config.js'
import type { Log } from '../log.js'

export type ChainKind = ChainChoice

export interface ChainStatus {
  readonly kind: ChainKind
  /** For a real chain: its JSON-RPC URL, id, the last head block seen, and the last poll's failure. */
  readonly rpcUrl: string | null
  readonly chainId: number | null
  readonly headBlock: number | null
  readonly rpcError: string | null
}

export interface ChainOptions {
  readonly kind: ChainKind
  readonly chainId: number
  readonly dataDir: string
  readonly blockMs: number
}

export interface Chain {
  readonly kind: ChainKind
  status(): ChainStatus
  stop(): Promise<void>
}

export const BUILTIN_CHAIN: Chain = {
  kind: 'builtin',
  status: () => ({ kind: 'builtin', rpcUrl: null, chainId: null, headBlock: null, rpcError: null }),
  stop: () => Promise.resolve(),
}

export async function openChain(options: ChainOptions, log: Log): Promise<Chain> {
  if (options.kind === 'builtin') return BUILTIN_CHAIN
  const { openLocalChain } = await import('./local-chain.js')
  return openLocalChain(options, log)
}
