/**
 * What a range of logs says to the ledger (src/chain/chain-facts.ts), without a chain: logs built
 * with the contracts' own ABIs. Mints, transfers and approvals of an exchange become entries in
 * the chain's order; a settlement's transfers are not counted again (its trades are reported);
 * splits, merges and redemptions sent to the Conditional Tokens directly are one fact per token,
 * and those Predex does not mirror are skipped whole and counted; a relay message the exchange ran
 * is the wallet's operation (its approve one fact: the USDC allowance and the outcome tokens);
 * outcome-token approvals count for the settling exchange only; approvals of other spenders and
 * events that move nothing are passed over.
 */
import t from 'tap'
import { encodeAbiParameters, encodeEventTopics, type Abi, type AbiEvent, type Hex, type Log } from 'viem'
import { artifactOf } from '../../../src/chain/artifacts.js'
import { chainFactsOf, FactSources } from '../../../src/chain/chain-facts.js'
import type { ChainEntry } from '../../../src/engine/command.js'
import { localDeployment } from '../../../src/chain/deployment.js'

const CONTRACTS = localDeployment(80002)
const sources = new FactSources(CONTRACTS)
const ZERO = '0x0000000000000000000000000000000000000000'
const alice = '0x00000000000000000000000000000000000a11ce'
const bob = '0x0000000000000000000000000000000000000b0b'
const UNLIMITED = 2n ** 256n - 1n

let logIndex = 0

/** Entries without the transaction they name (checked once, in the first test). */
function withoutTx(entries: readonly ChainEntry[]) {
  return entries.map(({ transactionHash: _hash, blockNumber: _block, ...fact }) => fact)
}

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
    ctf('ApprovalForAll', { owner: alice, operator: CONTRACTS.exchange, approved: true }, 4, 3),
    ctf('ApprovalForAll', { owner: alice, operator: CONTRACTS.exchangeV2, approved: true }, 4, 3),
    ctf('ApprovalForAll', { owner: bob, operator: CONTRACTS.exchange, approved: false }, 4, 3),
    ctf('TransferSingle', { operator: alice, from: alice, to: bob, id: 42n, value: 3_000_000n }, 5, 4),
    usdc('Transfer', { from: bob, to: ZERO, value: 1_000_000n }, 6, 5),
  ]
  const facts = chainFactsOf(logs, sources)
  t.strictSame(facts.entries.map((e) => [e.transactionHash, e.blockNumber]).slice(0, 2),
    [[`0x${'1'.padStart(64, '0')}`, 1], [`0x${'2'.padStart(64, '0')}`, 2]], 'each names its transaction and block')
  t.strictSame(withoutTx(facts.entries), [
    { kind: 'usdc', from: '', to: alice, tokenId: '', amountMicros: 5_000_000 },
    { kind: 'usdc', from: alice, to: bob, tokenId: '', amountMicros: 2_000_000 },
    { kind: 'usdcAllowance', from: alice, to: '', tokenId: '', amountMicros: Number.MAX_SAFE_INTEGER },
    { kind: 'tokenApproval', from: alice, to: '', tokenId: '', amountMicros: 1 },
    { kind: 'tokenApproval', from: bob, to: '', tokenId: '', amountMicros: 0 },
    { kind: 'shares', from: alice, to: bob, tokenId: '42', amountMicros: 3_000_000 },
    { kind: 'usdc', from: bob, to: '', tokenId: '', amountMicros: 1_000_000 },
  ], 'approvals of other spenders, or of outcome tokens for an exchange that does not settle, are passed over')
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
  t.strictSame(withoutTx(facts.entries), [])
  t.strictSame(facts.settled.map((s) => [s.tradeId, s.blockNumber]), [[tradeId, 7]])
})

t.test('a relay message the exchange ran is the wallet\'s operation, its internal transfers not counted again', async (t) => {
  const logs = [
    usdc('Approval', { owner: alice, spender: CONTRACTS.exchange, value: 5_000_000n }, 31, 12),
    ctf('ApprovalForAll', { owner: alice, operator: CONTRACTS.exchange, approved: true }, 31, 12),
    exchange('Relayed', { owner: alice, nonce: 0n, action: 'approve' }, 31, 12),
    usdc('Transfer', { from: alice, to: CONTRACTS.exchange, value: 2_000_000n }, 32, 13),
    usdc('Approval', { owner: CONTRACTS.exchange, spender: CONTRACTS.conditionalTokens, value: 2_000_000n }, 32, 13),
    usdc('Transfer', { from: CONTRACTS.exchange, to: CONTRACTS.conditionalTokens, value: 2_000_000n }, 32, 13),
    ctf('TransferSingle', { operator: CONTRACTS.exchange, from: CONTRACTS.exchange, to: alice, id: 42n, value: 2_000_000n }, 32, 13),
    exchange('RelayedSplit', { owner: alice, token: 42n, amount: 2_000_000n }, 32, 13),
    exchange('Relayed', { owner: alice, nonce: 1n, action: 'split' }, 32, 13),
    exchange('RelayedMerge', { owner: alice, token: 42n, amount: 1_000_000n }, 33, 14),
    exchange('Relayed', { owner: alice, nonce: 2n, action: 'merge' }, 33, 14),
    exchange('RelayedRedeem', { owner: alice, token: 42n, amount: 1_000_000n, payout: 1_000_000n }, 34, 15),
    exchange('RelayedRedeem', { owner: alice, token: 43n, amount: 0n, payout: 0n }, 34, 15),
    exchange('Relayed', { owner: alice, nonce: 3n, action: 'redeem' }, 34, 15),
  ]
  const facts = chainFactsOf(logs, sources)
  t.strictSame(withoutTx(facts.entries), [
    { kind: 'allowance', from: alice, to: '', tokenId: '', amountMicros: 5_000_000 },
    { kind: 'split', from: alice, to: '', tokenId: '42', amountMicros: 2_000_000 },
    { kind: 'merge', from: alice, to: '', tokenId: '42', amountMicros: 1_000_000 },
    { kind: 'redeem', from: alice, to: '', tokenId: '42', amountMicros: 1_000_000 },
  ])
  t.equal(facts.unmirroredTransactions, 0)
})

