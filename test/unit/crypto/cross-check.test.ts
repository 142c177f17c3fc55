/**
 * Predex's EIP-712 code against an independent implementation (viem): 1 000 seeded random
 * orders (both exchange domains, both chains), ClobAuth messages and Relay messages, each signed
 * by viem with a random key; then 500 V2 orders, a quarter of them POLY_1271 (the owner's
 * TypedDataSign signed by viem, nested, and verified by our verifier). For every one: the same digest, the same signature from our signer,
 * and our recovery finds viem's signer.
 */
import t from 'tap'
import { hashTypedData, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { CLOB_AUTH_MESSAGE, clobAuthDigest, orderDigest, orderDomainSeparator, orderExchangeOf, orderStructHash, relayDigest,
  type OrderStruct, type OrderStructV2 } from '../../../src/crypto/eip712.js'
import { depositWalletDigest, nestSignature } from '../../../src/crypto/deposit-wallet.js'
import { verifyOrder } from '../../../src/crypto/verify-order.js'
import { contractsOf } from '../../../src/crypto/contracts.js'
import { fromHex, toHex } from '../../../src/crypto/hex.js'
import { parseSignature, recoverAddress, signDigest, type ParsedSignature } from '../../../src/crypto/signature.js'

const SEED = Number(process.env.CROSS_SEED ?? 424242)
const COUNT = 1_000

function generator(seed: number): { bytes: (n: number) => Uint8Array; int: (max: number) => number } {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = a
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return (x ^ (x >>> 14)) >>> 0
  }
  return {
    bytes: (n) => Uint8Array.from({ length: n }, () => next() & 0xff),
    int: (max) => next() % max,
  }
}

const ORDER_TYPES = {
  Order: [
    { name: 'salt', type: 'uint256' }, { name: 'maker', type: 'address' }, { name: 'signer', type: 'address' },
    { name: 'taker', type: 'address' }, { name: 'tokenId', type: 'uint256' }, { name: 'makerAmount', type: 'uint256' },
    { name: 'takerAmount', type: 'uint256' }, { name: 'expiration', type: 'uint256' }, { name: 'nonce', type: 'uint256' },
    { name: 'feeRateBps', type: 'uint256' }, { name: 'side', type: 'uint8' }, { name: 'signatureType', type: 'uint8' },
  ],
} as const

function decimal(bytes: Uint8Array): string {
  return BigInt(toHex(bytes)).toString()
}

