/**
 * EIP-712 typed-data hashing for the messages Predex verifies: Polymarket's `Order` in its two
 * protocol versions (V1: 12 fields, domain version "1" and the V1 exchanges; V2: 11 fields,
 * domain version "2" and the V2 exchanges; each under the exchange or the neg-risk exchange
 * domain), `ClobAuth` (L1 authentication) and Predex's `Relay` (gasless ledger actions). Each
 * struct is encoded by hand, field by field, in the order of its type string: faster than a
 * generic encoder, and each type string sits next to the code that must follow it. The
 * cross-check test compares every hash with viem's.
 */
import { contractsOf } from './contracts.js'
import {
  concatBytes,
  fromHex,
  WORD_BYTES,
  wordOfAddress,
  wordOfBigInt,
  wordOfDecimal,
  writeAddressWord,
  writeBytes32Word,
  writeDecimalWord,
  writeSmallWord,
} from './hex.js'
import {
  KECCAK_LAYOUT,
  KECCAK_OUTPUT_AT,
  keccak256,
  keccakModule,
  keccakOfText,
  padKeccakMessage,
} from './keccak.js'
import type { KeccakModule } from './keccak-wasm.js'
import { TOKEN_ID_WORDS_MAX } from '../limits.js'

export const ORDER_TYPE =
  'Order(uint256 salt,address maker,address signer,address taker,uint256 tokenId,uint256 makerAmount,' +
  'uint256 takerAmount,uint256 expiration,uint256 nonce,uint256 feeRateBps,uint8 side,uint8 signatureType)'
/** The V2 order (clob-v2-compat.md 3.2): no taker, expiration, nonce or fee; a timestamp, metadata and builder. */
export const ORDER_V2_TYPE =
  'Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,' +
  'uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)'
export const CLOB_AUTH_TYPE = 'ClobAuth(address address,string timestamp,uint256 nonce,string message)'
export const RELAY_TYPE =
  'Relay(address owner,string action,bytes32 conditionId,uint256 amount,uint256 nonce,uint256 deadline)'
export const CLOB_AUTH_MESSAGE = 'This message attests that I control the given wallet'

const DOMAIN_WITH_CONTRACT = 'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'
const DOMAIN_WITHOUT_CONTRACT = 'EIP712Domain(string name,string version,uint256 chainId)'
const EXCHANGE_NAME = 'Polymarket CTF Exchange'
export const CLOB_AUTH_NAME = 'ClobAuthDomain'
const RELAY_NAME = 'Predex Relay'
const VERSION = '1'

const ORDER_TYPE_HASH = keccakOfText(ORDER_TYPE)
const ORDER_V2_TYPE_HASH = keccakOfText(ORDER_V2_TYPE)
const CLOB_AUTH_TYPE_HASH = keccakOfText(CLOB_AUTH_TYPE)
const RELAY_TYPE_HASH = keccakOfText(RELAY_TYPE)

/** The fields of a signed V1 order as EIP-712 encodes them (uint256 values as decimal strings). */
export interface OrderStruct {
  /** Absent or 1: a V1 order. */
  readonly version?: 1
  readonly salt: string
  readonly maker: string
  readonly signer: string
  readonly taker: string
  readonly tokenId: string
  readonly makerAmount: string
  readonly takerAmount: string
  readonly expiration: string
  readonly nonce: string
  readonly feeRateBps: string
  /** 0 = BUY, 1 = SELL, as signed. */
  readonly side: 0 | 1
  /** 0 = EOA, 1 = POLY_PROXY, 2 = POLY_GNOSIS_SAFE. */
  readonly signatureType: 0 | 1 | 2
}

/** The fields of a signed V2 order (clob-v2-compat.md 3.3), uint256 values as decimal strings. */
export interface OrderStructV2 {
  readonly version: 2
  readonly salt: string
  readonly maker: string
  /** The EOA that signed; for POLY_1271 (type 3) the deposit wallet itself (= maker). */
  readonly signer: string
  readonly tokenId: string
  readonly makerAmount: string
  readonly takerAmount: string
  /** 0 = BUY, 1 = SELL, as signed. */
  readonly side: 0 | 1
  /** 0 = EOA, 1 = POLY_PROXY, 2 = POLY_GNOSIS_SAFE, 3 = POLY_1271 (deposit wallet). */
  readonly signatureType: 0 | 1 | 2 | 3
  /** Unix milliseconds, decimal: with the salt, what makes two orders differ (there is no nonce). */
  readonly timestamp: string
  /** bytes32, 0x + 64 hex: opaque. */
  readonly metadata: string
  /** bytes32, 0x + 64 hex: the builder code, opaque. */
  readonly builder: string
}

