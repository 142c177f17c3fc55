/**
 * What the ledger's tests share (ledger.test.ts, ledger-shares.test.ts): the accounts, credit and
 * approve in one call, and the exact `ledger`, `balance` and `allowance` events.
 */
import { Harness, addressOf } from '../../support/harness.js'
import type { ApplyResult } from '../../../src/engine/engine.js'

export const alice = addressOf(1)
export const bob = addressOf(2)
export const carol = addressOf(3)
export const dave = addressOf(4)
export const erin = addressOf(5)

export function credit(h: Harness, address: string, usdcMicros: number, gasMicros = 0): ApplyResult {
  return h.apply({ kind: 'credit', address, usdcMicros, gasMicros })
}
export function approve(h: Harness, address: string, usdcAllowanceMicros: number): ApplyResult {
  return h.apply({ kind: 'approve', address, usdcAllowanceMicros })
}
export function ledgerEvent(action: 'credit' | 'split' | 'merge' | 'redeem', address: string, marketId: string, amountMicros: number, payoutMicros: number) {
  return { type: 'ledger', action, address, marketId, amountMicros, payoutMicros }
}
export function balanceEvent(address: string, asset: string, balanceMicros: number, heldMicros: number) {
  return { type: 'balance', address, asset, balanceMicros, heldMicros }
}
export function allowanceEvent(address: string, usdcAllowanceMicros: number, sharesApproved: boolean) {
  return { type: 'allowance', address, usdcAllowanceMicros, sharesApproved }
}
