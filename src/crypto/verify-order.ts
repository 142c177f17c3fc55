/**
 * Verification of a signed order, V1 or V2, with a verdict that names the check that failed
 * (Polymarket users mostly get "invalid signature" and have to guess; reliability-anchors.md,
 * section 3): a malformed signature before any curve work; then the signer under the domain of
 * the order's version and market; and, only when that fails, the diagnosis: signed for the other
 * exchange (neg-risk or not), for exchange V3 (which this server does not take: Polymarket's
 * `order_version_mismatch`), for another chain, or by someone else (and who).
 */
import { CHAINS } from './contracts.js'
import { depositWalletDigest, parseNestedSignature } from './deposit-wallet.js'
import {
  type AnyOrderStruct,
  type ExchangeVersion,
  ORDER_V2_TYPE,
  orderDigest,
  orderDomainSeparator,
  orderExchangeOf,
  orderStructHash,
  type OrderStructV2,
  versionOf,
} from './eip712.js'
import { toHex } from './hex.js'
import { parseSignature, recoverAddress, recoversTo, type SignatureFault } from './signature.js'
import type { SignerCache } from './signer-cache.js'
import { normalAddress } from './address.js'

export type OrderCheck = SignatureFault | 'signature-type' | 'signature-domain' | 'signature-chain' |
  'signature-signer' | 'signature-version' | 'signature-nested'

export type Verdict =
  | { readonly ok: true; readonly orderId: string
      /** POLY_1271 only: the EOA that signed for the deposit wallet (the order's signer). */
      readonly walletOwner?: string }
  | { readonly ok: false; readonly check: OrderCheck; readonly message: string;
      readonly context: Readonly<Record<string, string | number | boolean>> }

