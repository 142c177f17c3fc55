/**
 * L1 authentication (reference section 2.1): the wallet signs the EIP-712 `ClobAuth` message
 * over its address, the timestamp and a nonce; the server rebuilds it from the headers for its
 * own chain and recovers the signer. Used to create and derive API credentials.
 */
import { normalAddress, isAddress } from '../crypto/address.js'
import { CLOB_AUTH_MESSAGE, clobAuthDigest } from '../crypto/eip712.js'
import { parseSignature, recoverAddress } from '../crypto/signature.js'
import { AuthCode } from '../errors.js'
import { authFailure, checkTimestamp, type AuthFailure, type TimestampWindow } from './failure.js'
import { l1HeadersOf, type HeaderGetter } from './headers.js'

export interface L1Identity {
  readonly ok: true
  /** Lower-case. */
  readonly address: string
  readonly nonce: number
}

export function verifyL1(get: HeaderGetter, chainId: number, nowSec: number, window: TimestampWindow):
  L1Identity | AuthFailure {
  const headers = l1HeadersOf(get)
  if (Array.isArray(headers)) {
    return authFailure(AuthCode.AUTH_HEADERS_MISSING, `missing L1 headers: ${headers.join(', ')}`)
  }
  if (!isAddress(headers.address)) return authFailure(AuthCode.AUTH_ADDRESS, 'the address header is not an address')
  if (!/^[0-9]{1,15}$/.test(headers.nonce)) {
    return authFailure(AuthCode.AUTH_HEADERS_MISSING, 'the nonce must be a decimal integer')
  }
  const stale = checkTimestamp(headers.timestamp, nowSec, window)
  if (stale !== null) return stale
  const signature = parseSignature(headers.signature)
  if (typeof signature === 'string') {
    return authFailure(AuthCode.AUTH_L1_SIGNATURE, `Invalid L1 Request headers: ${signature}`)
  }
  const { address: claimed, timestamp, nonce } = headers
  const digest = clobAuthDigest({ address: claimed, timestamp, nonce, message: CLOB_AUTH_MESSAGE }, chainId)
  const recovered = recoverAddress(digest, signature)
  const address = normalAddress(headers.address)
  if (recovered !== address) {
    return authFailure(AuthCode.AUTH_L1_SIGNATURE,
      `Invalid L1 Request headers: the ClobAuth signature (chain ${chainId}) ` +
      `recovers to ${recovered ?? 'nothing'}, not ${address}`,
      { chainId, recovered: recovered ?? '' })
  }
  return { ok: true, address, nonce: Number(headers.nonce) }
}
