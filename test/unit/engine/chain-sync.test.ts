/**
 * `chainSync` (src/engine/chain-sync.ts; docs/testnet.md, "The ledger follows the chain"): the
 * ledger mirrors a real chain's confirmed facts. Mints credit (with a `ledger` credit event, so
 * the faucet's cooldown reads them), transfers move, allowances set, blocks never count twice,
 * a malformed sync changes nothing, and a fact that takes away what orders hold cancels the
 * newest of them until the rest fit, with reason `funds`. Splits, merges and redemptions sent to
 * the Conditional Tokens directly move full sets and pay out as the relay's do. A fact moves its
 * whole amount: what the ledger lacks is owed, and the next credit pays it back first. Invariants
 * (USDC conservation, holds, debts) are checked after every command by the harness.
 */
import t from 'tap'
import { Harness, addressOf, USDC } from '../../support/harness.js'
import type { ChainEntry } from '../../../src/engine/command.js'
import { decodeSnapshot, encodeSnapshot, stateHashOf } from '../../../src/engine/snapshot.js'
import { summaryOf } from '../../../src/engine/view.js'
import { SUPPLY_MICROS_MAX } from '../../../src/engine/limits.js'

const alice = addressOf(1)
const bob = addressOf(2)
const UNLIMITED = Number.MAX_SAFE_INTEGER

/** Entries of no transaction, as journals before facts named theirs (the ledger events then name none). */
const NO_TX = { transactionHash: '', blockNumber: 0 }

function usdc(from: string, to: string, amountMicros: number): ChainEntry {
  return { kind: 'usdc', from, to, tokenId: '', amountMicros, ...NO_TX }
}

function shares(from: string, to: string, tokenId: string, amountMicros: number): ChainEntry {
  return { kind: 'shares', from, to, tokenId, amountMicros, ...NO_TX }
}

function allowance(owner: string, amountMicros: number): ChainEntry {
  return { kind: 'usdcAllowance', from: owner, to: '', tokenId: '', amountMicros, ...NO_TX }
}

function tokenApproval(owner: string, approved: boolean): ChainEntry {
  return { kind: 'tokenApproval', from: owner, to: '', tokenId: '', amountMicros: approved ? 1 : 0, ...NO_TX }
}

function ctf(kind: 'split' | 'merge' | 'redeem', holder: string, tokenId: string, amountMicros: number): ChainEntry {
  return { kind, from: holder, to: '', tokenId, amountMicros, ...NO_TX }
}

function accountOf(h: Harness, address: string) {
  return summaryOf(h.engine).accounts.find((a) => a.address === address)
}

/** The state without the stamp that every command advances, refused ones too. */
function stateOf(h: Harness) {
  return { ...summaryOf(h.engine), seq: 0, timeMs: 0, chainBlock: h.engine.chainBlock }
}

function sync(h: Harness, toBlock: number, entries: ChainEntry[]) {
  return h.apply({ kind: 'chainSync', toBlock, entries })
}

t.test('a mint credits with a ledger event; a transfer moves; the block is followed', async (t) => {
  const h = new Harness()
  const minted = sync(h, 5, [usdc('', alice, 100 * USDC), allowance(alice, UNLIMITED)])
  t.strictSame(minted.result, { ok: true })
  t.strictSame(Harness.eventsOf(minted, 'ledger'),
    [{ type: 'ledger', action: 'credit', address: alice, marketId: '', amountMicros: 100 * USDC, payoutMicros: 0 }])
  t.strictSame(Harness.eventsOf(minted, 'chainSynced'), [{ type: 'chainSynced', toBlock: 5, entries: 2 }])
  t.equal(h.engine.chainBlock, 5)
  t.equal(h.engine.creditedMicros, 100 * USDC, 'a mint adds to the supply')
  sync(h, 6, [usdc(alice, bob, 30 * USDC)])
  t.equal(accountOf(h, alice)?.usdcMicros, 70 * USDC)
  t.equal(accountOf(h, bob)?.usdcMicros, 30 * USDC)
  sync(h, 7, [usdc(bob, '', 10 * USDC)])
  t.equal(accountOf(h, bob)?.usdcMicros, 20 * USDC, 'USDC leaving the mirror')
  t.equal(h.engine.creditedMicros, 90 * USDC, 'leaves the supply too')
})

