/**
 * The gasless relay on chain (issue 35 point 5), on the contracts alone: a wallet's `Relay`
 * message, signed by Predex's SDK exactly as the server's relay takes it, runs on the settling
 * exchange when anyone sends it (here the operator, who pays the gas): `approve` sets the test
 * USDC's standing allowance and approves the exchange for the wallet's outcome tokens (0 revokes
 * both), `split` turns USDC into both tokens, `merge` turns them back, `redeem` pays the winning
 * token once the oracle reported; the wallet never needs gas. Each message runs once (its nonce),
 * in time (its deadline), for its signer only; the USDC and the Conditional Tokens take a relayed
 * approval from the settling exchange alone. Bounded: anvil is started and stopped by the test.
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { BaseError, ContractFunctionRevertedError, decodeEventLog, type Address, type Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { artifactOf } from '../../src/chain/artifacts.js'
import { createChainMarket, resolveChainMarket, waitForSuccess } from '../../src/chain/chain-markets.js'
import { settlerOf } from '../../src/chain/exchange-orders.js'
import { Wallet } from '../../src/crypto/wallet.js'
import type { RelayStruct } from '../../src/crypto/eip712.js'
import { startLocalChain, tokensOf, usdcOf, LOCAL_CHAIN_ID } from '../support/local-chain.js'

const USDC = 1_000_000n
const ZERO_WORD = `0x${'00'.repeat(32)}`
const chain = await startLocalChain(t)
const questionId = `0x${randomBytes(32).toString('hex')}` as Hex
const market = await createChainMarket(chain, questionId)
const exchange = { address: settlerOf(chain.contracts), abi: artifactOf('PredexExchange').abi }
const usdc = { address: chain.contracts.collateral as Address, abi: artifactOf('TestUSDC').abi }

interface Party {
  readonly key: Hex
  readonly wallet: Wallet
  readonly address: Address
  nonce: number
}

async function party(usdcMicros: bigint): Promise<Party> {
  const key = generatePrivateKey()
  const wallet = new Wallet(key)
  const address = wallet.address as Address
  await waitForSuccess(chain, [await chain.operator.writeContract({ ...usdc, functionName: 'mint', args: [address, usdcMicros] })])
  return { key, wallet, address, nonce: 0 }
}

function message(p: Party, action: string, amount: bigint, options: { nonce?: number; deadline?: bigint } = {}):
  RelayStruct {
  return { owner: p.address.toLowerCase(), action, conditionId: action === 'approve' ? ZERO_WORD : market.conditionId,
    amount: amount.toString(), nonce: String(options.nonce ?? p.nonce),
    deadline: (options.deadline ?? BigInt(Math.floor(Date.now() / 1000) + 300)).toString() }
}

function argsOf(m: RelayStruct, signature: string) {
  return [{ owner: m.owner as Address, action: m.action, conditionId: m.conditionId as Hex, amount: BigInt(m.amount),
    nonce: BigInt(m.nonce), deadline: BigInt(m.deadline) }, signature as Hex] as const
}

/** Sends a relay message signed by `signer` (its owner unless said) from the operator; answers its receipt's logs. */
async function send(p: Party, m: RelayStruct, signer: Wallet = p.wallet) {
  const hash = await chain.operator.writeContract({ ...exchange, functionName: 'relay',
    args: argsOf(m, signer.signRelay(m, LOCAL_CHAIN_ID)) })
  const receipt = await chain.client.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new Error('reverted')
  p.nonce++
  return receipt
}

/** The custom error a relay message reverts with, from a simulation (nothing is sent). */
async function revertOf(m: RelayStruct, signer: Wallet): Promise<string> {
  try {
    await chain.client.simulateContract({ ...exchange, functionName: 'relay', args: argsOf(m, signer.signRelay(m, LOCAL_CHAIN_ID)),
      account: chain.operator.account })
  } catch (error) {
    const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null
    if (!(reverted instanceof ContractFunctionRevertedError)) throw error
    // A custom error by its name; a `require` with a message (the Conditional Tokens') by that message.
    return reverted.data?.errorName === 'Error' ? reverted.reason ?? 'Error' : reverted.data?.errorName ?? reverted.shortMessage
  }
  return 'no revert'
}

