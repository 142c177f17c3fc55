/**
 * A wallet from a private key: its address, and EIP-712 signatures of orders, ClobAuth (L1)
 * and Relay messages, exactly as ethers or viem would make them (the cross-check test compares).
 * Signing is local: no network call; the key never leaves the process.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { addressOfPublicKey, checksumAddress } from './address.js'
import { type AnyOrderStruct, CLOB_AUTH_MESSAGE, clobAuthDigest, orderDigest, relayDigest, type RelayStruct }
  from './eip712.js'
import { fromHex, toHex } from './hex.js'
import { signDigest } from './signature.js'

export class Wallet {
  /** EIP-55 checksummed, as wallets show it. */
  readonly address: string
  private readonly privateKey: Uint8Array

  constructor(privateKeyHex: string) {
    const key = fromHex(privateKeyHex)
    if (key.length !== 32 || !secp256k1.utils.isValidSecretKey(key)) throw new RangeError('not a secp256k1 private key')
    this.privateKey = key
    this.address = checksumAddress(addressOfPublicKey(secp256k1.getPublicKey(key, false)))
  }

  /** A new wallet with a random key. */
  static random(): Wallet {
    return new Wallet(toHex(secp256k1.utils.randomSecretKey()))
  }

  /**
   * Signs an order (V1 or V2) for `chainId`, under its version's exchange, the neg-risk one when
   * the market is neg_risk.
   */
  signOrder(order: AnyOrderStruct, chainId: number, negRisk: boolean): { orderId: string; signature: string } {
    const digest = orderDigest(order, chainId, negRisk)
    return { orderId: toHex(digest), signature: signDigest(digest, this.privateKey) }
  }

  /** The L1 (ClobAuth) signature over this address, a timestamp (unix seconds) and a nonce. */
  signClobAuth(timestampSec: number, nonce: number, chainId: number): string {
    const digest = clobAuthDigest({ address: this.address, timestamp: String(timestampSec), nonce: String(nonce),
      message: CLOB_AUTH_MESSAGE }, chainId)
    return signDigest(digest, this.privateKey)
  }

  signRelay(relay: RelayStruct, chainId: number): string {
    return signDigest(relayDigest(relay, chainId), this.privateKey)
  }
}
