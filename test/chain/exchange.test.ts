/**
 * PredexExchange on a local chain (issue 35 point 2): orders signed by Predex's SDK exactly as the
 * clients sign them (V1 and V2, EOA) settle on chain at the addresses chain 80002's clients know,
 * moving test USDC and Conditional Tokens outcome tokens for each kind of match:
 * - mint: two buys of the two outcomes, the collateral split into a full set;
 * - normal: a buy against a sell of one token, with the taker's fee to the operator;
 * - merge: two sells of the two outcomes, the full set merged back into USDC.
 * The exchange's digest of each order is the order id Predex computes, a trade id settles once,
 * and every broken promise is refused with its own error: more than the order signed, a worse
 * price than it signed, a signature by someone else, an order claimed for a domain it was not
 * signed for, a caller who is not the operator. One contract settles V1 and V2 orders, against
 * each other too. Bounded: anvil is started and stopped by the test.
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { BaseError, ContractFunctionRevertedError, type Address, type Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { artifactOf } from '../../src/chain/artifacts.js'
import { createChainMarket, waitForSuccess, type ChainMarket } from '../../src/chain/chain-markets.js'
import { exchangeOrderOf, orderV1Tuple, orderV2Tuple, settlerOf, type ExchangeFill, type ExchangeTrade }
  from '../../src/chain/exchange-orders.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { signLimitOrder, signLimitOrderV2, type MarketTerms, type SignedOrder, type SignedOrderV2 }
  from '../../src/client/orders.js'
import { fundAndApprove, startLocalChain, tokensOf, usdcOf, userWallet, LOCAL_CHAIN_ID }
  from '../support/local-chain.js'

const USDC = 1_000_000n
const TERMS: MarketTerms = { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: LOCAL_CHAIN_ID }
const exchangeAbi = artifactOf('PredexExchange').abi

const chain = await startLocalChain(t)
const market = await createChainMarket(chain, `0x${randomBytes(32).toString('hex')}` as Hex)
const [alice, bob, carol] = await Promise.all([party(), party(), party()])

interface Party {
  readonly wallet: Wallet
  readonly address: Address
}

async function party(): Promise<Party> {
  const key = generatePrivateKey()
  const user = userWallet(chain, key)
  await fundAndApprove(chain, user, 100n * USDC, 1)
  await fundAndApprove(chain, user, 0n, 2)
  return { wallet: new Wallet(key), address: user.account.address }
}

function tradeId(): Hex {
  return `0x${randomBytes(32).toString('hex')}`
}

function fill(size: bigint, collateralA: bigint, collateralB: bigint, feeA = 0n, id = tradeId()): ExchangeFill {
  return { tradeId: id, size, collateralA, collateralB, feeA }
}

function v1(p: Party, tokenId: string, side: 'BUY' | 'SELL', price: string, size: string): SignedOrder {
  return signLimitOrder(p.wallet, TERMS, { tokenId, side, price, size })
}

function v2(p: Party, tokenId: string, side: 'BUY' | 'SELL', price: string, size: string): SignedOrderV2 {
  return signLimitOrderV2(p.wallet, TERMS, { tokenId, side, price, size })
}

type AnySigned = SignedOrder | SignedOrderV2

function trade(a: AnySigned, b: AnySigned, f: ExchangeFill, negRisk = false): ExchangeTrade {
  return { a: exchangeOrderOf(a.order, a.signature, negRisk), b: exchangeOrderOf(b.order, b.signature, negRisk), fill: f }
}

async function settle(trades: ExchangeTrade[]): Promise<void> {
  const hash = await chain.operator.writeContract({ address: settlerOf(chain.contracts), abi: exchangeAbi,
    functionName: 'settle', args: [trades] })
  await waitForSuccess(chain, [hash])
}

/** The custom error a call reverts with, from a simulation (nothing is sent). */
async function revertOf(trades: ExchangeTrade[], from: Address = chain.operator.account.address): Promise<string> {
  try {
    await chain.client.simulateContract({ address: settlerOf(chain.contracts), abi: exchangeAbi, functionName: 'settle',
      args: [trades], account: from })
  } catch (error) {
    const reverted = error instanceof BaseError
      ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null
    if (reverted instanceof ContractFunctionRevertedError) return reverted.data?.errorName ?? reverted.shortMessage
    throw error
  }
  return 'no revert'
}

async function holdings(p: Party, m: ChainMarket): Promise<[bigint, bigint, bigint]> {
  return [await usdcOf(chain, p.address), await tokensOf(chain, p.address, m.yesTokenId),
    await tokensOf(chain, p.address, m.noTokenId)]
}

t.test('the exchange\'s digest of an order is the order id Predex computes, V1 and V2, plain and neg-risk', async (t) => {
  for (const negRisk of [false, true]) {
    const terms = { ...TERMS, negRisk }
    const order1 = signLimitOrder(alice.wallet, terms, { tokenId: market.yesTokenId, side: 'BUY', price: '0.5', size: '10' })
    const order2 = signLimitOrderV2(alice.wallet, terms, { tokenId: market.yesTokenId, side: 'BUY', price: '0.5', size: '10' })
    t.equal(await chain.client.readContract({ address: settlerOf(chain.contracts), abi: exchangeAbi,
      functionName: 'hashOrderV1', args: [orderV1Tuple(order1.order), negRisk] }), order1.orderId, `V1, neg risk ${negRisk}`)
    t.equal(await chain.client.readContract({ address: settlerOf(chain.contracts), abi: exchangeAbi,
      functionName: 'hashOrderV2', args: [orderV2Tuple(order2.order), negRisk] }), order2.orderId, `V2, neg risk ${negRisk}`)
  }
})