t.test('a sync not past the last block, or malformed, changes nothing', async (t) => {
  const h = new Harness()
  sync(h, 10, [usdc('', alice, USDC)])
  const before = stateOf(h)
  const again = sync(h, 10, [usdc('', alice, USDC)])
  t.match(again.result, { ok: false, code: 'CHAIN_SYNC_STALE', context: { toBlock: 10, chainBlock: 10 } })
  t.match(sync(h, 9, []).result, { ok: false, code: 'CHAIN_SYNC_STALE' })
  const bad: ChainEntry[][] = [
    [usdc(alice, alice, USDC)],
    [usdc('', '', USDC)],
    [usdc('', alice, 0)],
    [usdc('', alice, 1.5)],
    [shares('', alice, 'm1-yes', USDC)],
    [allowance('', USDC)],
    [{ ...tokenApproval(alice, true), amountMicros: 2 }],
    [{ ...tokenApproval(alice, true), tokenId: 'm1-yes' }],
    [ctf('split', '', 'm1-yes', USDC)],
    [ctf('merge', alice, '', USDC)],
    [{ ...ctf('redeem', alice, 'm1-yes', USDC), to: bob }],
    [ctf('split', alice, 'm1-yes', 0)],
    [{ kind: 'gas', from: '', to: alice, tokenId: '', amountMicros: 1, ...NO_TX } as unknown as ChainEntry],
    [{ ...usdc('', alice, USDC), transactionHash: 5 } as unknown as ChainEntry],
    [{ ...usdc('', alice, USDC), blockNumber: -1 }],
  ]
  for (const [i, entries] of bad.entries()) {
    const applied = sync(h, 11, [usdc('', bob, USDC), ...entries])
    t.match(applied.result, { ok: false, code: 'CHAIN_SYNC_INVALID', context: { index: 1 } }, `malformed ${i}`)
  }
  t.match(sync(h, 11, [usdc('', bob, SUPPLY_MICROS_MAX)]).result, { ok: false, code: 'LEDGER_BALANCE_LIMIT' })
  t.strictSame(stateOf(h), before, 'none of them changed the state')
})

t.test('a transfer out below what buys hold cancels the newest buys until the rest fit', async (t) => {
  const h = new Harness()
  const { yes, no } = h.market()
  sync(h, 1, [usdc('', alice, 10 * USDC), allowance(alice, UNLIMITED)])
  h.place(h.order({ maker: alice, tokenId: yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC }))
  const second = h.place(h.order({ maker: alice, tokenId: no, side: 'BUY', priceMicros: 300_000, sizeMicros: 10 * USDC }))
  const third = h.place(h.order({ maker: alice, tokenId: yes, side: 'BUY', priceMicros: 100_000, sizeMicros: 10 * USDC }))
  t.equal(accountOf(h, alice)?.usdcHeldMicros, 8 * USDC, 'holds 4 + 3 + 1')
  const moved = sync(h, 2, [usdc(alice, bob, 4 * USDC)])
  t.equal(accountOf(h, alice)?.usdcMicros, 6 * USDC)
  const canceled = Harness.eventsOf(moved, 'orderUpdate').filter((u) => u.status === 'CANCELED')
  t.strictSame(canceled.map((u) => [u.orderId, u.reason]), [[orderIdOf(third), 'funds'], [orderIdOf(second), 'funds']],
    'the newest two gave way; the oldest (4 held) fits in 6')
  t.equal(accountOf(h, alice)?.usdcHeldMicros, 4 * USDC)
})

t.test('more than the ledger has moves the whole: the rest is owed, and the next credit pays it back first', async (t) => {
  const h = new Harness()
  sync(h, 1, [usdc('', alice, 5 * USDC)])
  sync(h, 2, [usdc(alice, bob, 8 * USDC)])
  t.equal(accountOf(h, alice)?.usdcMicros, 0)
  t.equal(h.engine.accountsByAddress.get(alice)?.usdcOwedMicros, 3 * USDC, 'alice owes the 3 the ledger lacked')
  t.equal(accountOf(h, bob)?.usdcMicros, 8 * USDC, 'bob has what the chain gave him')
  sync(h, 3, [usdc('', alice, 4 * USDC)])
  t.equal(accountOf(h, alice)?.usdcMicros, USDC, 'the mint paid the 3 back first')
  t.equal(h.engine.accountsByAddress.get(alice)?.usdcOwedMicros, 0)
})

t.test('shares move between wallets; sells that no longer fit give way; unknown tokens are not the ledger\'s', async (t) => {
  const h = new Harness()
  const { marketId, yes } = h.market()
  sync(h, 1, [usdc('', alice, 20 * USDC), allowance(alice, UNLIMITED), tokenApproval(alice, true)])
  h.split(alice, marketId, 10 * USDC)
  const sell = h.place(h.order({ maker: alice, tokenId: yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 8 * USDC }))
  const moved = sync(h, 2, [shares(alice, bob, yes, 5 * USDC), shares(alice, bob, 'not-listed', USDC)])
  const yesOf = (address: string) => accountOf(h, address)?.shares.find((s) => s.tokenId === yes)
  t.equal(yesOf(alice)?.balanceMicros, 5 * USDC)
  t.equal(yesOf(bob)?.balanceMicros, 5 * USDC)
  t.strictSame(Harness.eventsOf(moved, 'orderUpdate').map((u) => [u.orderId, u.status, u.reason]),
    [[orderIdOf(sell), 'CANCELED', 'funds']], 'the sell of 8 no longer fits 5')
})