t.test('approve, split, merge and redeem run for the signer, paid by whoever sends them', async (t) => {
  const alice = await party(10n * USDC)
  t.equal(await chain.client.getBalance({ address: alice.address }), 0n, 'alice has no ETH at all')
  await send(alice, message(alice, 'split', 6n * USDC)).then(() => t.fail('a split before any approval'),
    () => t.pass('no split before the USDC allowance'))
  await send(alice, message(alice, 'approve', 2n ** 256n - 1n))
  t.equal(await chain.client.readContract({ ...usdc, functionName: 'allowance',
    args: [alice.address, chain.contracts.exchangeV2 as Address] }), 2n ** 256n - 1n,
  'the standing allowance of the four exchanges')
  t.equal(await approvedForAll(alice), true, 'and the settling exchange approved for her outcome tokens')
  await send(alice, message(alice, 'split', 6n * USDC))
  t.strictSame(await holdings(alice), [4n * USDC, 6n * USDC, 6n * USDC], 'split 6')
  await send(alice, message(alice, 'merge', 2n * USDC))
  t.strictSame(await holdings(alice), [6n * USDC, 4n * USDC, 4n * USDC], 'merge 2')
  t.match(await revertOf(message(alice, 'redeem', 0n), alice.wallet), /not received yet/,
    'no redemption before the oracle reports')
  await resolveChainMarket(chain, questionId, 'Yes')
  const redeemed = await send(alice, message(alice, 'redeem', 0n))
  t.strictSame(await holdings(alice), [10n * USDC, 0n, 0n], 'redeem: the 4 Yes paid 4, the 4 No nothing')
  const events = redeemed.logs.filter((log) => log.address.toLowerCase() === exchange.address.toLowerCase())
    .map((log) => decodeEventLog({ abi: exchange.abi, data: log.data, topics: log.topics }))
  t.strictSame(events.map((e) => [e.eventName, (e.args as { payout?: bigint }).payout]),
    [['RelayedRedeem', 4n * USDC], ['RelayedRedeem', 0n], ['Relayed', undefined]])
  t.equal(await revertOf(message(alice, 'redeem', 0n), alice.wallet), 'NothingToRedeem')
  t.equal(await chain.client.getBalance({ address: alice.address }), 0n, 'alice paid no gas for any of it')
  await send(alice, message(alice, 'approve', 0n))
  t.equal(await approvedForAll(alice), false, 'an approval of 0 revokes the outcome tokens too')
})

t.test('a message runs once, in time, for its signer, on its chain; the USDC takes a relayed approval from the exchange alone', async (t) => {
  const bob = await party(USDC)
  const mallory = await party(0n)
  await send(bob, message(bob, 'approve', USDC))
  t.equal(await revertOf(message(bob, 'approve', USDC, { nonce: 0 }), bob.wallet), 'RelayNonceMismatch', 'a replay')
  t.equal(await revertOf(message(bob, 'approve', USDC, { nonce: 2 }), bob.wallet), 'RelayNonceMismatch', 'a nonce ahead')
  t.equal(await revertOf(message(bob, 'approve', 0n, { deadline: 1n }), bob.wallet), 'RelayDeadlinePassed')
  t.equal(await revertOf(message(bob, 'approve', 0n), mallory.wallet), 'BadRelaySignature', 'signed by another wallet')
  const otherChain = message(bob, 'approve', 0n)
  const signedElsewhere = bob.wallet.signRelay(otherChain, 137)
  await t.rejects(chain.client.simulateContract({ ...exchange, functionName: 'relay', args: argsOf(otherChain, signedElsewhere),
    account: chain.operator.account }), /BadRelaySignature/, 'signed for another chain')
  t.equal(await revertOf(message(bob, 'burn', 0n), bob.wallet), 'UnknownRelayAction')
  t.equal(await revertOf({ ...message(bob, 'split', USDC), conditionId: `0x${'ab'.repeat(32)}` }, bob.wallet),
    'UnknownCondition')
  await t.rejects(chain.client.simulateContract({ ...usdc, functionName: 'relayApprove', args: [bob.address, 0n],
    account: chain.operator.account }), /NotRelay/, 'only the settling exchange applies a relayed approval')
  await t.rejects(chain.client.simulateContract({ address: chain.contracts.conditionalTokens as Address,
    abi: artifactOf('ConditionalTokens').abi, functionName: 'relayApprovalForAll', args: [bob.address, true],
    account: chain.operator.account }), /only the relay exchange/, 'so do the Conditional Tokens')
  t.equal((await chain.client.readContract({ address: chain.contracts.conditionalTokens as Address,
    abi: artifactOf('ConditionalTokens').abi, functionName: 'relayExchange' }) as string).toLowerCase(),
  exchange.address.toLowerCase(), 'the settling exchange, linked into their code')
  t.equal(await chain.client.readContract({ ...exchange, functionName: 'relayNonces', args: [bob.address] }), 1n)
})

async function approvedForAll(p: Party): Promise<boolean> {
  const approved = await chain.client.readContract({ address: chain.contracts.conditionalTokens as Address,
    abi: artifactOf('ConditionalTokens').abi, functionName: 'isApprovedForAll', args: [p.address, exchange.address] })
  return approved as boolean
}

async function holdings(p: Party): Promise<[bigint, bigint, bigint]> {
  return [await usdcOf(chain, p.address), await tokensOf(chain, p.address, market.yesTokenId),
    await tokensOf(chain, p.address, market.noTokenId)]
}
