/**
 * What a range of confirmed blocks says about the wallets the ledger follows: the logs of
 * Predex's contracts (the test USDC, the Conditional Tokens, the four exchanges), turned into the
 * engine's `chainSync` entries (src/engine/chain-sync.ts) and the trades settled. Pure: the
 * logs in, the facts out.
 *
 * Per transaction, in the chain's order:
 * - a transaction with an exchange's log is a settlement: the engine moved its funds when it
 *   matched, so its transfers are not facts again; its `TradeSettled` logs are the trades settled;
 * - unless it is a relay message the settling exchange ran (its `Relayed` log): its
 *   `RelayedSplit`, `RelayedMerge` and `RelayedRedeem` are the wallet's split, merge and
 *   redemption, its approve (its USDC `Approval`, with the outcome tokens' `ApprovalForAll`) one
 *   `allowance` fact that sets both, and its transfers (the exchange's own steps) not facts again;
 * - USDC `Transfer`: mint (from 0), burn (to 0) or wallet to wallet;
 * - USDC `Approval` of an exchange: the wallet's allowance (the test USDC keeps one standing
 *   allowance for the four exchanges: src/chain/contracts/TestUSDC.sol);
 * - Conditional Tokens `ApprovalForAll` of the settling exchange: the wallet's outcome tokens
 *   approved or revoked (approvals of any other operator move nothing of the ledger's);
 * - Conditional Tokens `TransferSingle` / `TransferBatch` between two wallets: outcome tokens moved;
 * - a split, merge or redemption sent to the Conditional Tokens (`PositionSplit`,
 *   `PositionsMerge`, `PayoutRedemption` of the test USDC's top-level positions): its mint or
 *   burns and its USDC to or from the Conditional Tokens are one `split`, `merge` or `redeem`
 *   fact per token, checked against each other;
 * - anything else that moves funds through the Conditional Tokens or an exchange outside a
 *   settlement (positions of another collateral or nested collections, transfers to a contract)
 *   is not mirrored: the whole transaction is skipped and counted (`unmirroredTransactions`).
 * `ConditionPreparation` and `ConditionResolution` move no funds and are passed over.
 */
import { decodeEventLog, type Abi, type Address, type Hex, type Log } from 'viem'
import type { ChainEntry } from '../engine/command.js'
import type { ChainDeployment } from './deployment.js'
import { artifactOf } from './artifacts.js'
import { settlerOf } from './exchange-orders.js'

const ZERO = '0x0000000000000000000000000000000000000000'
const UNLIMITED_MICROS = BigInt(Number.MAX_SAFE_INTEGER)

export interface SettledTrade {
  readonly tradeId: Hex
  readonly transactionHash: Hex
  readonly blockNumber: number
}

export interface ChainFacts {
  readonly entries: ChainEntry[]
  readonly settled: SettledTrade[]
  /** Transactions that moved the ledger's funds in a way not mirrored (see above). */
  readonly unmirroredTransactions: number
}

interface Decoded {
  readonly source: 'usdc' | 'ctf' | 'exchange'
  readonly eventName: string
  readonly args: Record<string, unknown>
  readonly log: Log
}

/** The contracts whose logs the ledger reads, lowercase. */
export class FactSources {
  readonly usdc: string
  readonly ctf: string
  /** Every address an exchange is at or is signed for: none is a wallet of the ledger's. */
  readonly exchanges: ReadonlySet<string>
  /** The exchange that settles every trade and runs the relay (src/chain/exchange-orders.ts). */
  readonly settler: string
  /** The spenders whose USDC allowance the engine holds orders against (deployment.ts). */
  readonly usdcSpenders: ReadonlySet<string>

  constructor(contracts: ChainDeployment) {
    this.settler = settlerOf(contracts).toLowerCase()
    this.usdc = contracts.collateral.toLowerCase()
    this.ctf = contracts.conditionalTokens.toLowerCase()
    this.exchanges = new Set([contracts.exchange, contracts.negRiskExchange, contracts.exchangeV2,
      contracts.negRiskExchangeV2, contracts.settler].map((a) => a.toLowerCase()))
    this.usdcSpenders = new Set(contracts.usdcSpenders.map((a) => a.toLowerCase()))
  }