t.test('USDC allowance and outcome-token approval are set on their own; what no longer fits gives way', async (t) => {
  const h = new Harness()
  const { marketId, yes, no } = h.market()
  sync(h, 1, [usdc('', alice, 20 * USDC), allowance(alice, UNLIMITED)])
  h.split(alice, marketId, 5 * USDC)
  t.match(h.place(h.order({ maker: alice, tokenId: yes, side: 'SELL', priceMicros: 700_000, sizeMicros: 5 * USDC })).result,
    { ok: false }, 'USDC approved, outcome tokens not: no sell')
  const approved = sync(h, 2, [tokenApproval(alice, true)])
  t.strictSame(Harness.eventsOf(approved, 'allowance'),
    [{ type: 'allowance', address: alice, usdcAllowanceMicros: UNLIMITED, sharesApproved: true }])
  h.place(h.order({ maker: alice, tokenId: yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 4 * USDC }))
  const late = h.place(h.order({ maker: alice, tokenId: no, side: 'BUY', priceMicros: 400_000, sizeMicros: 4 * USDC }))
  const sell = h.place(h.order({ maker: alice, tokenId: yes, side: 'SELL', priceMicros: 700_000, sizeMicros: 5 * USDC }))
  const lowered = sync(h, 3, [allowance(alice, 3 * USDC)])
  t.strictSame(Harness.eventsOf(lowered, 'allowance'),
    [{ type: 'allowance', address: alice, usdcAllowanceMicros: 3 * USDC, sharesApproved: true }],
    'a USDC allowance leaves the tokens\' approval as it is')
  t.strictSame(Harness.eventsOf(lowered, 'orderUpdate').map((u) => u.orderId), [orderIdOf(late)])
  const revoked = sync(h, 4, [tokenApproval(alice, false)])
  t.strictSame(Harness.eventsOf(revoked, 'orderUpdate').map((u) => [u.orderId, u.reason]), [[orderIdOf(sell), 'funds']],
    'tokens no longer approved: the sell gives way, the buy stays')
  t.equal(accountOf(h, alice)?.usdcHeldMicros, 2 * USDC)
})

t.test('an allowance entry of an older journal sets both approvals, as it did when it was written', async (t) => {
  const h = new Harness()
  const legacy = (amountMicros: number): ChainEntry =>
    ({ kind: 'allowance', from: alice, to: '', tokenId: '', amountMicros, ...NO_TX })
  sync(h, 1, [usdc('', alice, 20 * USDC), legacy(UNLIMITED)])
  t.equal(accountOf(h, alice)?.sharesApproved, true)
  sync(h, 2, [legacy(0)])
  t.match(accountOf(h, alice), { usdcAllowanceMicros: 0, sharesApproved: false })
})

t.test('splits and merges sent to the Conditional Tokens: full sets, counters, ledger events, holds give way', async (t) => {
  const h = new Harness()
  const { marketId, yes, no } = h.market()
  sync(h, 1, [usdc('', alice, 10 * USDC), allowance(alice, UNLIMITED), tokenApproval(alice, true)])
  const buy = h.place(h.order({ maker: alice, tokenId: yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 10 * USDC }))
  const split = sync(h, 2, [ctf('split', alice, no, 8 * USDC)])
  t.strictSame(Harness.eventsOf(split, 'ledger'), [{ type: 'ledger', action: 'split', address: alice, marketId,
    amountMicros: 8 * USDC, payoutMicros: 0 }], 'either token names its market')
  t.strictSame(Harness.eventsOf(split, 'orderUpdate').map((u) => [u.orderId, u.reason]), [[orderIdOf(buy), 'funds']],
    'the buy holding 5 no longer fits the 2 left')
  const balanceOf = (tokenId: string) => accountOf(h, alice)?.shares.find((s) => s.tokenId === tokenId)?.balanceMicros
  t.equal(accountOf(h, alice)?.usdcMicros, 2 * USDC)
  t.equal(balanceOf(yes), 8 * USDC)
  t.equal(balanceOf(no), 8 * USDC)
  const sell = h.place(h.order({ maker: alice, tokenId: no, side: 'SELL', priceMicros: 600_000, sizeMicros: 6 * USDC }))
  const merged = sync(h, 3, [ctf('merge', alice, yes, 5 * USDC)])
  t.strictSame(Harness.eventsOf(merged, 'ledger').map((e) => [e.action, e.amountMicros]), [['merge', 5 * USDC]])
  t.strictSame(Harness.eventsOf(merged, 'orderUpdate').map((u) => [u.orderId, u.reason]), [[orderIdOf(sell), 'funds']],
    'the sell of 6 No no longer fits the 3 left')
  t.equal(accountOf(h, alice)?.usdcMicros, 7 * USDC)
  const before = stateOf(h)
  const over = sync(h, 4, [ctf('merge', alice, yes, 50 * USDC), ctf('split', alice, yes, 50 * USDC)])
  t.strictSame(Harness.eventsOf(over, 'ledger').map((e) => [e.action, e.amountMicros]),
    [['merge', 50 * USDC], ['split', 50 * USDC]], 'the whole amounts, as the chain moved them')
  t.strictSame({ ...stateOf(h), chainBlock: 0, markets: [] }, { ...before, chainBlock: 0, markets: [] },
    'the 47 of each token the merge left owed, the split paid back: every balance as before')
  const aliceAccount = h.engine.accountsByAddress.get(alice)!
  t.strictSame([...aliceAccount.shares.values()].map((s) => s.owedMicros), [0, 0])
  t.strictSame(Harness.eventsOf(sync(h, 5, [ctf('split', alice, 'not-listed', USDC)]), 'ledger'), [],
    'a token of no listed market is not the ledger\'s')
})