const CTF = CONTRACTS.conditionalTokens
const NO_PARENT = `0x${'00'.repeat(32)}`
const CONDITION = `0x${'c0'.repeat(32)}`

function splitOf(holder: string, amount: bigint, tx: number, partition = [1n, 2n], collateral = CONTRACTS.collateral): Log[] {
  return [
    usdc('Transfer', { from: holder, to: CTF, value: amount }, tx, 8),
    ctf('TransferBatch', { operator: holder, from: ZERO, to: holder, ids: [42n, 43n], values: [amount, amount] }, tx, 8),
    ctf('PositionSplit', { stakeholder: holder, collateralToken: collateral, parentCollectionId: NO_PARENT,
      conditionId: CONDITION, partition, amount }, tx, 8),
  ]
}

t.test('splits, merges and redemptions sent to the Conditional Tokens are one fact per token', async (t) => {
  const logs = [
    ...splitOf(alice, 4_000_000n, 11),
    ctf('TransferBatch', { operator: alice, from: alice, to: ZERO, ids: [42n, 43n], values: [1_000_000n, 1_000_000n] }, 12, 9),
    usdc('Transfer', { from: CTF, to: alice, value: 1_000_000n }, 12, 9),
    ctf('PositionsMerge', { stakeholder: alice, collateralToken: CONTRACTS.collateral, parentCollectionId: NO_PARENT,
      conditionId: CONDITION, partition: [2n, 1n], amount: 1_000_000n }, 12, 9),
    ctf('TransferSingle', { operator: alice, from: alice, to: ZERO, id: 42n, value: 3_000_000n }, 13, 10),
    ctf('TransferSingle', { operator: alice, from: alice, to: ZERO, id: 43n, value: 3_000_000n }, 13, 10),
    usdc('Transfer', { from: CTF, to: alice, value: 3_000_000n }, 13, 10),
    ctf('PayoutRedemption', { redeemer: alice, collateralToken: CONTRACTS.collateral, parentCollectionId: NO_PARENT,
      conditionId: CONDITION, indexSets: [1n, 2n], payout: 3_000_000n }, 13, 10),
  ]
  const facts = chainFactsOf(logs, sources)
  t.equal(facts.unmirroredTransactions, 0)
  t.strictSame(withoutTx(facts.entries), [
    { kind: 'split', from: alice, to: '', tokenId: '42', amountMicros: 4_000_000 },
    { kind: 'merge', from: alice, to: '', tokenId: '42', amountMicros: 1_000_000 },
    { kind: 'redeem', from: alice, to: '', tokenId: '42', amountMicros: 3_000_000 },
    { kind: 'redeem', from: alice, to: '', tokenId: '43', amountMicros: 3_000_000 },
  ], 'the USDC to and from the Conditional Tokens is in the operations, not counted again')
})

t.test('operations Predex does not mirror, or whose parts disagree, are skipped whole and counted', async (t) => {
  const otherCollateral = '0x000000000000000000000000000000000000c01a'
  const cases: [string, Log[]][] = [
    ['another collateral', splitOf(alice, 4_000_000n, 21, [1n, 2n], otherCollateral)],
    ['a partial partition', splitOf(alice, 4_000_000n, 22, [1n])],
    ['USDC not what the split says', splitOf(alice, 4_000_000n, 23).map((log, i) => i === 0
      ? usdc('Transfer', { from: alice, to: CTF, value: 3_000_000n }, 23, 8) : log)],
    ['a mint no operation explains', [
      ctf('TransferBatch', { operator: alice, from: ZERO, to: alice, ids: [42n, 43n], values: [1n, 1n] }, 24, 8),
      ...splitOf(bob, 2n, 24)]],
    ['a direct transfer of USDC to the Conditional Tokens', [
      usdc('Transfer', { from: alice, to: CTF, value: 4_000_000n }, 25, 8)]],
  ]
  for (const [name, logs] of cases) {
    const facts = chainFactsOf([...logs, usdc('Transfer', { from: ZERO, to: bob, value: 1n }, 99, 9)], sources)
    t.equal(facts.unmirroredTransactions, 1, name)
    t.strictSame(withoutTx(facts.entries), [{ kind: 'usdc', from: '', to: bob, tokenId: '', amountMicros: 1 }],
      `${name}: the transaction after it is mirrored`)
  }
})

t.test('on an external chain the allowance the engine holds orders against is the settling exchange\'s alone', async (t) => {
  const settler = '0x00000000000000000000000000000000005e771e'
  const external = new FactSources({ ...CONTRACTS, settler, usdcSpenders: [settler] })
  const logs = [
    usdc('Approval', { owner: alice, spender: CONTRACTS.exchangeV2, value: 5n }, 41, 20),
    usdc('Approval', { owner: alice, spender: settler, value: 7n }, 42, 20),
  ]
  t.strictSame(withoutTx(chainFactsOf(logs, external).entries),
    [{ kind: 'usdcAllowance', from: alice, to: '', tokenId: '', amountMicros: 7 }],
    'an approval of an address orders are signed for, but where no exchange of Predex\'s is, is passed over')
})