  /** Every address to ask the node's logs of. */
  addresses(): Address[] {
    return [this.usdc, this.ctf, ...this.exchanges] as Address[]
  }
}

function isRelayed(d: Decoded): boolean {
  return d.source === 'exchange' && d.eventName === 'Relayed'
}

/** An entry before it is stamped with its transaction. */
type Fact = Omit<ChainEntry, 'transactionHash' | 'blockNumber'>

export function chainFactsOf(logs: readonly Log[], sources: FactSources): ChainFacts {
  const facts = { entries: [] as ChainEntry[], settled: [] as SettledTrade[], unmirroredTransactions: 0 }
  for (const transaction of byTransaction(logs)) {
    const decoded = transaction.map((log) => decode(log, sources)).filter((d): d is Decoded => d !== null)
    if (decoded.some((d) => d.source === 'exchange') && !decoded.some(isRelayed)) {
      for (const d of decoded) if (d.eventName === 'TradeSettled') facts.settled.push(settledOf(d))
      continue
    }
    const entries = entriesOf(decoded, sources)
    if (entries === null) {
      facts.unmirroredTransactions++
      continue
    }
    const { transactionHash, blockNumber } = transaction[0]!
    for (const entry of entries) {
      facts.entries.push({ ...entry, transactionHash: transactionHash!, blockNumber: Number(blockNumber) })
    }
  }
  return facts
}

/** The facts of a transaction that is not a settlement; null when it is not all mirrored. */
function entriesOf(decoded: readonly Decoded[], sources: FactSources): Fact[] | null {
  if (decoded.some(isRelayed)) return relayEntries(decoded, sources)
  const entries: Fact[] = []
  const mirrored = decoded.some(isCtfOperation) ? addOperationEntries(decoded, sources, entries)
    : decoded.every((d) => addEntries(d, sources, entries))
  return mirrored ? entries : null
}

/** Logs grouped by transaction, in block and log order. */
function byTransaction(logs: readonly Log[]): Log[][] {
  const sorted = [...logs].sort((a, b) => Number(a.blockNumber! - b.blockNumber!) || a.logIndex! - b.logIndex!)
  const groups: Log[][] = []
  for (const log of sorted) {
    const last = groups.at(-1)
    if (last !== undefined && last[0]!.transactionHash === log.transactionHash) last.push(log)
    else groups.push([log])
  }
  return groups
}

function decode(log: Log, sources: FactSources): Decoded | null {
  const address = log.address.toLowerCase()
  const source = address === sources.usdc ? 'usdc' : address === sources.ctf ? 'ctf'
    : sources.exchanges.has(address) ? 'exchange' : null
  if (source === null) return null
  const abi: Abi = artifactOf(source === 'usdc' ? 'TestUSDC' : source === 'ctf' ? 'ConditionalTokens'
    : 'PredexExchange').abi
  try {
    const event = decodeEventLog({ abi, data: log.data, topics: log.topics })
    return { source, eventName: event.eventName ?? '', args: (event.args ?? {}) as Record<string, unknown>, log }
  } catch {
    return null // an event of no interface these contracts declare: nothing of the ledger's
  }
}

/** Adds the entries `d` stands for; false when it moves funds in a way not mirrored. */
function addEntries(d: Decoded, sources: FactSources, entries: Fact[]): boolean {
  if (d.source === 'usdc') return addUsdcEntries(d, sources, entries)
  switch (d.eventName) {
    case 'TransferSingle':
      return addShareEntry(d, sources, entries, d.args.id as bigint, d.args.value as bigint)
    case 'TransferBatch': {
      const ids = d.args.ids as readonly bigint[]
      const values = d.args.values as readonly bigint[]
      return ids.every((id, i) => addShareEntry(d, sources, entries, id, values[i]!))
    }
    case 'ApprovalForAll':
      if (lower(d.args.operator) === sources.settler) {
        entries.push({ kind: 'tokenApproval', from: lower(d.args.owner), to: '', tokenId: '',
          amountMicros: d.args.approved === true ? 1 : 0 })
      }
      return true
    case 'ConditionPreparation':
    case 'ConditionResolution':
    case 'URI':
      return true
    default:
      return false
  }
}

