/**
 * The gasless relay of the built-in test network: a wallet-signed approve, split, merge or
 * redeem run for its owner (docs/engine.md, "Relay"). The front end has checked the EIP-712
 * signature; the engine checks the deadline and the owner's relay nonce, runs the action exactly
 * as the standalone command (same function, same events, same rejections), and only when the
 * action succeeds consumes the nonce. A rejected relay changes nothing.
 */
import { assert } from '../stdx/assert.js'
import { Code } from './codes.js'
import type { Relay, RelayAction } from './command.js'
import type { Engine } from './engine.js'
import { approve, merge, redeem, split } from './ledger.js'
import { isSafeCount } from './order-shape.js'
import { rejection } from './rejection.js'
import { checkRelayTiming, isRelayActionKind } from './rules.js'
import type { Done, Rejection } from './result.js'

export function relay(engine: Engine, command: Relay): Done | Rejection {
  const { nonce, deadlineSec, action } = command
  if (!isSafeCount(nonce)) return rejection(Code.RELAY_INVALID, { field: 'nonce' })
  if (!isSafeCount(deadlineSec)) return rejection(Code.RELAY_INVALID, { field: 'deadlineSec' })
  if (!isRelayAction(action)) return rejection(Code.RELAY_INVALID, { field: 'action' })
  const expected = engine.accountsByAddress.get(action.address)?.relayNonce ?? 0
  const timing = checkRelayTiming(nonce, deadlineSec, command.timeMs, expected)
  if (timing !== null) return timing
  const result = run(engine, action)
  if (!result.ok) return result
  // Every action that succeeds has an account: approve creates one; split, merge and redeem
  // need funds, which only an existing account has.
  const account = engine.accountsByAddress.get(action.address)
  assert(account !== undefined, 'a relayed action that succeeded has an account')
  account.relayNonce += 1
  return result
}

function run(engine: Engine, action: RelayAction): Done | Rejection {
  switch (action.kind) {
    case 'approve': return approve(engine, action)
    case 'split': return split(engine, action)
    case 'merge': return merge(engine, action)
    case 'redeem': return redeem(engine, action)
  }
}

/** Inputs may be anything at run time: the action must be an object of one of the four kinds. */
function isRelayAction(action: unknown): action is RelayAction {
  return typeof action === 'object' && action !== null && isRelayActionKind((action as { kind?: unknown }).kind)
}