/** A signed order of either protocol version. */
export type AnyOrderStruct = OrderStruct | OrderStructV2

/** The exchange domain version an order is signed under. V3 is recognised, not served. */
export type ExchangeVersion = 1 | 2 | 3

export function versionOf(order: AnyOrderStruct): 1 | 2 {
  return order.version === 2 ? 2 : 1
}

export interface ClobAuthStruct {
  readonly address: string
  readonly timestamp: string
  readonly nonce: string
  readonly message: string
}

export interface RelayStruct {
  readonly owner: string
  readonly action: string
  /** 0x + 64 hex. */
  readonly conditionId: string
  readonly amount: string
  readonly nonce: string
  readonly deadline: string
}

function domainSeparator(name: string, version: string, chainId: number, verifyingContract: string | null):
  Uint8Array {
  const parts = [keccakOfText(verifyingContract === null ? DOMAIN_WITHOUT_CONTRACT : DOMAIN_WITH_CONTRACT),
    keccakOfText(name), keccakOfText(version), wordOfBigInt(BigInt(chainId))]
  if (verifyingContract !== null) parts.push(wordOfAddress(verifyingContract))
  return keccak256(concatBytes(parts))
}

const separators = new Map<string, Uint8Array>()

function cachedSeparator(name: string, chainId: number, verifyingContract: string | null, version = VERSION):
  Uint8Array {
  const key = `${name}/${version}/${chainId}/${verifyingContract ?? ''}`
  let separator = separators.get(key)
  if (separator === undefined) {
    separator = domainSeparator(name, version, chainId, verifyingContract)
    separators.set(key, separator)
  }
  return separator
}

/** The exchange an order of `version` is signed for: V3 has one exchange, neg-risk or not. */
export function orderExchangeOf(chainId: number, negRisk: boolean, version: ExchangeVersion): string {
  const contracts = contractsOf(chainId)
  switch (version) {
    case 1: return negRisk ? contracts.negRiskExchange : contracts.exchange
    case 2: return negRisk ? contracts.negRiskExchangeV2 : contracts.exchangeV2
    case 3: return contracts.exchangeV3
  }
}

/**
 * The order domain: the exchange, or the neg-risk exchange for a neg_risk market, of the order's
 * protocol version (domain version "1", "2" or "3").
 */
export function orderDomainSeparator(chainId: number, negRisk: boolean, version: ExchangeVersion = 1): Uint8Array {
  let byDomain = orderSeparators.get(chainId)
  if (byDomain === undefined) {
    byDomain = []
    orderSeparators.set(chainId, byDomain)
  }
  const index = version * 2 + (negRisk ? 1 : 0)
  return (byDomain[index] ??=
    cachedSeparator(EXCHANGE_NAME, chainId, orderExchangeOf(chainId, negRisk, version), String(version)))
}

/**
 * Order domain separators by chain, then by version and neg-risk flag: each order asks for one,
 * and building cachedSeparator's string key cost more than the rest of the lookup. Only chains
 * with contracts get an entry (orderExchangeOf throws for the others).
 */
const orderSeparators = new Map<number, Uint8Array[]>()

export function clobAuthDomainSeparator(chainId: number): Uint8Array {
  return cachedSeparator(CLOB_AUTH_NAME, chainId, null)
}

export function relayDomainSeparator(chainId: number): Uint8Array {
  return cachedSeparator(RELAY_NAME, chainId, null)
}

/**
 * An order's struct hash. Fast path: the fields are written into the keccak module's memory
 * beside the type hash and hashed there (hashOrderInPlace); an order with a field not in canonical
 * form (which the API refuses before this) is encoded by the reference, which throws as it did.
 */
