/** Administration answers: a market change answers the NativeMarket record; the statistics are here. */
import type { Decimal, MarketStatus } from './vocabulary.js'

/** GET /admin/stats. */
export type ExchangeStats = {
  /** The engine's sequence: commands applied and durable. */
  readonly seq: number
  readonly markets: number
  readonly markets_by_status: Readonly<Record<MarketStatus, number>>
  readonly open_orders: number
  /** Every order ever accepted. */
  readonly orders: number
  readonly trades: number
  /** Addresses that placed an order. */
  readonly traders: number
  /** USDC, summed over tokens (a mint or merge trade counts on both). */
  readonly volume: Decimal
  readonly api_keys: number
  readonly uptime_sec: number
}

/** GET /admin/state-hash. */
export type EngineStateHashBody = {
  /** The engine's sequence the hash is of. */
  readonly seq: number
  /** Hex: equal engine states have equal hashes (docs/engine.md). */
  readonly state_hash: string
  readonly invariants_hold: boolean
}
