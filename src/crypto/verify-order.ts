/**
 * Verification of a signed order, with a verdict that names the check that failed (Polymarket
 * users mostly get "invalid signature" and have to guess; reliability-anchors.md, section 3):
 * a malformed signature before any curve work; then the signer under the market's domain; and,
 * only when that fails, the diagnosis: signed for the other exchange (neg-risk or not), signed
 * for another chain, or signed by someone else (and who).
 */
import { CHAINS, contractsOf } from './contracts.js'
import { orderDigest, type OrderStruct } from './eip712.js'
import { toHex } from './hex.js'
import { parseSignature, recoverAddress, type SignatureFault } from './signature.js'
import type { SignerCache } from './signer-cache.js'
import { normalAddress } from './address.js'

export type OrderCheck = SignatureFault | 'signature-type' | 'signature-domain' | 'signature-chain' | 'signature-signer'

export type Verdict =
  | { readonly ok: true; readonly orderId: string }
  | { readonly ok: false; readonly check: OrderCheck; readonly message: string;
      readonly context: Readonly<Record<string, string | number | boolean>> }

export interface OrderToVerify {
  readonly order: OrderStruct
  readonly signature: string
  /** The market's flag: it chooses the exchange the order must be signed for. */
  readonly negRisk: boolean
}

const FAULT_MESSAGES: Readonly<Record<SignatureFault, string>> = {
  'signature-length': 'invalid signature: expected 0x followed by 65 bytes (130 hex digits)',
  'signature-zero': 'invalid signature: r or s is zero',
  'signature-range': 'invalid signature: r or s is not below the curve order',
  'signature-high-s': 'invalid signature: s is in the upper half of the curve order (not canonical, EIP-2)',
  'signature-v': 'invalid signature: v must be 27 or 28 (or 0 or 1)',
}

/**
 * The signature-type rule, checked before the signature (it needs no curve work): an EOA order
 * (type 0) is made by its signer; a proxy or Safe order (1, 2) needs a maker registered for the
 * signer.
 */
export function checkSignatureType(
  order: OrderStruct,
  isLinked: (maker: string, signer: string) => boolean,
): Verdict | null {
  const maker = normalAddress(order.maker)
  const signer = normalAddress(order.signer)
  if (order.signatureType === 0 && maker !== signer) {
    return fail('signature-type',
      'signature type 0 (EOA) requires maker == signer; a proxy or Safe wallet signs with type 1 or 2',
      { signatureType: 0, maker, signer })
  }
  if (order.signatureType !== 0 && !isLinked(maker, signer)) {
    return fail('signature-type',
      `signature type ${order.signatureType} requires the maker wallet to be registered for this signer`,
      { signatureType: order.signatureType, maker, signer })
  }
  return null
}

/** Verifies the order's signature for `chainId` and the market's domain. */
export function verifyOrder(task: OrderToVerify, chainId: number, cache: SignerCache | null): Verdict {
  const signature = parseSignature(task.signature)
  if (typeof signature === 'string') return fail(signature, FAULT_MESSAGES[signature], {})
  const signer = normalAddress(task.order.signer)
  const digest = orderDigest(task.order, chainId, task.negRisk)
  const verified = cache !== null
    ? cache.verify(signer, digest, signature)
    : recoverAddress(digest, signature) === signer
  if (verified) return { ok: true, orderId: toHex(digest) }
  return diagnose(task, chainId, signer, digest)
}

/** Why the signature did not verify: which domain or chain it was made for, or who made it. */
function diagnose(task: OrderToVerify, chainId: number, signer: string, digest: Uint8Array): Verdict {
  const signature = parseSignature(task.signature) as Exclude<ReturnType<typeof parseSignature>, SignatureFault>
  const contracts = contractsOf(chainId)
  const expected = task.negRisk ? contracts.negRiskExchange : contracts.exchange
  const other = task.negRisk ? contracts.exchange : contracts.negRiskExchange
  if (recoverAddress(orderDigest(task.order, chainId, !task.negRisk), signature) === signer) {
    return fail('signature-domain', `invalid signature: signed for exchange ${other}, but this market ` +
      `(neg_risk ${task.negRisk}) needs exchange ${expected}`, { signedFor: other, expected, negRisk: task.negRisk })
  }
  for (const otherChain of Object.keys(CHAINS).map(Number)) {
    if (otherChain === chainId) continue
    for (const negRisk of [task.negRisk, !task.negRisk]) {
      if (recoverAddress(orderDigest(task.order, otherChain, negRisk), signature) === signer) {
        return fail('signature-chain',
          `invalid signature: signed for chain ${otherChain}, this exchange runs on chain ${chainId}`,
          { signedForChain: otherChain, chainId })
      }
    }
  }
  const recovered = recoverAddress(digest, signature) ?? 'none'
  return fail('signature-signer', `invalid signature: it recovers to ${recovered}, not to the order's signer ${signer}`,
    { recovered, signer })
}

function fail(
  check: OrderCheck,
  message: string,
  context: Readonly<Record<string, string | number | boolean>>,
): Verdict {
  return { ok: false, check, message, context }
}
