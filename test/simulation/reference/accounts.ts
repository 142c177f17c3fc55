/**
 * API keys, accounts and holds (holds are always derived from the open orders).
 */
import type { RegisterApiKey, RevokeApiKey } from '../../../src/engine/command.js'
import type { CommandResult } from '../../../src/engine/result.js'
import { Code } from '../../../src/engine/codes.js'
import { type AccountState, DONE, LOT, ReferenceState, type Step, Table, USDC, refuse, rejection } from './state.js'
import { isId, isNonNegativeInt } from './validation.js'

export function registerApiKey(r: ReferenceState, c: RegisterApiKey, step: Step): CommandResult {
  const fields: readonly (readonly [string, boolean])[] = [
    ['apiKey', isId(c.apiKey)],
    ['address', isId(c.address)],
    ['secret', isId(c.secret)],
    ['passphrase', isId(c.passphrase)],
    ['nonce', isNonNegativeInt(c.nonce)],
  ]
  const bad = fields.find(([, ok]) => !ok)
  if (bad !== undefined) return rejection(refuse(Code.API_KEY_INVALID, { field: bad[0] }))
  // SPEC: a revoked key is forgotten (revoking "frees the (address, nonce) slot"), so it is
  // not "a known apiKey" and may be registered again.
  if (r.apiKeys.has(c.apiKey)) return rejection(refuse(Code.API_KEY_EXISTS, { field: 'apiKey' }))
  const slotTaken = [...r.apiKeys.values()].some((k) => k.address === c.address && k.nonce === c.nonce)
  if (slotTaken) return rejection(refuse(Code.API_KEY_EXISTS, { field: 'nonce' }))
  r.apiKeys.set(c.apiKey, { address: c.address, nonce: c.nonce })
  step.events.push({ type: 'apiKey', action: 'registered', apiKey: c.apiKey, address: c.address, nonce: c.nonce })
  return DONE
}

export function revokeApiKey(r: ReferenceState, c: RevokeApiKey, step: Step): CommandResult {
  const k = r.apiKeys.get(c.apiKey)
  if (k === undefined) return rejection(refuse(Code.API_KEY_NOT_FOUND, null))
  r.apiKeys.delete(c.apiKey)
  step.events.push({ type: 'apiKey', action: 'revoked', apiKey: c.apiKey, address: k.address, nonce: k.nonce })
  return DONE
}

export function openAccount(r: ReferenceState, address: string): AccountState {
  let a = r.accounts.get(address)
  if (a === undefined) {
    a = { usdc: 0n, allowance: 0n, sharesApproved: false, gas: 0n, relayNonce: 0, shares: new Map() }
    r.accounts.set(address, a)
  }
  return a
}

/** An account that must exist (it has funds that an accepted operation moves). */
export function mustAccount(r: ReferenceState, address: string): AccountState {
  const a = r.accounts.get(address)
  if (a === undefined) throw new Error(`reference: account ${address} should exist`)
  return a
}

export function heldUsdc(r: ReferenceState, address: string): bigint {
  return r.live
    .filter((o) => o.input.maker === address && o.input.side === 'BUY')
    .reduce((sum, o) => sum + BigInt(o.pips) * BigInt(o.lots), 0n)
}

export function heldShares(r: ReferenceState, address: string, tokenId: string): bigint {
  return r.live
    .filter((o) => o.input.maker === address && o.input.side === 'SELL' && o.input.tokenId === tokenId)
    .reduce((sum, o) => sum + BigInt(o.lots) * LOT, 0n)
}

/** The first token, in market order (Yes before No), in which `address` holds shares. */
export function firstHeldToken(r: ReferenceState, address: string): { tokenId: string; held: bigint } | undefined {
  for (const m of r.markets) {
    for (const tokenId of [m.input.yesTokenId, m.input.noTokenId]) {
      const held = heldShares(r, address, tokenId)
      if (held > 0n) return { tokenId, held }
    }
  }
  return undefined
}

/** All holds in one pass: (address, asset) -> held. */
export function holds(r: ReferenceState): Table<string, bigint> {
  const held = new Table<string, bigint>()
  for (const o of r.live) {
    const asset = o.input.side === 'BUY' ? USDC : o.input.tokenId
    const amount = o.input.side === 'BUY' ? BigInt(o.pips) * BigInt(o.lots) : BigInt(o.lots) * LOT
    held.set(o.input.maker, asset, (held.get(o.input.maker, asset) ?? 0n) + amount)
  }
  return held
}
