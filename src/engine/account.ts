/**
 * Accounts of the ledger: USDC, the exchange allowance, outcome-token balances, and what open
 * orders hold. Each balance remembers its value at the start of the command that first touched
 * it (`stamp`), so the engine can emit one `balance` event per changed balance per command.
 */
import { NO_ROW, type OrderRow } from './order-table.js'
import { availableUsdcMicros } from './rules.js'

/**
 * Lowercase only: '0'-'9' sort before 'a'-'f' as their values do, which does not hold across
 * cases ('F' < 'a' as characters, 15 > 10 as digits).
 */
const HEX_ADDRESS = /^0x[0-9a-f]{40}$/

/**
 * Whether account a's address sorts after b's, by UTF-16 code units as `>` on the strings: by
 * their address keys when both have them (same length, same alphabet, so the same order).
 */
export function isAddressAfter(a: Account, b: Account): boolean {
  if (a.addressKey0 < 0 || b.addressKey0 < 0) return a.address > b.address
  if (a.addressKey0 !== b.addressKey0) return a.addressKey0 > b.addressKey0
  if (a.addressKey1 !== b.addressKey1) return a.addressKey1 > b.addressKey1
  if (a.addressKey2 !== b.addressKey2) return a.addressKey2 > b.addressKey2
  return a.addressKey3 > b.addressKey3
}

/** One account's balance of one outcome token. */
export class ShareBalance {
  balanceMicros = 0
  heldMicros = 0
  /**
   * What the chain took that the ledger did not have (see Account.usdcOwedMicros): owed > 0 only
   * with a balance of 0, and credits pay it back first.
   */
  owedMicros = 0
  /** Command stamp of the last touch, and the values before that command. */
  stamp = 0
  balanceBeforeMicros = 0
  heldBeforeMicros = 0
  /**
   * Whether the account's map holds this balance: a BUY's new balance joins only when the order
   * is accepted (placement.ts), and the flag saves a map lookup per placement to find out.
   */
  joined = false

  constructor(
    readonly account: Account,
    /** Index of the token: market index * 2 + (1 for No). */
    readonly tokenIndex: number,
    readonly tokenId: string,
  ) {}

  /** Adds shares, paying back what is owed first. */
  credit(amountMicros: number): void {
    if (this.owedMicros === 0) {
      this.balanceMicros += amountMicros
      return
    }
    const repaid = Math.min(this.owedMicros, amountMicros)
    this.owedMicros -= repaid
    this.balanceMicros += amountMicros - repaid
  }

  /** Takes shares: what the balance does not cover is owed. */
  debit(amountMicros: number): void {
    const taken = Math.min(this.balanceMicros, amountMicros)
    this.balanceMicros -= taken
    this.owedMicros += amountMicros - taken
  }
}

export class Account {
  usdcMicros = 0
  usdcHeldMicros = 0
  /**
   * USDC the chain took, or a failed trade's reversal took back, beyond what the ledger held (it
   * had already moved on: chain-sync.ts, trade-reversal.ts). The ledger's value is balance - owed;
   * owed > 0 only with a balance of 0, since every credit pays it back first. On the builtin
   * network it is always 0.
   */
  usdcOwedMicros = 0
  usdcAllowanceMicros = 0
  sharesApproved = false
  gasMicros = 0
  /** The next gasless-relay nonce: relayed actions that succeeded so far (relay.ts). */
  relayNonce = 0
  readonly shares = new Map<number, ShareBalance>()
  /** Open orders of this account, oldest first (an intrusive list through the order table's rows). */
  openHead: OrderRow = NO_ROW
  openTail: OrderRow = NO_ROW
  stamp = 0
  usdcBeforeMicros = 0
  /** Where the event log last wrote the address (event-log.ts, LogNamed). */
  logBatch = -1
  logIndex = 0
  usdcHeldBeforeMicros = 0
  /**
   * The address as four numbers, 10 hex digits each, when it is a lowercase hex address ('0x'
   * and 40 digits; -1 otherwise): compared in turn they order addresses as the strings do
   * (isAddressAfter). Balance events are sorted by address every command, and real addresses
   * compared as strings cost a call per comparison, more when they share a long prefix.
   */
  readonly addressKey0: number
  readonly addressKey1: number
  readonly addressKey2: number
  readonly addressKey3: number

  constructor(
    /** Order of first appearance: the account's place in snapshots and summaries. */
    readonly index: number,
    readonly address: string,
  ) {
    const keyed = HEX_ADDRESS.test(address)
    this.addressKey0 = keyed ? parseInt(address.slice(2, 12), 16) : -1
    this.addressKey1 = keyed ? parseInt(address.slice(12, 22), 16) : -1
    this.addressKey2 = keyed ? parseInt(address.slice(22, 32), 16) : -1
    this.addressKey3 = keyed ? parseInt(address.slice(32, 42), 16) : -1
  }

  /** Adds USDC, paying back what is owed first. */
  creditUsdc(amountMicros: number): void {
    if (this.usdcOwedMicros === 0) {
      this.usdcMicros += amountMicros
      return
    }
    const repaid = Math.min(this.usdcOwedMicros, amountMicros)
    this.usdcOwedMicros -= repaid
    this.usdcMicros += amountMicros - repaid
  }

  /** Takes USDC: what the balance does not cover is owed. */
  debitUsdc(amountMicros: number): void {
    const taken = Math.min(this.usdcMicros, amountMicros)
    this.usdcMicros -= taken
    this.usdcOwedMicros += amountMicros - taken
  }

  /** USDC that a new order may hold (the rulebook's rule, which the faces show too). */
  usdcAvailableMicros(): number {
    return availableUsdcMicros(this)
  }

  /** The balance of a token, created empty on first use. */
  sharesOf(tokenIndex: number, tokenId: string): ShareBalance {
    let shares = this.shares.get(tokenIndex)
    if (shares === undefined) {
      shares = new ShareBalance(this, tokenIndex, tokenId)
      this.shares.set(tokenIndex, shares)
      shares.joined = true
    }
    return shares
  }

  /** Shares of a token that a new SELL may hold (zero until the account approves shares). */
  sharesAvailableMicros(shares: ShareBalance | undefined): number {
    if (shares === undefined || !this.sharesApproved) return 0
    return shares.balanceMicros - shares.heldMicros
  }
}
