/**
 * The ledger follows a real chain (issue 35 point 3; docs/testnet.md, "The ledger follows the
 * chain"): every block time the mirror reads the logs of Predex's contracts in the blocks
 * that have `--chain-confirmations` blocks on top of them, turns them into facts (src/chain/chain-facts.ts)
 * and journals them as one `chainSync` command per range. The engine stays pure: what it
 * mirrors is in its journal and replays exactly.
 *
 * The engine keeps the last block it followed (in its snapshot), and a sync not past it is
 * refused, so a mirror that restarts, or journals a range twice, never counts a block twice;
 * ranges with no fact journal nothing and are read again after a restart. A node that stops
 * answering makes the mirror wait and try again at the next poll; nothing is lost meanwhile,
 * since the facts stay on the chain. One step runs at a time.
 */
import type { Chain, ChainFollowerStatus } from '../../chain/chain.js'
import { chainFactsOf, FactSources, type ChainFacts, type SettledTrade } from '../../chain/chain-facts.js'
import { Code } from '../../engine/codes.js'
import type { ChainEntry } from '../../engine/command.js'
import { CHAIN_LOG_BLOCKS_MAX, CHAIN_SYNC_ENTRIES_MAX } from '../../limits.js'
import type { ServiceContext } from '../context.js'
import { firstLineOf } from '../../stdx/error-text.js'

export class ChainMirror {
  private syncedBlock: number
  private unmirroredTransactions = 0
  private error: string | null = null
  private running: Promise<void> | null = null
  private stopped = false
  private readonly timer: NodeJS.Timeout
  private readonly sources: FactSources

  private constructor(private readonly context: ServiceContext, private readonly chain: Chain, chainBlock: number,
    private readonly onSettled: (trades: readonly SettledTrade[]) => Promise<void> | void) {
    this.syncedBlock = chainBlock
    this.sources = new FactSources(chain.clients!.contracts)
    this.timer = setInterval(() => void this.step(), chain.clients!.blockMs)
    this.timer.unref()
  }

  /** Starts following from the last block the engine followed; null for the builtin chain. */
  static async start(context: ServiceContext, chain: Chain,
    onSettled: (trades: readonly SettledTrade[]) => Promise<void> | void = () => undefined,
  ): Promise<ChainMirror | null> {
    if (chain.clients === null) return null
    const status = await context.host.query({ kind: 'status' })
    if (status.kind !== 'status') throw new Error('unexpected answer to status')
    const mirror = new ChainMirror(context, chain, status.chainBlock, onSettled)
    chain.followedBy(() => mirror.status())
    await mirror.step()
    return mirror
  }

  status(): ChainFollowerStatus {
    return { syncedBlock: this.syncedBlock, unmirroredTransactions: this.unmirroredTransactions, error: this.error }
  }

  /** Follows the chain up to its confirmed head now (tests; the timer does it every poll). */
  step(): Promise<void> {
    this.running ??= this.follow().finally(() => { this.running = null })
    return this.running
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await this.running
  }

  private async follow(): Promise<void> {
    const { client } = this.chain.clients!
    try {
      const head = Number(await client.getBlockNumber({ cacheTime: 0 }))
      const confirmed = head - this.chain.clients!.confirmations
      while (!this.stopped && this.syncedBlock < confirmed) {
        const to = Math.min(confirmed, this.syncedBlock + CHAIN_LOG_BLOCKS_MAX)
        await this.followRange(this.syncedBlock + 1, to)
      }
      this.error = null
    } catch (error) {
      this.error = firstLineOf(error)
    }
  }

  /** Reads [from, to], halving it while it holds more facts than one command carries. */
  private async followRange(from: number, to: number): Promise<void> {
    const facts = await this.factsOf(from, to)
    if (facts.entries.length > CHAIN_SYNC_ENTRIES_MAX) {
      if (from === to) {
        throw new Error(`block ${from} holds ${facts.entries.length} facts, over ${CHAIN_SYNC_ENTRIES_MAX}`)
      }
      return this.followRange(from, from + Math.floor((to - from) / 2))
    }
    if (facts.entries.length > 0) await this.journal(to, facts.entries)
    this.unmirroredTransactions += facts.unmirroredTransactions
    this.syncedBlock = to
    // Waited for: the next range is read once these are recorded (no queue of them builds up).
    if (facts.settled.length > 0) await this.onSettled(facts.settled)
  }

  private async factsOf(from: number, to: number): Promise<ChainFacts> {
    const logs = await this.chain.clients!.client.getLogs({ address: this.sources.addresses(),
      fromBlock: BigInt(from), toBlock: BigInt(to) })
    return chainFactsOf(logs, this.sources)
  }

  private async journal(toBlock: number, entries: ChainEntry[]): Promise<void> {
    const { result } = await this.context.host.submit({ kind: 'chainSync', toBlock, entries })
    if (result.ok) return
    if (result.code === Code.CHAIN_SYNC_STALE) return // already journaled (a repeat): the ledger has it
    throw new Error(`chain sync to block ${toBlock} refused: ${result.code} ${JSON.stringify(result.context)}`)
  }
}