function addUsdcEntries(d: Decoded, sources: FactSources, entries: Fact[]): boolean {
  if (d.eventName === 'Approval') {
    const spender = (d.args.spender as string).toLowerCase()
    if (!sources.usdcSpenders.has(spender)) return true
    const value = d.args.value as bigint
    entries.push({ kind: 'usdcAllowance', from: lower(d.args.owner), to: '', tokenId: '',
      amountMicros: Number(value >= UNLIMITED_MICROS ? UNLIMITED_MICROS : value) })
    return true
  }
  if (d.eventName !== 'Transfer') return true
  const from = lower(d.args.from)
  const to = lower(d.args.to)
  const value = d.args.value as bigint
  if (isContract(from, sources) || isContract(to, sources) || value > UNLIMITED_MICROS) return false
  if (value === 0n || from === to) return true
  entries.push({ kind: 'usdc', from: from === ZERO ? '' : from, to: to === ZERO ? '' : to, tokenId: '',
    amountMicros: Number(value) })
  return true
}

function addShareEntry(d: Decoded, sources: FactSources, entries: Fact[], id: bigint, value: bigint): boolean {
  const from = lower(d.args.from)
  const to = lower(d.args.to)
  if (from === ZERO || to === ZERO || isContract(from, sources) || isContract(to, sources)) return false
  if (value > UNLIMITED_MICROS) return false
  if (value === 0n || from === to) return true
  entries.push({ kind: 'shares', from, to, tokenId: id.toString(), amountMicros: Number(value) })
  return true
}

/**
 * A relay message's entries: what its exchange events say the wallet did, and its approval. The
 * exchange checked the amounts against the tokens it moved, so its events are the facts.
 */
function relayEntries(decoded: readonly Decoded[], sources: FactSources): Fact[] | null {
  const entries: Fact[] = []
  for (const d of decoded) {
    if (d.source === 'usdc' && d.eventName === 'Approval') {
      addEntries(d, sources, entries)
      continue
    }
    if (d.source !== 'exchange') continue
    const kind = d.eventName === 'RelayedSplit' ? 'split' : d.eventName === 'RelayedMerge' ? 'merge'
      : d.eventName === 'RelayedRedeem' ? 'redeem' : null
    const amount = d.args.amount as bigint
    if (kind === null || amount === 0n) continue
    if (amount > UNLIMITED_MICROS) return null
    entries.push({ kind, from: lower(d.args.owner), to: '', tokenId: (d.args.token as bigint).toString(),
      amountMicros: Number(amount) })
  }
  return approveAsOne(decoded, entries)
}

/**
 * A relayed approve sets the USDC allowance and approves the exchange for the outcome tokens (0:
 * revokes both) in one message: one `allowance` fact, which sets both as the builtin network's
 * approve does (one ledger record). Its `ApprovalForAll` is then no fact of its own.
 */
function approveAsOne(decoded: readonly Decoded[], entries: Fact[]): Fact[] {
  const approve = decoded.find((d) => isRelayed(d) && d.args.action === 'approve')
  const allowance = entries.findIndex((e) => e.kind === 'usdcAllowance')
  if (approve === undefined || allowance < 0) return entries
  entries[allowance] = { ...entries[allowance]!, kind: 'allowance' }
  return entries
}

const OPERATIONS = new Set(['PositionSplit', 'PositionsMerge', 'PayoutRedemption'])
const ZERO_WORD = '0x' + '00'.repeat(32)

function isCtfOperation(d: Decoded): boolean {
  return d.source === 'ctf' && OPERATIONS.has(d.eventName)
}

/** One outcome-token amount minted or burnt: a Conditional Tokens transfer from or to nobody. */
interface Movement {
  readonly from: string
  readonly to: string
  readonly id: bigint
  readonly value: bigint
}

/**
 * The entries of a transaction with splits, merges or redemptions; false when it is not all
 * mirrored. Each operation explains the mints or burns logged before it; the USDC each moved to
 * or from the Conditional Tokens must be what the operations say, per holder.
 */
