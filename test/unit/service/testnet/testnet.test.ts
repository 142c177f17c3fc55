/**
 * The test network's use cases without any face: the faucet's cap, gas and cooldown, a wallet's
 * balances, and the relay's checks, each refusal with its catalogue code and no journaled command.
 */
import t, { type Test } from 'tap'
import { Wallet } from '../../../../src/crypto/wallet.js'
import type { RelayStruct } from '../../../../src/crypto/eip712.js'
import { CODE_MESSAGES } from '../../../../src/engine/codes.js'
import { PredexError } from '../../../../src/errors.js'
import { FAUCET_GAS_MICROS } from '../../../../src/limits.js'
import { createMarket } from '../../../../src/service/admin/admin.js'
import { faucet, relay, relayNonceOf, walletBalances, type RelayRequest } from '../../../../src/service/testnet/testnet.js'
import { CHAIN_ID, T0_MS, USDC, fakeWorld, type FakeWorld } from '../fake-context.js'

const wallet = new Wallet('0x' + '11'.repeat(32))
const owner = wallet.address.toLowerCase()
const ZERO_CONDITION = '0x' + '0'.repeat(64)

/** A relay message signed by `signer` (the owner's wallet unless told). */
function signed(fields: Partial<RelayStruct> & { action: RelayRequest['action'] }, signer = wallet): RelayRequest {
  const struct: RelayStruct = { owner, conditionId: ZERO_CONDITION, amount: String(100 * USDC), nonce: '0',
    deadline: String(Math.floor(T0_MS / 1000) + 300), ...fields }
  return { struct, action: fields.action, amount: BigInt(struct.amount), nonce: Number(struct.nonce),
    deadlineSec: Number(struct.deadline), signature: signer.signRelay(struct, CHAIN_ID) }
}

/** Runs `what`, expects a PredexError with `code`, and checks that no command was journaled. */
async function refused(t: Test, world: FakeWorld, what: () => Promise<unknown>, code: string): Promise<PredexError> {
  const before = world.commands.length
  const error = await what().then(() => null, (e: unknown) => e)
  t.ok(error instanceof PredexError, `${code}: a catalogue error`)
  t.equal((error as PredexError).code, code)
  t.equal(world.commands.length, before, `${code}: nothing journaled`)
  return error as PredexError
}

t.test('faucet: the cap, gas only the first time, and the cooldown', async (t) => {
  const world = fakeWorld()
  const cap = await refused(t, world, () => faucet(world.context, { address: owner, usdcMicros: 1_000 * USDC + 1 }), 'INVALID_PARAMETER')
  t.same(cap.context, { field: 'amount', max: '1000' })
  t.equal(cap.message, 'amount must be more than 0 and at most 1000 USDC')
  await refused(t, world, () => faucet(world.context, { address: owner, usdcMicros: 0 }), 'INVALID_PARAMETER')
  const first = await faucet(world.context, { address: owner, usdcMicros: null })
  t.match(first, { address: owner, usdcMicros: 1_000 * USDC, gasMicros: FAUCET_GAS_MICROS, blockNumber: 1 })
  t.match(first.transactionHash, /^0x[0-9a-f]{64}$/)
  world.advance(59_000)
  const soon = await refused(t, world, () => faucet(world.context, { address: owner, usdcMicros: USDC }), 'FAUCET_COOLDOWN')
  t.same(soon.context, { address: owner, retryAfterSeconds: 1 })
  world.advance(1_000)
  const second = await faucet(world.context, { address: owner, usdcMicros: 5 * USDC })
  t.match(second, { usdcMicros: 5 * USDC, gasMicros: 0 }, 'no gas the second time')
  t.equal((await walletBalances(world.context, owner)).usdcMicros, 1_005 * USDC)
})

