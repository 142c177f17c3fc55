/** The caller's balance and allowance (GET /balance-allowance, both surfaces; reference section 5.4). */
import type { Address, MicrosText } from './vocabulary.js'

export type BalanceAllowance = {
  /** Micro-units of USDC (COLLATERAL) or shares (CONDITIONAL), as an integer string. */
  readonly balance: MicrosText
  /** The exchange's USDC allowance; for a token, the same amount once all tokens are approved, else "0". */
  readonly allowance: MicrosText
  /** Exchange contract -> allowance: the exchange and the neg-risk exchange. */
  readonly allowances: Readonly<Record<Address, MicrosText>>
}

/** GET /compat/balance-allowance/update: nothing to refresh (the ledger is the chain). */
export type BalanceAllowanceUpdate = null
