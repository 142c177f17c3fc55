/**
 * POLY_1271 (signature type 3, clob-v2-compat.md 3.4): an order of a deposit wallet (a smart
 * contract wallet), signed by the wallet's owner EOA with an ERC-7739 nested signature:
 *
 *   innerSig (65) ‖ appDomainSeparator (32) ‖ contentsHash (32) ‖ contentsType ‖ uint16 length
 *
 * where innerSig is the EOA's EIP-712 signature, under the exchange's domain, of
 * `TypedDataSign{contents: the order, name: "DepositWallet", version: "1", chainId,
 * verifyingContract: the wallet, salt: 0}`. On chain the wallet's isValidSignature checks this;
 * without chain access the server checks the layout, that the separator and the contents are its
 * own computation for this order, and recovers the EOA. Whether the EOA owns the wallet is the
 * caller's question (a registration, as for proxy and Safe wallets).
 */
import { ORDER_V2_TYPE, typedDataDigest } from './eip712.js'
import { concatBytes, fromHex, toHex, wordOfAddress, wordOfBigInt, WORD_BYTES } from './hex.js'
import { keccak256, keccakOfText } from './keccak.js'

export const TYPED_DATA_SIGN_TYPE =
  'TypedDataSign(Order contents,string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)' +
  ORDER_V2_TYPE
const TYPED_DATA_SIGN_TYPE_HASH = keccakOfText(TYPED_DATA_SIGN_TYPE)
const WALLET_NAME_HASH = keccakOfText('DepositWallet')
const WALLET_VERSION_HASH = keccakOfText('1')
const INNER_SIGNATURE_BYTES = 65
const LENGTH_BYTES = 2
/** The contents type is the V2 Order type string: the only layout a V2 order can carry. */
export const NESTED_SIGNATURE_BYTES = INNER_SIGNATURE_BYTES + 2 * WORD_BYTES + ORDER_V2_TYPE.length + LENGTH_BYTES

export interface NestedSignature {
  /** 0x + 65 bytes: the EOA's signature of the TypedDataSign digest. */
  readonly inner: string
  readonly appDomainSeparator: Uint8Array
  readonly contentsHash: Uint8Array
  readonly contentsType: string
}

/** The parts of a nested signature, or why its layout is wrong. */
export function parseNestedSignature(hex: string): NestedSignature | string {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(hex)) return 'not 0x followed by whole bytes of hex'
  const bytes = fromHex(hex)
  if (bytes.length !== NESTED_SIGNATURE_BYTES) {
    const layout = `65 + 32 + 32 + the ${ORDER_V2_TYPE.length}-byte Order type + 2`
    return `expected ${NESTED_SIGNATURE_BYTES} bytes (${layout}), got ${bytes.length}`
  }
  const typeLength = (bytes[bytes.length - 2]! << 8) | bytes[bytes.length - 1]!
  if (typeLength !== ORDER_V2_TYPE.length) {
    return `the contents type length says ${typeLength}, not ${ORDER_V2_TYPE.length}`
  }
  let at = 0
  const take = (length: number): Uint8Array => bytes.subarray(at, (at += length))
  const inner = toHex(take(INNER_SIGNATURE_BYTES))
  const appDomainSeparator = take(WORD_BYTES)
  const contentsHash = take(WORD_BYTES)
  const contentsType = new TextDecoder().decode(take(typeLength))
  return { inner, appDomainSeparator, contentsHash, contentsType }
}

/** What the wallet's owner signs: the TypedDataSign digest under the exchange's domain. */
export function depositWalletDigest(appDomainSeparator: Uint8Array, contentsHash: Uint8Array, chainId: number,
  wallet: string): Uint8Array {
  const structHash = keccak256(concatBytes([TYPED_DATA_SIGN_TYPE_HASH, contentsHash, WALLET_NAME_HASH,
    WALLET_VERSION_HASH, wordOfBigInt(BigInt(chainId)), wordOfAddress(wallet), new Uint8Array(WORD_BYTES)]))
  return typedDataDigest(appDomainSeparator, structHash)
}

/** A nested signature (the SDK and tests): the inner signature wrapped with its context. */
export function nestSignature(inner: string, appDomainSeparator: Uint8Array, contentsHash: Uint8Array): string {
  const type = new TextEncoder().encode(ORDER_V2_TYPE)
  const length = new Uint8Array([type.length >> 8, type.length & 0xff])
  return toHex(concatBytes([fromHex(inner), appDomainSeparator, contentsHash, type, length]))
}