t.test('faucet: many new addresses cannot drain it: a budget for everyone together', async (t) => {
  // 120 credits an hour: a burst of 2 (a minute's share), then one every 30 s.
  const world = fakeWorld({ amountMicrosMax: 1_000 * USDC, cooldownMs: 60_000, creditsPerHourMax: 120 })
  const address = (n: number): string => '0x' + n.toString(16).padStart(40, '0')
  await faucet(world.context, { address: address(1), usdcMicros: null })
  await faucet(world.context, { address: address(2), usdcMicros: null })
  const drained = await refused(t, world, () => faucet(world.context, { address: address(3), usdcMicros: null }),
    'FAUCET_BUDGET')
  t.same(drained.context, { retryAfterSeconds: 30, creditsPerHour: 120 }, 'the wait for the next credit')
  world.advance(30_000)
  await faucet(world.context, { address: address(3), usdcMicros: null })
  t.pass('one more credit after the wait')
  const unbounded = fakeWorld({ amountMicrosMax: 1_000 * USDC, cooldownMs: 60_000, creditsPerHourMax: null })
  for (let n = 1; n <= 10; n++) await faucet(unbounded.context, { address: address(n), usdcMicros: null })
  t.pass('null: no bound (--rate-limits false, for benchmarks)')
})

t.test('wallet balances: zeros for a stranger; available USDC is the engine rule', async (t) => {
  const world = fakeWorld()
  t.same(await walletBalances(world.context, owner), { address: owner, gasMicros: 0, usdcMicros: 0, availableUsdcMicros: 0,
    usdcAllowanceMicros: 0, sharesApproved: false, relayNonce: 0 })
  await faucet(world.context, { address: owner, usdcMicros: 100 * USDC })
  t.equal((await walletBalances(world.context, owner)).availableUsdcMicros, 0, 'no allowance: nothing an order may hold')
  await relay(world.context, signed({ action: 'approve', amount: String(40 * USDC) }))
  t.match(await walletBalances(world.context, owner), { usdcAllowanceMicros: 40 * USDC, availableUsdcMicros: 40 * USDC, relayNonce: 1 })
})

t.test('relay: signature, deadline, nonce and market are checked before anything is journaled', async (t) => {
  const world = fakeWorld()
  const market = await createMarket(world.context, { question: 'Relay?', slug: null, description: '', tickSizeMicros: 10_000,
    minOrderSizeMicros: 5 * USDC, feeRateBps: 0, negRisk: false, endDateMs: 0, status: 'Active' })
  await faucet(world.context, { address: owner, usdcMicros: 100 * USDC })
  const other = new Wallet('0x' + '22'.repeat(32))
  const forged = await refused(t, world, () => relay(world.context, signed({ action: 'approve' }, other)), 'INVALID_SIGNATURE')
  t.match(forged.context, { check: 'signature-signer', owner, signer: other.address.toLowerCase() })
  const late = await refused(t, world, () => relay(world.context, signed({ action: 'approve', deadline: String(T0_MS / 1000 - 1) })),
    'RELAY_DEADLINE_PASSED')
  t.same([late.message, late.context], [CODE_MESSAGES.RELAY_DEADLINE_PASSED, { deadlineSec: T0_MS / 1000 - 1, nowSec: T0_MS / 1000 }])
  const ahead = await refused(t, world, () => relay(world.context, signed({ action: 'approve', nonce: '1' })), 'RELAY_NONCE_MISMATCH')
  t.same([ahead.message, ahead.context], [CODE_MESSAGES.RELAY_NONCE_MISMATCH, { expected: 0, nonce: 1 }])
  const unknown = await refused(t, world, () => relay(world.context, signed({ action: 'split', conditionId: '0x' + 'ab'.repeat(32) })),
    'MARKET_NOT_FOUND')
  t.same(unknown.context, { conditionId: '0x' + 'ab'.repeat(32) })
  t.equal(await relayNonceOf(world.context, owner), 0, 'no nonce used by a refusal')
  const approved = await relay(world.context, signed({ action: 'approve' }))
  t.equal(approved.blockNumber, world.engine.seq)
  const split = await relay(world.context, signed({ action: 'split', conditionId: market.conditionId, amount: String(10 * USDC), nonce: '1' }))
  t.equal(split.blockNumber, world.engine.seq)
  t.equal(await relayNonceOf(world.context, owner), 2)
  // An action the engine refuses keeps its ledger code and uses no nonce.
  await t.rejects(relay(world.context, signed({ action: 'merge', conditionId: market.conditionId, amount: String(1_000 * USDC), nonce: '2' })),
    { code: 'LEDGER_INSUFFICIENT_BALANCE' })
  t.equal(await relayNonceOf(world.context, owner), 2)
})
