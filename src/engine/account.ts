/**
 * Accounts of the ledger: USDC, the exchange allowance, outcome-token balances, and what open
 * orders hold. Each balance remembers its value at the start of the command that first touched
 * it (`stamp`), so the engine can emit one `balance` event per changed balance per command.
 */
import { NO_ROW, type OrderRow } from './order-table.js'
import { availableUsdcMicros } from './rules.js'

/** One account's balance of one outcome token. */
export class ShareBalance {
  balanceMicros = 0
  heldMicros = 0
  /** Command stamp of the last touch, and the values before that command. */
  stamp = 0
  balanceBeforeMicros = 0
  heldBeforeMicros = 0

  constructor(
    readonly account: Account,
    /** Index of the token: market index * 2 + (1 for No). */
    readonly tokenIndex: number,
    readonly tokenId: string,
  ) {}
}

export class Account {
  usdcMicros = 0
  usdcHeldMicros = 0
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

  constructor(
    /** Order of first appearance: the account's place in snapshots and summaries. */
    readonly index: number,
    readonly address: string,
  ) {}

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
    }
    return shares
  }

  /** Shares of a token that a new SELL may hold (zero until the account approves shares). */
  sharesAvailableMicros(shares: ShareBalance | undefined): number {
    if (shares === undefined || !this.sharesApproved) return 0
    return shares.balanceMicros - shares.heldMicros
  }
}