export function orderStructHash(order: AnyOrderStruct): Uint8Array {
  if (keccakModule !== null && hashOrderInPlace(keccakModule, order, KECCAK_OUTPUT_AT)) {
    return keccakModule.memory.slice(KECCAK_OUTPUT_AT, KECCAK_OUTPUT_AT + 32)
  }
  return orderStructHashReference(order)
}

/**
 * The struct hash as EIP-712 spells it: each field a word, concatenated, hashed with `hash`
 * (keccak256; the tests pass noble's to compare the fast path against a reference in pure JS).
 */
export function orderStructHashReference(order: AnyOrderStruct,
  hash: (bytes: Uint8Array) => Uint8Array = keccak256): Uint8Array {
  if (order.version === 2) return orderV2StructHashReference(order, hash)
  return hash(concatBytes([
    ORDER_TYPE_HASH, wordOfDecimal(order.salt), wordOfAddress(order.maker), wordOfAddress(order.signer),
    wordOfAddress(order.taker), wordOfDecimal(order.tokenId), wordOfDecimal(order.makerAmount),
    wordOfDecimal(order.takerAmount), wordOfDecimal(order.expiration), wordOfDecimal(order.nonce),
    wordOfDecimal(order.feeRateBps), wordOfBigInt(BigInt(order.side)), wordOfBigInt(BigInt(order.signatureType)),
  ]))
}

function orderV2StructHashReference(order: OrderStructV2, hash: (bytes: Uint8Array) => Uint8Array): Uint8Array {
  return hash(concatBytes([
    ORDER_V2_TYPE_HASH, wordOfDecimal(order.salt), wordOfAddress(order.maker), wordOfAddress(order.signer),
    wordOfDecimal(order.tokenId), wordOfDecimal(order.makerAmount), wordOfDecimal(order.takerAmount),
    wordOfBigInt(BigInt(order.side)), wordOfBigInt(BigInt(order.signatureType)), wordOfDecimal(order.timestamp),
    wordOfBytes32(order.metadata), wordOfBytes32(order.builder),
  ]))
}

/** The layouts in the keccak module's memory (keccak.ts), padded, with the constant words in place. */
const DIGEST_AT = KECCAK_LAYOUT.digest
const ORDER_V1_AT = KECCAK_LAYOUT.orderV1
const ORDER_V2_AT = KECCAK_LAYOUT.orderV2
const orderLayoutBlocks = keccakModule === null ? null : layOutOrders(keccakModule.memory)

function layOutOrders(memory: Uint8Array): { v1: number; v2: number; digest: number } {
  const digest = padKeccakMessage(memory, DIGEST_AT, 2 + 2 * WORD_BYTES)
  memory[DIGEST_AT] = 0x19
  memory[DIGEST_AT + 1] = 0x01
  const v1 = padKeccakMessage(memory, ORDER_V1_AT, 13 * WORD_BYTES)
  memory.set(ORDER_TYPE_HASH, ORDER_V1_AT)
  const v2 = padKeccakMessage(memory, ORDER_V2_AT, 12 * WORD_BYTES)
  memory.set(ORDER_V2_TYPE_HASH, ORDER_V2_AT)
  return { v1, v2, digest }
}

/**
 * Token ids as words: 77 decimal digits each, converted through a bigint, and few of them (two per
 * market), each in thousands of orders. Cleared when full, so a stream of unknown ids costs one
 * insertion per order and no memory beyond the bound.
 */
const tokenIdWords = new Map<string, Uint8Array>()

function writeTokenIdWord(memory: Uint8Array, at: number, tokenId: string): boolean {
  const word = tokenIdWords.get(tokenId)
  if (word !== undefined) {
    memory.set(word, at)
    return true
  }
  if (!writeDecimalWord(memory, at, tokenId)) return false
  if (tokenIdWords.size >= TOKEN_ID_WORDS_MAX) tokenIdWords.clear()
  tokenIdWords.set(tokenId, memory.slice(at, at + WORD_BYTES))
  return true
}

