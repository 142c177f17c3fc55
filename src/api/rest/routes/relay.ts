/**
 * The gasless relay of the test network (api.md, "Formats decided here"): a wallet signs an
 * EIP-712 `Relay` message (domain "Predex Relay") for approve, split, merge or redeem, and anyone
 * may submit it; the exchange runs it for the signer. Checks, in order, each with its own code:
 * shape (INVALID_PARAMETER naming the field), signature (INVALID_SIGNATURE naming the check: a
 * malformed signature, or a signer other than `owner`), deadline (RELAY_DEADLINE_PASSED), nonce
 * (RELAY_NONCE_MISMATCH with the expected one), market (MARKET_NOT_FOUND), then the engine, which
 * checks deadline and nonce again atomically with the action, so a message runs at most once.
 */
import { transactionOf } from '../../../chain/transaction.js'
import { relayDigest, type RelayStruct } from '../../../crypto/eip712.js'
import { isHexOfLength } from '../../../crypto/hex.js'
import { parseSignature, recoverAddress } from '../../../crypto/signature.js'
import { Code } from '../../../engine/codes.js'
import type { RelayAction } from '../../../engine/command.js'
import { REST_SMALL_BODY_BYTES_MAX } from '../../../limits.js'
import type { ServiceContext } from '../../../service/context.js'
import { ApiCode, PredexError } from '../../../errors.js'
import { addressOf, integerOf, parseJsonBody, requireObject } from '../../wire.js'
import type { Route } from '../route.js'
import { accountOf, rejectionError, submitCommand } from './common.js'

const ACTIONS = ['approve', 'split', 'merge', 'redeem'] as const
type ActionName = (typeof ACTIONS)[number]
const ZERO_CONDITION = '0x' + '0'.repeat(64)
const UINT256_MAX = (1n << 256n) - 1n

interface RelayRequest {
  readonly struct: RelayStruct
  readonly action: ActionName
  readonly amount: bigint
  readonly nonce: number
  readonly deadlineSec: number
  readonly signature: string
}

function invalid(field: string, message: string): PredexError {
  return new PredexError(ApiCode.INVALID_PARAMETER, message, { field })
}

/** A uint256 as the message carries it: a decimal string (or a safe integer). */
function uint256Of(value: unknown, field: string): bigint {
  const text = typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : value
  if (typeof text !== 'string' || !/^\d{1,78}$/.test(text) || BigInt(text) > UINT256_MAX) {
    throw invalid(field, `${field} must be a uint256 as a decimal string`)
  }
  return BigInt(text)
}

function parseRelay(body: Record<string, unknown>): RelayRequest {
  const owner = addressOf(body.owner, 'owner')
  const action = body.action
  if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action)) {
    throw invalid('action', `action must be one of ${ACTIONS.join(', ')}`)
  }
  const conditionId = body.condition_id
  if (typeof conditionId !== 'string' || !isHexOfLength(conditionId, 32)) throw invalid('condition_id', 'condition_id must be 0x and 64 hex digits')
  if (action === 'approve' && conditionId !== ZERO_CONDITION) throw invalid('condition_id', 'condition_id must be zero for approve')
  const amount = uint256Of(body.amount, 'amount')
  const nonce = integerOf(uint256Of(body.nonce, 'nonce').toString(), 'nonce')
  const deadlineSec = integerOf(uint256Of(body.deadline, 'deadline').toString(), 'deadline')
  if (typeof body.signature !== 'string') throw invalid('signature', 'signature must be 0x and 130 hex digits')
  const struct: RelayStruct = { owner, action, conditionId: conditionId.toLowerCase(), amount: amount.toString(), nonce: String(nonce),
    deadline: String(deadlineSec) }
  return { struct, action: action as ActionName, amount, nonce, deadlineSec, signature: body.signature }
}

/** The signer must be `owner`; the error names the failed check and, for another signer, who signed. */
function checkSignature(relay: RelayRequest, chainId: number): void {
  const parsed = parseSignature(relay.signature)
  if (typeof parsed === 'string') throw new PredexError(ApiCode.INVALID_SIGNATURE, `invalid relay signature: ${parsed}`, { check: parsed })
  const signer = recoverAddress(relayDigest(relay.struct, chainId), parsed)
  if (signer !== relay.struct.owner) {
    throw new PredexError(ApiCode.INVALID_SIGNATURE, 'invalid relay signature: not signed by owner (other message, domain or chain, or another wallet)',
      { check: 'signature-signer', owner: relay.struct.owner, signer })
  }
}

/** The engine's action; amounts must fit its safe integers (an approval above them means "unlimited"). */
function actionOf(relay: RelayRequest, context: ServiceContext): RelayAction {
  const address = relay.struct.owner
  if (relay.action === 'approve') {
    const usdcAllowanceMicros = relay.amount > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(relay.amount)
    return { kind: 'approve', address, usdcAllowanceMicros }
  }
  const market = context.read.marketsByConditionId.get(relay.struct.conditionId)
  if (market === undefined) throw new PredexError(Code.MARKET_NOT_FOUND, 'no market has this condition id', { conditionId: relay.struct.conditionId })
  if (relay.action === 'redeem') return { kind: 'redeem', address, marketId: market.marketId }
  if (relay.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid('amount', 'amount is too large')
  return { kind: relay.action, address, marketId: market.marketId, amountMicros: Number(relay.amount) }
}

async function relay(context: ServiceContext, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const request = parseRelay(body)
  checkSignature(request, context.chainId)
  // The engine's rule: past the deadline once the time is beyond its first millisecond.
  const nowMs = context.nowMs()
  if (nowMs > request.deadlineSec * 1000) {
    throw new PredexError(Code.RELAY_DEADLINE_PASSED, 'the relay message is past its deadline',
      { deadlineSec: request.deadlineSec, nowSec: Math.floor(nowMs / 1000) })
  }
  const expected = (await accountOf(context, request.struct.owner))?.relayNonce ?? 0
  if (request.nonce !== expected) {
    throw new PredexError(Code.RELAY_NONCE_MISMATCH, `wrong relay nonce: the next one of this owner is ${expected}`, { expected, nonce: request.nonce })
  }
  const action = actionOf(request, context)
  const { result, seq } = await submitCommand(context, { kind: 'relay', nonce: request.nonce, deadlineSec: request.deadlineSec, action })
  if (!result.ok) throw rejectionError(result as never)
  const { transactionHash, blockNumber } = transactionOf(context.chainId, seq)
  return { transaction_hash: transactionHash, block_number: blockNumber, status: 'CONFIRMED' }
}

export const relayRoutes: Route<ServiceContext>[] = [
  { method: 'GET', path: '/relay/nonce', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'faucet', summary: 'The next relay nonce of an address (0 for a new one)', query: { address: 'required: 0x address' },
      response: '{address, nonce}' },
    handler: async (request, _identity, context) => {
      const address = addressOf(request.query.get('address'), 'address')
      return { body: { address, nonce: (await accountOf(context, address))?.relayNonce ?? 0 } }
    } },
  { method: 'POST', path: '/relay', auth: 'none', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'testnet', surface: 'native',
    openapi: { tag: 'faucet', summary: "Runs a wallet-signed approve, split, merge or redeem for the signer, without gas",
      body: '{owner, action: approve|split|merge|redeem, condition_id, amount, nonce, deadline, signature} (EIP-712 Relay, domain "Predex Relay")',
      response: '{transaction_hash, block_number, status: "CONFIRMED"}' },
    handler: async (request, _identity, context) => ({ body: await relay(context, requireObject(parseJsonBody(request.body), 'body')) }) },
]