function addOperationEntries(decoded: readonly Decoded[], sources: FactSources, entries: Fact[]): boolean {
  let pending: Movement[] = []
  const usdcSeen = new Map<string, bigint>()
  const usdcSaid = new Map<string, bigint>()
  const add = (map: Map<string, bigint>, holder: string, value: bigint): void => {
    map.set(holder, (map.get(holder) ?? 0n) + value)
  }
  for (const d of decoded) {
    if (isCtfOperation(d)) {
      const holder = lower(d.args.stakeholder ?? d.args.redeemer)
      if (lower(d.args.collateralToken) !== sources.usdc || d.args.parentCollectionId !== ZERO_WORD) return false
      const explained = pending.filter((m) => m.from === holder || m.to === holder)
      pending = pending.filter((m) => !explained.includes(m))
      const usdcIn = operationEntries(d, holder, explained, entries)
      if (usdcIn === null) return false
      add(usdcSaid, holder, usdcIn)
    } else if (d.source === 'ctf' && (d.eventName === 'TransferSingle' || d.eventName === 'TransferBatch') &&
      (lower(d.args.from) === ZERO || lower(d.args.to) === ZERO)) {
      pending.push(...movementsOf(d))
    } else if (d.source === 'usdc' && d.eventName === 'Transfer' &&
      (lower(d.args.from) === sources.ctf) !== (lower(d.args.to) === sources.ctf)) {
      const intoCtf = lower(d.args.to) === sources.ctf
      const value = d.args.value as bigint
      add(usdcSeen, intoCtf ? lower(d.args.from) : lower(d.args.to), intoCtf ? value : -value)
    } else if (!addEntries(d, sources, entries)) {
      return false
    }
  }
  const same = [...new Set([...usdcSeen.keys(), ...usdcSaid.keys()])]
    .every((holder) => (usdcSeen.get(holder) ?? 0n) === (usdcSaid.get(holder) ?? 0n))
  return pending.length === 0 && same
}

/**
 * Adds one operation's entries from the mints or burns it explains; answers the USDC it took
 * into the Conditional Tokens (negative: paid out), or null when it is not one Predex mirrors.
 */
function operationEntries(d: Decoded, holder: string, explained: readonly Movement[],
  entries: Fact[]): bigint | null {
  if (d.eventName === 'PayoutRedemption') {
    if (explained.some((m) => m.from !== holder || m.to !== ZERO || m.value > UNLIMITED_MICROS)) return null
    for (const m of explained) {
      if (m.value === 0n) continue
      entries.push({ kind: 'redeem', from: holder, to: '', tokenId: m.id.toString(), amountMicros: Number(m.value) })
    }
    return -(d.args.payout as bigint)
  }
  const isSplit = d.eventName === 'PositionSplit'
  const amount = d.args.amount as bigint
  const partition = (d.args.partition as readonly bigint[]).map(Number).sort()
  const expected = isSplit ? { from: ZERO, to: holder } : { from: holder, to: ZERO }
  if (partition.join() !== '1,2' || amount > UNLIMITED_MICROS || explained.length !== 2 ||
    explained.some((m) => m.from !== expected.from || m.to !== expected.to || m.value !== amount)) return null
  if (amount > 0n) {
    entries.push({ kind: isSplit ? 'split' : 'merge', from: holder, to: '', tokenId: explained[0]!.id.toString(),
      amountMicros: Number(amount) })
  }
  return isSplit ? amount : -amount
}

function movementsOf(d: Decoded): Movement[] {
  const from = lower(d.args.from)
  const to = lower(d.args.to)
  if (d.eventName === 'TransferSingle') return [{ from, to, id: d.args.id as bigint, value: d.args.value as bigint }]
  const values = d.args.values as readonly bigint[]
  return (d.args.ids as readonly bigint[]).map((id, i) => ({ from, to, id, value: values[i]! }))
}

function settledOf(d: Decoded): SettledTrade {
  return { tradeId: d.args.tradeId as Hex, transactionHash: d.log.transactionHash!,
    blockNumber: Number(d.log.blockNumber) }
}

function isContract(address: string, sources: FactSources): boolean {
  return address === sources.usdc || address === sources.ctf || sources.exchanges.has(address)
}

function lower(address: unknown): string {
  return (address as string).toLowerCase()
}