t.test('mint, normal with a fee, a trade id again, merge: each moves what it says', async (t) => {
  // Mint: alice buys 10 Yes at 0.60, bob 10 No at 0.40; their 10 USDC become a full set.
  const aliceBuysYes = v1(alice, market.yesTokenId, 'BUY', '0.60', '10')
  const bobBuysNo = v1(bob, market.noTokenId, 'BUY', '0.40', '10')
  await settle([trade(aliceBuysYes, bobBuysNo, fill(10n * USDC, 6n * USDC, 4n * USDC))])
  t.strictSame(await holdings(alice, market), [94n * USDC, 10n * USDC, 0n], 'alice paid 6 for 10 Yes')
  t.strictSame(await holdings(bob, market), [96n * USDC, 0n, 10n * USDC], 'bob paid 4 for 10 No')

  // Normal: carol (the taker, A) buys 5 Yes from alice at 0.70 and pays a 0.05 fee.
  const operatorBefore = await usdcOf(chain, chain.operator.account.address)
  const carolBuysYes = v1(carol, market.yesTokenId, 'BUY', '0.70', '5')
  const aliceSellsYes = v1(alice, market.yesTokenId, 'SELL', '0.70', '5')
  const normal = trade(carolBuysYes, aliceSellsYes, fill(5n * USDC, 3_500_000n, 3_500_000n, 50_000n))
  await settle([normal])
  t.strictSame(await holdings(carol, market), [96_450_000n, 5n * USDC, 0n], 'carol paid 3.50 and the fee')
  t.strictSame(await holdings(alice, market), [97_500_000n, 5n * USDC, 0n], 'alice got 3.50 for 5 Yes')
  t.equal(await usdcOf(chain, chain.operator.account.address) - operatorBefore, 50_000n, 'the fee went to the operator')

  // The same trade id again (a retried settlement) changes nothing.
  await settle([normal])
  t.strictSame(await holdings(carol, market), [96_450_000n, 5n * USDC, 0n], 'a settled trade id is skipped')
  t.equal(await chain.client.readContract({ address: settlerOf(chain.contracts), abi: exchangeAbi,
    functionName: 'settled', args: [normal.fill.tradeId] }), true)

  // Merge: alice sells her 5 Yes, bob 5 of his No, both at 0.50: the full set pays 5 USDC.
  const aliceSells = v1(alice, market.yesTokenId, 'SELL', '0.50', '5')
  const bobSells = v1(bob, market.noTokenId, 'SELL', '0.50', '5')
  await settle([trade(aliceSells, bobSells, fill(5n * USDC, 2_500_000n, 2_500_000n))])
  t.strictSame(await holdings(alice, market), [100n * USDC, 0n, 0n], 'alice is back to 100 USDC')
  t.strictSame(await holdings(bob, market), [98_500_000n, 0n, 5n * USDC], 'bob got 2.50 for 5 No')

  // Refusals: each with its own error, nothing sent.
  t.equal(await revertOf([trade(aliceBuysYes, bobBuysNo, fill(USDC, 600_000n, 400_000n))]),
    'Overfilled', 'an order filled whole takes nothing more')
  const bobSellsNo = v1(bob, market.noTokenId, 'SELL', '0.50', '2')
  const carolBuysNo = v1(carol, market.noTokenId, 'BUY', '0.50', '2')
  t.equal(await revertOf([trade(carolBuysNo, bobSellsNo, fill(2n * USDC, 800_000n, 800_000n))]),
    'PriceNotMet', 'bob is not paid below the 0.50 he signed')
  const forged = { ...bobSellsNo, signature: v1(carol, market.noTokenId, 'SELL', '0.50', '2').signature }
  t.equal(await revertOf([trade(carolBuysNo, forged, fill(2n * USDC, USDC, USDC))]),
    'BadSignature', 'a signature by someone else than the signer')
  t.equal(await revertOf([trade(carolBuysNo, bobSellsNo, fill(2n * USDC, USDC, USDC), true)]),
    'BadSignature', 'an order claimed for the neg-risk domain it was not signed for')
  t.equal(await revertOf([trade(carolBuysNo, bobSellsNo, fill(2n * USDC, USDC, USDC))], carol.address),
    'NotOperator', 'only the operator settles')
})

t.test('V2 orders settle, against each other and against V1 orders', async (t) => {
  const [bobBefore, carolBefore] = [await holdings(bob, market), await holdings(carol, market)]
  const carolBuysNo = v2(carol, market.noTokenId, 'BUY', '0.55', '2')
  const bobSellsNo = v2(bob, market.noTokenId, 'SELL', '0.55', '2')
  await settle([trade(carolBuysNo, bobSellsNo, fill(2n * USDC, 1_100_000n, 1_100_000n))])
  t.strictSame(await holdings(carol, market), [carolBefore[0] - 1_100_000n, carolBefore[1], carolBefore[2] + 2n * USDC])
  t.strictSame(await holdings(bob, market), [bobBefore[0] + 1_100_000n, bobBefore[1], bobBefore[2] - 2n * USDC])
  const carolBuysMore = v2(carol, market.noTokenId, 'BUY', '0.60', '1')
  const bobSellsV1 = v1(bob, market.noTokenId, 'SELL', '0.60', '1')
  await settle([trade(carolBuysMore, bobSellsV1, fill(USDC, 600_000n, 600_000n))])
  t.strictSame(await holdings(bob, market), [bobBefore[0] + 1_700_000n, bobBefore[1], bobBefore[2] - 3n * USDC],
    'a V2 taker against a V1 maker')
})