export interface OrderToVerify {
  readonly order: AnyOrderStruct
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

/** Polymarket's error string for an order of a version the server does not take (clob-v2-compat.md 1.3). */
export const ORDER_VERSION_MISMATCH = 'order_version_mismatch'

/**
 * The signature-type rule, checked before the signature (it needs no curve work): an EOA order
 * (type 0) is made by its signer; a proxy or Safe order (1, 2) needs a maker registered for the
 * signer; a deposit-wallet order (3, V2 only) names the wallet as maker and signer (its owner is
 * known only once the signature is recovered: checkWalletOwner).
 */
export function checkSignatureType(
  order: AnyOrderStruct,
  isLinked: (maker: string, signer: string) => boolean,
): Verdict | null {
  const maker = normalAddress(order.maker)
  const signer = normalAddress(order.signer)
  const signatureType = order.signatureType
  if ((signatureType === 0 || signatureType === 3) && maker !== signer) {
    return fail('signature-type', signatureType === 0
      ? 'signature type 0 (EOA) requires maker == signer; a proxy or Safe wallet signs with type 1 or 2'
      : 'signature type 3 (POLY_1271) requires maker == signer == the deposit wallet',
    { signatureType, maker, signer })
  }
  if ((signatureType === 1 || signatureType === 2) && !isLinked(maker, signer)) {
    return fail('signature-type',
      `signature type ${signatureType} requires the maker wallet to be registered for this signer`,
      { signatureType, maker, signer })
  }
  return null
}

/**
 * A deposit-wallet order, once its signature is verified: the EOA that signed must own the
 * wallet. Predex records no deposit wallets (as no proxy or Safe wallets) yet, so `isLinked`
 * decides, and today refuses.
 */
export function checkWalletOwner(wallet: string, owner: string,
  isLinked: (maker: string, signer: string) => boolean): Verdict | null {
  if (isLinked(normalAddress(wallet), owner)) return null
  return fail('signature-type', 'signature type 3 (POLY_1271) requires the deposit wallet to be registered for ' +
    'the EOA that signed; this exchange registers no deposit wallets yet: sign with type 0 from the EOA',
  { signatureType: 3, wallet: normalAddress(wallet), signedBy: owner })
}

/** Verifies the order's signature for `chainId`, its version's domain and the market's exchange. */
export function verifyOrder(task: OrderToVerify, chainId: number, cache: SignerCache | null): Verdict {
  if (task.order.version === 2 && task.order.signatureType === 3) {
    return verifyDepositWalletOrder(task.order, task, chainId)
  }
  const signature = parseSignature(task.signature)
  if (typeof signature === 'string') return fail(signature, FAULT_MESSAGES[signature], {})
  const signer = normalAddress(task.order.signer)
  const digest = orderDigest(task.order, chainId, task.negRisk)
  const verified = cache !== null
    ? cache.verify(signer, digest, signature)
    : recoversTo(digest, signature, signer)
  if (verified) return { ok: true, orderId: toHex(digest) }
  return diagnose(task, chainId, (other) => recoverAddress(other, signature) === signer,
    () => recoverAddress(digest, signature) ?? 'none', signer)
}

/**
 * Type 3: the nested signature's layout, its separator and contents against this server's own
 * computation, then the EOA recovered from the inner signature.
 */
function verifyDepositWalletOrder(order: OrderStructV2, task: OrderToVerify, chainId: number): Verdict {
  const nested = parseNestedSignature(task.signature)
  if (typeof nested === 'string') {
    return fail('signature-nested', `invalid POLY_1271 signature: ${nested}`, {})
  }
  if (nested.contentsType !== ORDER_V2_TYPE) {
    return fail('signature-nested', 'invalid POLY_1271 signature: the contents type is not the V2 Order type', {})
  }
  const structHash = orderStructHash(order)
  if (toHex(nested.contentsHash) !== toHex(structHash)) {
    return fail('signature-nested', 'invalid POLY_1271 signature: its contents hash is not this order\'s struct hash',
      { contentsHash: toHex(nested.contentsHash), structHash: toHex(structHash) })
  }
  const inner = parseSignature(nested.inner)
  if (typeof inner === 'string') return fail(inner, `${FAULT_MESSAGES[inner]} (the inner signature of POLY_1271)`, {})
  const wallet = normalAddress(order.signer)
  const ownerUnder = (separator: Uint8Array, onChain: number): string | null =>
    recoverAddress(depositWalletDigest(separator, structHash, onChain, wallet), inner)
  const expected = orderDomainSeparator(chainId, task.negRisk, 2)
  if (toHex(nested.appDomainSeparator) === toHex(expected)) {
    const owner = ownerUnder(expected, chainId)
    if (owner === null) return fail('signature-signer', 'invalid POLY_1271 signature: nothing recovers from it', {})
    return { ok: true, orderId: toHex(orderDigest(order, chainId, task.negRisk)), walletOwner: owner }
  }
  // Signed for another domain: which one, as for the other types (the owner is unknown, so any
  // domain whose separator the signature carries is the one it was made for).
  const carried = toHex(nested.appDomainSeparator)
  return diagnose(task, chainId, (_digest, version, negRisk, onChain) =>
    toHex(orderDomainSeparator(onChain, negRisk, version)) === carried,
  () => 'none', wallet)
}

/**
 * Why the signature did not verify: which domain, version or chain it was made for, or who
 * made it. `signedUnder` answers whether the signature was made over the order's digest under
 * another (chain, exchange, version).
 */
function diagnose(task: OrderToVerify, chainId: number,
  signedUnder: (digest: Uint8Array, version: ExchangeVersion, negRisk: boolean, onChain: number) => boolean,
  recovered: () => string, signer: string): Verdict {
  const version = versionOf(task.order)
  const under = (v: ExchangeVersion, negRisk: boolean, onChain: number): boolean =>
    signedUnder(orderDigest(task.order, onChain, negRisk, v), v, negRisk, onChain)
  const expected = orderExchangeOf(chainId, task.negRisk, version)
  if (under(version, !task.negRisk, chainId)) {
    const other = orderExchangeOf(chainId, !task.negRisk, version)
    return fail('signature-domain', `invalid signature: signed for exchange ${other}, but this market ` +
      `(neg_risk ${task.negRisk}) needs exchange ${expected}`, { signedFor: other, expected, negRisk: task.negRisk })
  }
  for (const onChain of [chainId, ...Object.keys(CHAINS).map(Number).filter((c) => c !== chainId)]) {
    // A V2 body carries V3's struct too: the wire cannot tell them apart (clob-v2-compat.md 1.5).
    if (version === 2 && under(3, task.negRisk, onChain)) {
      return fail('signature-version', `${ORDER_VERSION_MISMATCH}: the order is signed for exchange V3 ` +
        `(${orderExchangeOf(onChain, false, 3)}); this server takes V1 and V2 orders (GET /version answers 2)`,
      { signedForVersion: 3, version: 2 })
    }
  }
  for (const otherChain of Object.keys(CHAINS).map(Number)) {
    if (otherChain === chainId) continue
    for (const negRisk of [task.negRisk, !task.negRisk]) {
      if (under(version, negRisk, otherChain)) {
        return fail('signature-chain',
          `invalid signature: signed for chain ${otherChain}, this exchange runs on chain ${chainId}`,
          { signedForChain: otherChain, chainId })
      }
    }
  }
  const by = recovered()
  return fail('signature-signer', `invalid signature: it recovers to ${by}, not to the order's signer ${signer}`,
    { recovered: by, signer })
}

function fail(
  check: OrderCheck,
  message: string,
  context: Readonly<Record<string, string | number | boolean>>,
): Verdict {
  return { ok: false, check, message, context }
}