/** Encodes `order` in its layout and writes its struct hash at `output`; false when a field is not canonical. */
function hashOrderInPlace(keccak: KeccakModule, order: AnyOrderStruct, output: number): boolean {
  const memory = keccak.memory
  if (order.version === 2) {
    const at = ORDER_V2_AT
    if (!(writeDecimalWord(memory, at + 32, order.salt) && writeAddressWord(memory, at + 64, order.maker) &&
      writeAddressWord(memory, at + 96, order.signer) && writeTokenIdWord(memory, at + 128, order.tokenId) &&
      writeDecimalWord(memory, at + 160, order.makerAmount) && writeDecimalWord(memory, at + 192, order.takerAmount) &&
      writeSmallWord(memory, at + 224, order.side) && writeSmallWord(memory, at + 256, order.signatureType) &&
      writeDecimalWord(memory, at + 288, order.timestamp) && writeBytes32Word(memory, at + 320, order.metadata) &&
      writeBytes32Word(memory, at + 352, order.builder))) return false
    keccak.absorb(at, orderLayoutBlocks!.v2, output)
    return true
  }
  const at = ORDER_V1_AT
  if (!(writeDecimalWord(memory, at + 32, order.salt) && writeAddressWord(memory, at + 64, order.maker) &&
    writeAddressWord(memory, at + 96, order.signer) && writeAddressWord(memory, at + 128, order.taker) &&
    writeTokenIdWord(memory, at + 160, order.tokenId) && writeDecimalWord(memory, at + 192, order.makerAmount) &&
    writeDecimalWord(memory, at + 224, order.takerAmount) && writeDecimalWord(memory, at + 256, order.expiration) &&
    writeDecimalWord(memory, at + 288, order.nonce) && writeDecimalWord(memory, at + 320, order.feeRateBps) &&
    writeSmallWord(memory, at + 352, order.side) && writeSmallWord(memory, at + 384, order.signatureType))) return false
  keccak.absorb(at, orderLayoutBlocks!.v1, output)
  return true
}

function wordOfBytes32(hex: string): Uint8Array {
  const word = fromHex(hex)
  if (word.length !== 32) throw new RangeError('not a bytes32')
  return word
}

export function clobAuthStructHash(auth: ClobAuthStruct): Uint8Array {
  return keccak256(concatBytes([CLOB_AUTH_TYPE_HASH, wordOfAddress(auth.address), keccakOfText(auth.timestamp),
    wordOfDecimal(auth.nonce), keccakOfText(auth.message)]))
}

export function relayStructHash(relay: RelayStruct): Uint8Array {
  return keccak256(concatBytes([RELAY_TYPE_HASH, wordOfAddress(relay.owner), keccakOfText(relay.action),
    fromHex(relay.conditionId), wordOfDecimal(relay.amount), wordOfDecimal(relay.nonce),
    wordOfDecimal(relay.deadline)]))
}

/** keccak256(0x1901 ‖ domainSeparator ‖ structHash): what is signed. */
export function typedDataDigest(domainSeparator: Uint8Array, structHash: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(66)
  bytes[0] = 0x19
  bytes[1] = 0x01
  bytes.set(domainSeparator, 2)
  bytes.set(structHash, 34)
  return keccak256(bytes)
}

/**
 * An order's EIP-712 digest under the domain of its own version (or of `version`, to tell what
 * else it may have been signed for): its id (orderID) once written as 0x + hex.
 */
export function orderDigest(order: AnyOrderStruct, chainId: number, negRisk: boolean,
  version: ExchangeVersion = versionOf(order)): Uint8Array {
  const separator = orderDomainSeparator(chainId, negRisk, version)
  if (keccakModule !== null && hashOrderInPlace(keccakModule, order, DIGEST_AT + 34)) {
    const memory = keccakModule.memory
    memory.set(separator, DIGEST_AT + 2)
    keccakModule.absorb(DIGEST_AT, orderLayoutBlocks!.digest, KECCAK_OUTPUT_AT)
    return memory.slice(KECCAK_OUTPUT_AT, KECCAK_OUTPUT_AT + 32)
  }
  return typedDataDigest(separator, orderStructHashReference(order))
}

export function clobAuthDigest(auth: ClobAuthStruct, chainId: number): Uint8Array {
  return typedDataDigest(clobAuthDomainSeparator(chainId), clobAuthStructHash(auth))
}

export function relayDigest(relay: RelayStruct, chainId: number): Uint8Array {
  if (fromHex(relay.conditionId).length !== 32) throw new RangeError('conditionId is 32 bytes')
  return typedDataDigest(relayDomainSeparator(chainId), relayStructHash(relay))
}
