/**
 * The gasless relay of the test network (api.md, "Formats decided here"): a wallet signs an
 * EIP-712 `Relay` message (domain "Predex Relay") for approve, split, merge or redeem, and anyone
 * may submit it; the exchange runs it for the signer (src/service/testnet/testnet.ts). This module parses
 * the message (INVALID_PARAMETER naming the field) and shapes the answer. Served under /compat
 * too, the same routes: the test network has no RPC for an approve transaction, so a Polymarket
 * bot approves the exchange here, on the base URL its client already uses (examples/).
 */
import type { RelayStruct } from '../../../crypto/eip712.js'
import { isHexOfLength } from '../../../crypto/hex.js'
import { isRelayActionKind, RELAY_ACTION_KINDS } from '../../../engine/rules.js'
import { REST_SMALL_BODY_BYTES_MAX } from '../../../limits.js'
import { relay, relayNonceOf, type RelayRequest } from '../../../service/testnet/testnet.js'
import { ApiCode, PredexError } from '../../../errors.js'
import type { RelayMessage, Unparsed } from '../../shapes/requests.js'
import type { RelayNonce, RelayReceipt } from '../../shapes/testnet.js'
import { addressOf, integerOf, parseJsonBody, requireObject, uint256Of } from '../../wire.js'
import type { TypedRoute } from '../typed-route.js'

const ZERO_CONDITION = '0x' + '0'.repeat(64)

function invalid(field: string, message: string): PredexError {
  return new PredexError(ApiCode.INVALID_PARAMETER, message, { field })
}

/** A uint256 as the message carries it: a decimal string (or a safe integer). */
function uint256(value: unknown, field: string): bigint {
  const parsed = uint256Of(value)
  if (parsed === null) throw invalid(field, `${field} must be a uint256 as a decimal string`)
  return parsed
}

function parseRelay(body: Unparsed<RelayMessage>): RelayRequest {
  const owner = addressOf(body.owner, 'owner')
  const action = body.action
  if (!isRelayActionKind(action)) throw invalid('action', `action must be one of ${RELAY_ACTION_KINDS.join(', ')}`)
  const conditionId = body.condition_id
  if (typeof conditionId !== 'string' || !isHexOfLength(conditionId, 32)) {
    throw invalid('condition_id', 'condition_id must be 0x and 64 hex digits')
  }
  if (action === 'approve' && conditionId !== ZERO_CONDITION) {
    throw invalid('condition_id', 'condition_id must be zero for approve')
  }
  const amount = uint256(body.amount, 'amount')
  const nonce = integerOf(uint256(body.nonce, 'nonce').toString(), 'nonce')
  const deadlineSec = integerOf(uint256(body.deadline, 'deadline').toString(), 'deadline')
  if (typeof body.signature !== 'string') throw invalid('signature', 'signature must be 0x and 130 hex digits')
  const struct: RelayStruct = { owner, action, conditionId: conditionId.toLowerCase(), amount: amount.toString(),
    nonce: String(nonce), deadline: String(deadlineSec) }
  return { struct, action, amount, nonce, deadlineSec, signature: body.signature }
}

export const relayRoutes: TypedRoute[] = [
  { method: 'GET', path: '/relay/nonce', auth: 'none', bodyMax: 0, surface: 'both',
    openapi: { tag: 'faucet', summary: 'The next relay nonce of an address (0 for a new one)',
      query: { address: 'required: 0x address' },
      response: '{address, nonce}' },
    handler: async (request, _identity, context) => {
      const address = addressOf(request.query.get('address'), 'address')
      const body: RelayNonce = { address, nonce: await relayNonceOf(context, address) }
      return { body }
    } },
  { method: 'POST', path: '/relay', auth: 'none', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'testnet',
    surface: 'both',
    openapi: { tag: 'faucet',
      summary: 'Runs a wallet-signed approve, split, merge or redeem for the signer, without gas',
      body: '{owner, action: approve|split|merge|redeem, condition_id, amount, nonce, deadline, signature} '
        + '(EIP-712 Relay, domain "Predex Relay")',
      response: '{transaction_hash, block_number, status: "CONFIRMED" (on a real chain "MINED" while the ledger has '
        + 'not followed it yet)}' },
    handler: async (request, _identity, context) => {
      const message = parseRelay(requireObject(parseJsonBody(request.body), 'body'))
      const { transactionHash, blockNumber, confirmed } = await relay(context, message)
      const body: RelayReceipt = { transaction_hash: transactionHash, block_number: blockNumber,
        status: confirmed ? 'CONFIRMED' : 'MINED' }
      return { body }
    } },
]
