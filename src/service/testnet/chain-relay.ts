/**
 * The gasless relay on a real chain (docs/testnet.md, "Gasless relay"): the wallet's signed
 * `Relay` message, checked here as on the builtin network (signature, deadline, nonce, market),
 * is sent to the settling exchange, which checks it again and runs it for the wallet; the
 * operator's key pays the gas. The ledger learns of its effect from the chain, as of any other
 * fact (chain-mirror.ts), and the answer waits, a bounded time, until it has.
 *
 * Before anything is sent, the ledger's own rules (src/engine/rules.ts) refuse what the builtin
 * relay would, with the same codes: a split of USDC that open orders hold, a merge of held
 * tokens, a redemption of an unresolved market or of nothing, an approval below what buy orders
 * hold (or, at 0, below what sells hold). Merge and redeem also need the wallet's approval of the
 * settling exchange for its outcome tokens (TOKENS_NOT_APPROVED), which the relay's approve gives,
 * as the wallet's own `setApprovalForAll` does. Then the exchange's simulation refuses the rest,
 * with its error (CHAIN_REVERTED).
 */
import type { RelayCallResult } from '../../chain/relay-call.js'
import type { ChainClients } from '../../chain/node-chain.js'
import { settlerOf } from '../../chain/exchange-orders.js'
import { Code, CODE_MESSAGES } from '../../engine/codes.js'
import type { RelayAction } from '../../engine/command.js'
import { checkApprovalHolds, checkFreeFunds, checkRedeemable } from '../../engine/rules.js'
import type { AccountSummary } from '../../engine/summary.js'
import type { Rejection } from '../../engine/result.js'
import { ApiCode, PredexError } from '../../errors.js'
import { CHAIN_LEDGER_POLL_MS, CHAIN_LEDGER_WAIT_MS } from '../../limits.js'
import { accountOf } from '../account/account.js'
import { onChain } from './chain-call.js'
import type { ServiceContext } from '../context.js'
import type { RelayOutcome, RelayRequest } from './testnet.js'


/** The owner's next relay nonce, as the settling exchange counts it. */
export function relayNonceOnChainOf(clients: ChainClients, owner: string): Promise<number> {
  return onChain(async () => (await import('../../chain/relay-call.js')).relayNonceOnChain(clients, owner))
}

export async function relayOnChain(context: ServiceContext, clients: ChainClients, request: RelayRequest,
  action: RelayAction): Promise<RelayOutcome> {
  const account = await accountOf(context, request.struct.owner)
  const refusal = ledgerRefusal(context, account, action)
  if (refusal !== null) throw new PredexError(refusal.code, refusal.message, refusal.context)
  checkTokensApproved(clients, account, action)
  const sent = await onChain(async () =>
    (await import('../../chain/relay-call.js')).sendRelay(clients, request.struct, request.signature))
  if (!sent.ok) throw revertError(sent)
  const confirmed = await ledgerFollowed(context, sent.blockNumber)
  return { transactionHash: sent.transactionHash, blockNumber: sent.blockNumber, confirmed }
}

/** What the builtin relay's engine would refuse, by the same rules. */
function ledgerRefusal(context: ServiceContext, account: AccountSummary | null, action: RelayAction): Rejection | null {
  const sharesOf = (tokenId: string) => account?.shares.find((s) => s.tokenId === tokenId)
  switch (action.kind) {
    case 'approve': // on chain too it covers the USDC and the outcome tokens (PredexExchange.sol, `relay`)
      return account === null ? null : checkApprovalHolds(account, action.usdcAllowanceMicros, account.shares)
    case 'split':
      return checkFreeFunds('USDC', action.amountMicros,
        account === null ? 0 : account.usdcMicros - account.usdcHeldMicros)
    case 'merge': {
      const market = context.read.markets.get(action.marketId)!
      for (const tokenId of [market.yesTokenId, market.noTokenId]) {
        const shares = sharesOf(tokenId)
        const short = checkFreeFunds(tokenId, action.amountMicros,
          shares === undefined ? 0 : shares.balanceMicros - shares.heldMicros)
        if (short !== null) return short
      }
      return null
    }
    case 'redeem': {
      const market = context.read.markets.get(action.marketId)!
      const held = (sharesOf(market.yesTokenId)?.balanceMicros ?? 0) + (sharesOf(market.noTokenId)?.balanceMicros ?? 0)
      return checkRedeemable(market.marketId, market.status, held)
    }
  }
}

function checkTokensApproved(clients: ChainClients, account: AccountSummary | null, action: RelayAction): void {
  if (action.kind !== 'merge' && action.kind !== 'redeem') return
  if (account?.sharesApproved === true) return
  throw new PredexError(ApiCode.TOKENS_NOT_APPROVED,
    'merge and redeem move the wallet\'s outcome tokens under its approval of the settling exchange: '
      + 'relay an approve (POST /relay, action approve) or send setApprovalForAll(operator, true) to the '
      + 'Conditional Tokens from the wallet',
    { owner: action.address, operator: settlerOf(clients.contracts).toLowerCase(),
      conditionalTokens: clients.contracts.conditionalTokens.toLowerCase() })
}

/** The exchange's refusal: its nonce and deadline as the builtin relay's codes, the rest as they are. */
function revertError(refused: Extract<RelayCallResult, { ok: false }>): PredexError {
  const [first, second] = refused.args.map(Number)
  if (refused.errorName === 'RelayNonceMismatch') {
    return new PredexError(Code.RELAY_NONCE_MISMATCH, CODE_MESSAGES.RELAY_NONCE_MISMATCH,
      { expected: first, nonce: second })
  }
  if (refused.errorName === 'RelayDeadlinePassed') {
    return new PredexError(Code.RELAY_DEADLINE_PASSED, CODE_MESSAGES.RELAY_DEADLINE_PASSED,
      { deadlineSec: first, nowSec: second })
  }
  return new PredexError(ApiCode.CHAIN_REVERTED, `the exchange refused the relay message: ${refused.reason}`,
    { contract: 'exchange', errorName: refused.errorName, reason: refused.reason })
}

/** Waits until the ledger has followed the chain past `blockNumber`, at most CHAIN_LEDGER_WAIT_MS; false if not. */
async function ledgerFollowed(context: ServiceContext, blockNumber: number): Promise<boolean> {
  const deadline = context.nowMs() + CHAIN_LEDGER_WAIT_MS
  const followed = (): boolean => (context.chain.status().follower?.syncedBlock ?? 0) >= blockNumber
  while (!followed() && context.nowMs() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, CHAIN_LEDGER_POLL_MS))
  }
  return followed()
}
