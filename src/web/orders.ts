/**
 * Orders signed in the browser: a V2 order (clob-v2-compat.md 3.3) as clob-client-v2 builds it,
 * its amounts from the SDK's own exact rounding (src/client/order-amounts.ts: the same integers
 * the SDK and clob-client sign), signed with viem under the V2 exchange's domain, and the JSON
 * body of POST /order, key for key.
 */
import { limitOrderAmounts, marketOrderAmounts, type Amounts, type Side, type TickSize }
  from '../client/order-amounts.js'
import type { NativeMarket } from '../api/shapes/market.js'
import type { PageWallet } from './wallet.js'

/** The V2 exchanges (the same address on 137 and 80002; src/crypto/contracts.ts). */
const EXCHANGE_V2 = '0xE111180000d2663C0091e4f400237545B87B996B'
const NEG_RISK_EXCHANGE_V2 = '0xe2222d279d744050d28e00520010520000310F59'
const ZERO_BYTES32 = `0x${'0'.repeat(64)}` as const

export type OrderKind = 'limit' | 'market'
export type OrderType = 'GTC' | 'FOK' | 'FAK'

export interface OrderTicket {
  readonly market: NativeMarket
  readonly tokenId: string
  readonly side: Side
  readonly kind: OrderKind
  /** limit: the price; market: the worst price accepted. */
  readonly price: string
  /** limit: shares; market: USDC to spend (BUY) or shares to sell (SELL). */
  readonly amount: string
  readonly postOnly: boolean
}

function amountsOf(ticket: OrderTicket): Amounts {
  const tick = ticket.market.tick_size as TickSize
  return ticket.kind === 'limit'
    ? limitOrderAmounts(ticket.side, ticket.amount, ticket.price, tick)
    : marketOrderAmounts(ticket.side, ticket.amount, ticket.price, tick)
}

function randomSalt(): number {
  // clob-client's salt: an integer below 2^40, sent as a JSON number (exact in a double).
  const words = crypto.getRandomValues(new Uint32Array(2))
  return (words[0]! & 0xff) * 2 ** 32 + words[1]!
}

/** The signed order's JSON body for POST /order, owned by the API key `owner`. */
export async function signedOrderBody(wallet: PageWallet, chainId: number, ticket: OrderTicket,
  owner: string): Promise<string> {
  const { makerAmount, takerAmount } = amountsOf(ticket)
  const salt = randomSalt()
  const timestamp = String(Date.now())
  const side = ticket.side === 'BUY' ? 0 : 1
  const address = wallet.account.address
  const signature = await wallet.account.signTypedData({
    domain: { name: 'Polymarket CTF Exchange', version: '2', chainId,
      verifyingContract: ticket.market.neg_risk ? NEG_RISK_EXCHANGE_V2 : EXCHANGE_V2 },
    types: { Order: [{ name: 'salt', type: 'uint256' }, { name: 'maker', type: 'address' },
      { name: 'signer', type: 'address' }, { name: 'tokenId', type: 'uint256' },
      { name: 'makerAmount', type: 'uint256' }, { name: 'takerAmount', type: 'uint256' },
      { name: 'side', type: 'uint8' }, { name: 'signatureType', type: 'uint8' },
      { name: 'timestamp', type: 'uint256' }, { name: 'metadata', type: 'bytes32' },
      { name: 'builder', type: 'bytes32' }] },
    primaryType: 'Order',
    message: { salt: BigInt(salt), maker: address, signer: address, tokenId: BigInt(ticket.tokenId),
      makerAmount: BigInt(makerAmount), takerAmount: BigInt(takerAmount), side, signatureType: 0,
      timestamp: BigInt(timestamp), metadata: ZERO_BYTES32, builder: ZERO_BYTES32 },
  })
  const orderType: OrderType = ticket.kind === 'limit' ? 'GTC' : 'FOK'
  return JSON.stringify({
    deferExec: false,
    postOnly: ticket.kind === 'limit' && ticket.postOnly,
    order: { salt, maker: address, signer: address, tokenId: ticket.tokenId, makerAmount, takerAmount,
      side: ticket.side, signatureType: 0, timestamp, expiration: '0', metadata: ZERO_BYTES32,
      builder: ZERO_BYTES32, signature },
    owner,
    orderType,
  })
}
