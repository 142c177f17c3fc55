/**
 * What a range of logs says to the ledger (src/chain/chain-facts.ts), without a chain: logs built
 * with the contracts' own ABIs. Mints, transfers and approvals of an exchange become entries in
 * the chain's order; a settlement's transfers are not counted again (its trades are reported); a
 * split sent to the Conditional Tokens directly is skipped whole and counted; approvals of other
 * spenders and events that move nothing are passed over.
 */
import t from 'tap'
import { encodeAbiParameters, encodeEventTopics, type Abi, type AbiEvent, type Hex, type Log } from 'viem'
import { artifactOf } from '../../../src/chain/artifacts.js'
import { chainFactsOf, FactSources } from '../../../src/chain/chain-facts.js'
import { CHAINS } from '../../../src/crypto/contracts.js'

const CONTRACTS = CHAINS[80002]!
const sources = new FactSources(CONTRACTS)
const ZERO = '0x0000000000000000000000000000000000000000'
const alice = '0x00000000000000000000000000000000000a11ce'
const bob = '0x0000000000000000000000000000000000000b0b'
const UNLIMITED = 2n ** 256n - 1n

let logIndex = 0

function logOf(address: string, abi: Abi, eventName: string, args: Record<string, unknown>, tx: number,
  block: number): Log {
  const event = abi.find((item): item is AbiEvent => item.type === 'event' && item.name === eventName)!
  const topics = encodeEventTopics({ abi: [event], eventName, args } as never) as [Hex, ...Hex[]]
  const data = encodeAbiParameters(event.inputs.filter((input) => input.indexed !== true),
    event.inputs.filter((input) => input.indexed !== true).map((input) => args[input.name!]) as never)
  return { address: address as Hex, topics, data, blockNumber: BigInt(block), logIndex: logIndex++,
    transactionHash: `0x${tx.toString(16).padStart(64, '0')}`, transactionIndex: 0, blockHash: `0x${'0'.repeat(64)}`,
    removed: false } as Log
}

const usdc = (event: string, args: Record<string, unknown>, tx: number, block = 1) =>
  logOf(CONTRACTS.collateral, artifactOf('TestUSDC').abi, event, args, tx, block)
const ctf = (event: string, args: Record<string, unknown>, tx: number, block = 1) =>
  logOf(CONTRACTS.conditionalTokens, artifactOf('ConditionalTokens').abi, event, args, tx, block)
const exchange = (event: string, args: Record<string, unknown>, tx: number, block = 1) =>
  logOf(CONTRACTS.exchange, artifactOf('PredexExchange').abi, event, args, tx, block)

t.test('mints, transfers and exchange approvals become entries in the chain\'s order', async (t) => {
  const logs = [
    usdc('Transfer', { from: alice, to: bob, value: 2_000_000n }, 2, 2),
    usdc('Transfer', { from: ZERO, to: alice, value: 5_000_000n }, 1, 1),
    usdc('Approval', { owner: alice, spender: CONTRACTS.exchangeV2, value: UNLIMITED }, 3, 3),
    usdc('Approval', { owner: alice, spender: bob, value: 7n }, 4, 3),
    ctf('TransferSingle', { operator: alice, from: alice, to: bob, id: 42n, value: 3_000_000n }, 5, 4),
    usdc('Transfer', { from: bob, to: ZERO, value: 1_000_000n }, 6, 5),
  ]
  const facts = chainFactsOf(logs, sources)
  t.strictSame(facts.entries, [
    { kind: 'usdc', from: '', to: alice, tokenId: '', amountMicros: 5_000_000 },
    { kind: 'usdc', from: alice, to: bob, tokenId: '', amountMicros: 2_000_000 },
    { kind: 'allowance', from: alice, to: '', tokenId: '', amountMicros: Number.MAX_SAFE_INTEGER },
    { kind: 'shares', from: alice, to: bob, tokenId: '42', amountMicros: 3_000_000 },
    { kind: 'usdc', from: bob, to: '', tokenId: '', amountMicros: 1_000_000 },
  ], 'an approval of another spender is passed over')
  t.equal(facts.unmirroredTransactions, 0)
  t.strictSame(facts.settled, [])
})

t.test('a settlement\'s transfers are not counted again; its trades are reported', async (t) => {
  const tradeId = `0x${'ab'.repeat(32)}` as Hex
  const logs = [
    usdc('Transfer', { from: alice, to: bob, value: 6_000_000n }, 9, 7),
    ctf('TransferSingle', { operator: CONTRACTS.exchange, from: bob, to: alice, id: 42n, value: 10_000_000n }, 9, 7),
    exchange('TradeSettled', { tradeId, orderA: `0x${'01'.repeat(32)}`, orderB: `0x${'02'.repeat(32)}`, size: 10_000_000n,
      collateralA: 6_000_000n, collateralB: 6_000_000n, feeA: 0n }, 9, 7),
  ]
  const facts = chainFactsOf(logs, sources)
  t.strictSame(facts.entries, [])
  t.strictSame(facts.settled.map((s) => [s.tradeId, s.blockNumber]), [[tradeId, 7]])
})

t.test('a split sent to the Conditional Tokens directly is skipped whole and counted', async (t) => {
  const logs = [
    usdc('Transfer', { from: alice, to: CONTRACTS.conditionalTokens, value: 4_000_000n }, 11, 8),
    ctf('TransferBatch', { operator: alice, from: ZERO, to: alice, ids: [42n, 43n], values: [4_000_000n, 4_000_000n] }, 11, 8),
    usdc('Transfer', { from: ZERO, to: bob, value: 1n }, 12, 8),
  ]
  const facts = chainFactsOf(logs, sources)
  t.equal(facts.unmirroredTransactions, 1)
  t.strictSame(facts.entries, [{ kind: 'usdc', from: '', to: bob, tokenId: '', amountMicros: 1 }],
    'the transaction after it is mirrored')
})