t.test('redemptions on chain pay the winning token only, once the engine resolved the market', async (t) => {
  const h = new Harness()
  const { marketId, yes, no } = h.market()
  sync(h, 1, [usdc('', alice, 10 * USDC), ctf('split', alice, yes, 10 * USDC)])
  t.strictSame(Harness.eventsOf(sync(h, 2, [ctf('redeem', alice, yes, USDC)]), 'ledger'), [],
    'not resolved here: not Predex\'s redemption, passed over')
  h.apply({ kind: 'resolveMarket', marketId, outcome: 'No' })
  const redeemed = sync(h, 3, [ctf('redeem', alice, yes, 4 * USDC), ctf('redeem', alice, no, 10 * USDC)])
  t.strictSame(Harness.eventsOf(redeemed, 'ledger').map((e) => [e.action, e.amountMicros, e.payoutMicros]),
    [['redeem', 4 * USDC, 0], ['redeem', 10 * USDC, 10 * USDC]])
  t.equal(accountOf(h, alice)?.usdcMicros, 10 * USDC, 'No won: its 10 paid out, the 4 Yes burnt for nothing')
  const over = sync(h, 4, [ctf('redeem', alice, no, USDC)])
  t.strictSame(Harness.eventsOf(over, 'ledger').map((e) => [e.action, e.amountMicros, e.payoutMicros]),
    [['redeem', USDC, USDC]], 'more than the ledger holds: the chain paid it, and the ledger owes the share')
  t.equal(accountOf(h, alice)?.usdcMicros, 11 * USDC)
  t.equal(h.engine.accountsByAddress.get(alice)?.sharesOf(1, no).owedMicros, USDC)
})

t.test('a fact\'s transaction is in the ledger and allowance events it makes, for the ledger\'s records', async (t) => {
  const h = new Harness()
  const { yes } = h.market()
  const tx = { transactionHash: `0x${'cd'.repeat(32)}`, blockNumber: 17 }
  const synced = sync(h, 20, [{ ...usdc('', alice, 5 * USDC), ...tx }, { ...allowance(alice, USDC), ...tx },
    { ...ctf('split', alice, yes, USDC), ...tx }])
  t.strictSame(Harness.eventsOf(synced, 'ledger').map((e) => [e.action, e.chainTransaction]),
    [['credit', tx], ['split', tx]])
  t.strictSame(Harness.eventsOf(synced, 'allowance').map((e) => e.chainTransaction), [tx])
  t.notOk('chainTransaction' in Harness.eventsOf(sync(h, 21, [usdc('', alice, USDC)]), 'ledger')[0]!,
    'none for a fact journaled before facts named their transaction')
})

t.test('the chain block is in the snapshot (version 6) and survives a round trip; without a chain, no change', async (t) => {
  const h = new Harness()
  sync(h, 42, [usdc('', alice, USDC)])
  const bytes = encodeSnapshot(h.engine)
  t.equal(bytes[8], 6, 'version 6 once a chain is followed')
  const loaded = decodeSnapshot(bytes)
  t.equal(loaded.chainBlock, 42)
  t.equal(stateHashOf(loaded), stateHashOf(h.engine))
  const plain = new Harness()
  plain.fund(alice, USDC)
  t.equal(encodeSnapshot(plain.engine)[8], 4, 'a state without a chain or groups keeps version 4\'s bytes')
})

function orderIdOf(applied: ReturnType<Harness['place']>): string {
  const accepted = Harness.eventsOf(applied, 'orderAccepted')[0]
  if (accepted === undefined) throw new Error(`not accepted: ${JSON.stringify(applied.result)}`)
  return accepted.orderId
}