t.test(`${COUNT} random orders, auth and relay messages agree with viem`, async (t) => {
  t.comment(`seed ${SEED} (CROSS_SEED)`)
  const random = generator(SEED)
  let mismatches = 0
  for (let i = 0; i < COUNT && mismatches < 5; i++) {
    const key = random.bytes(32)
    key[0] = (key[0]! % 0xfe) + 1 // a valid private key below the curve order
    const account = privateKeyToAccount(toHex(key) as Hex)
    const chainId = random.int(2) === 0 ? 137 : 80002
    const negRisk = random.int(2) === 0
    const order: OrderStruct = {
      salt: decimal(random.bytes(random.int(2) === 0 ? 5 : 32)), maker: random.int(4) === 0 ? toHex(random.bytes(20)) : account.address,
      signer: account.address, taker: random.int(3) === 0 ? toHex(random.bytes(20)) : '0x' + '0'.repeat(40),
      tokenId: decimal(random.bytes(32)), makerAmount: decimal(random.bytes(random.int(12) + 1)),
      takerAmount: decimal(random.bytes(random.int(12) + 1)), expiration: String(random.int(2_000_000_000)),
      nonce: String(random.int(1000)), feeRateBps: String(random.int(1001)), side: random.int(2) as 0 | 1,
      signatureType: random.int(3) as 0 | 1 | 2,
    }
    const contracts = contractsOf(chainId)
    const typed = { domain: { name: 'Polymarket CTF Exchange', version: '1', chainId,
      verifyingContract: (negRisk ? contracts.negRiskExchange : contracts.exchange) as Hex },
      types: ORDER_TYPES, primaryType: 'Order' as const, message: { ...order, maker: order.maker as Hex, signer: order.signer as Hex,
        taker: order.taker as Hex, salt: BigInt(order.salt), tokenId: BigInt(order.tokenId), makerAmount: BigInt(order.makerAmount),
        takerAmount: BigInt(order.takerAmount), expiration: BigInt(order.expiration), nonce: BigInt(order.nonce),
        feeRateBps: BigInt(order.feeRateBps) } }
    const ours = orderDigest(order, chainId, negRisk)
    const theirs = hashTypedData(typed)
    const signature = await account.signTypedData(typed)
    const auth = { address: account.address, timestamp: String(1_700_000_000 + random.int(1_000_000)), nonce: String(random.int(5)), message: CLOB_AUTH_MESSAGE }
    const authTyped = { domain: { name: 'ClobAuthDomain', version: '1', chainId }, primaryType: 'ClobAuth' as const,
      types: { ClobAuth: [{ name: 'address', type: 'address' }, { name: 'timestamp', type: 'string' }, { name: 'nonce', type: 'uint256' }, { name: 'message', type: 'string' }] } as const,
      message: { ...auth, address: auth.address as Hex, nonce: BigInt(auth.nonce) } }
    const relay = { owner: account.address, action: ['approve', 'split', 'merge', 'redeem'][random.int(4)]!, conditionId: toHex(random.bytes(32)),
      amount: decimal(random.bytes(8)), nonce: String(random.int(100)), deadline: String(1_700_000_000 + random.int(1_000_000)) }
    const relayTyped = { domain: { name: 'Predex Relay', version: '1', chainId }, primaryType: 'Relay' as const,
      types: { Relay: [{ name: 'owner', type: 'address' }, { name: 'action', type: 'string' }, { name: 'conditionId', type: 'bytes32' },
        { name: 'amount', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] } as const,
      message: { ...relay, owner: relay.owner as Hex, conditionId: relay.conditionId as Hex, amount: BigInt(relay.amount),
        nonce: BigInt(relay.nonce), deadline: BigInt(relay.deadline) } }
    const checks: [string, boolean][] = [
      ['order digest', toHex(ours) === theirs],
      ['order signature', signDigest(ours, key) === signature],
      ['order signer', recoverAddress(ours, parseSignature(signature) as ParsedSignature) === account.address.toLowerCase()],
      ['auth digest', toHex(clobAuthDigest(auth, chainId)) === hashTypedData(authTyped)],
      ['auth signer', recoverAddress(fromHex(hashTypedData(authTyped)), parseSignature(await account.signTypedData(authTyped)) as ParsedSignature) === account.address.toLowerCase()],
      ['relay digest', toHex(relayDigest(relay, chainId)) === hashTypedData(relayTyped)],
    ]
    for (const [name, ok] of checks) {
      if (!ok) {
        mismatches++
        t.fail(`message ${i}: ${name} differs from viem`)
      }
    }
  }
  t.equal(mismatches, 0, `${COUNT} orders, ${COUNT} auth and ${COUNT} relay messages: same digests, signatures and signers`)
})

const ORDER_V2_TYPES = {
  Order: [
    { name: 'salt', type: 'uint256' }, { name: 'maker', type: 'address' }, { name: 'signer', type: 'address' },
    { name: 'tokenId', type: 'uint256' }, { name: 'makerAmount', type: 'uint256' }, { name: 'takerAmount', type: 'uint256' },
    { name: 'side', type: 'uint8' }, { name: 'signatureType', type: 'uint8' }, { name: 'timestamp', type: 'uint256' },
    { name: 'metadata', type: 'bytes32' }, { name: 'builder', type: 'bytes32' },
  ],
} as const

const TYPED_DATA_SIGN_TYPES = {
  TypedDataSign: [
    { name: 'contents', type: 'Order' }, { name: 'name', type: 'string' }, { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' }, { name: 'verifyingContract', type: 'address' }, { name: 'salt', type: 'bytes32' },
  ],
  ...ORDER_V2_TYPES,
} as const

t.test(`${COUNT / 2} random V2 orders (and their POLY_1271 TypedDataSign) agree with viem`, async (t) => {
  t.comment(`seed ${SEED + 1} (CROSS_SEED + 1)`)
  const random = generator(SEED + 1)
  let mismatches = 0
  for (let i = 0; i < COUNT / 2 && mismatches < 5; i++) {
    const key = random.bytes(32)
    key[0] = (key[0]! % 0xfe) + 1
    const account = privateKeyToAccount(toHex(key) as Hex)
    const chainId = random.int(2) === 0 ? 137 : 80002
    const negRisk = random.int(2) === 0
    const wallet = toHex(random.bytes(20))
    const type3 = random.int(4) === 0
    const order: OrderStructV2 = {
      version: 2, salt: decimal(random.bytes(random.int(2) === 0 ? 5 : 32)),
      maker: type3 ? wallet : random.int(4) === 0 ? toHex(random.bytes(20)) : account.address.toLowerCase(),
      signer: type3 ? wallet : account.address.toLowerCase(), tokenId: decimal(random.bytes(32)),
      makerAmount: decimal(random.bytes(random.int(12) + 1)), takerAmount: decimal(random.bytes(random.int(12) + 1)),
      side: random.int(2) as 0 | 1, signatureType: type3 ? 3 : random.int(3) as 0 | 1 | 2,
      timestamp: String(1_700_000_000_000 + random.int(2_000_000_000)),
      metadata: random.int(2) === 0 ? '0x' + '0'.repeat(64) : toHex(random.bytes(32)), builder: toHex(random.bytes(32)),
    }
    const domain = { name: 'Polymarket CTF Exchange', version: '2', chainId,
      verifyingContract: orderExchangeOf(chainId, negRisk, 2) as Hex }
    const message = { ...order, maker: order.maker as Hex, signer: order.signer as Hex, salt: BigInt(order.salt),
      tokenId: BigInt(order.tokenId), makerAmount: BigInt(order.makerAmount), takerAmount: BigInt(order.takerAmount),
      timestamp: BigInt(order.timestamp), metadata: order.metadata as Hex, builder: order.builder as Hex }
    const typed = { domain, types: ORDER_V2_TYPES, primaryType: 'Order' as const, message }
    const ours = orderDigest(order, chainId, negRisk)
    const checks: [string, boolean][] = [['V2 order digest', toHex(ours) === hashTypedData(typed)]]
    if (type3) {
      const nested = { domain, types: TYPED_DATA_SIGN_TYPES, primaryType: 'TypedDataSign' as const, message: {
        contents: message, name: 'DepositWallet', version: '1', chainId: BigInt(chainId), verifyingContract: wallet as Hex,
        salt: ('0x' + '0'.repeat(64)) as Hex } }
      const signature = await account.signTypedData(nested)
      const digest = depositWalletDigest(orderDomainSeparator(chainId, negRisk, 2), orderStructHash(order), chainId, wallet)
      checks.push(['TypedDataSign digest', toHex(digest) === hashTypedData(nested)])
      const verdict = verifyOrder({ order, negRisk,
        signature: nestSignature(signature, orderDomainSeparator(chainId, negRisk, 2), orderStructHash(order)) }, chainId, null)
      checks.push(['POLY_1271 verdict', verdict.ok && verdict.orderId === toHex(ours) &&
        verdict.walletOwner === account.address.toLowerCase()])
    } else {
      const signature = await account.signTypedData(typed)
      checks.push(['V2 signature', signDigest(ours, key) === signature])
      checks.push(['V2 signer', recoverAddress(ours, parseSignature(signature) as ParsedSignature) ===
        account.address.toLowerCase()])
    }
    for (const [name, ok] of checks) {
      if (!ok) {
        mismatches++
        t.fail(`V2 order ${i}: ${name} differs from viem`)
      }
    }
  }
  t.equal(mismatches, 0, `${COUNT / 2} V2 orders: same digests, signatures and signers; POLY_1271 verified`)
})
