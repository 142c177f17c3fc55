/**
 * What both compat suites (clob-client 5.8.1 and clob-client-v2 1.1.0) share: a viem wallet that
 * signs locally, the engine's exact holdings of an address checked against what the client reads
 * through getBalanceAllowance, and the check that a client result is not an error object.
 */
import type { Test } from 'tap'
import { createWalletClient, custom, type WalletClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { TestServer } from '../support/rest-harness.js'

/** A wallet with a local account: it signs typed data itself, so the transport is never used. */
export function walletOf(privateKey: `0x${string}`): WalletClient {
  return createWalletClient({ account: privateKeyToAccount(privateKey), transport: custom({ request: async () => {
    throw new Error('no RPC in this test')
  } }) })
}

/** What the engine holds for an address: USDC and, per token, balance and hold. */
export interface Holdings {
  readonly usdc: number
  readonly usdcHeld: number
  readonly shares: Record<string, { balance: number; held: number }>
}

export async function engineHoldings(server: TestServer, address: string): Promise<Holdings> {
  const answer = await server.predex.context.host.query({ kind: 'account', address })
  if (answer.kind !== 'account') throw new Error('unexpected answer')
  const a = answer.account
  return {
    usdc: a?.usdcMicros ?? 0,
    usdcHeld: a?.usdcHeldMicros ?? 0,
    shares: Object.fromEntries((a?.shares ?? []).map((s) => [s.tokenId, { balance: s.balanceMicros, held: s.heldMicros }])),
  }
}

/** A party as the holdings check sees it: whichever client it uses reads its balances. */
export interface HeldBy {
  readonly name: string
  /** Lower-case, as the engine keys accounts. */
  readonly address: string
  /** The balance its client reads with getBalanceAllowance: USDC (token null) or a token's. */
  balanceOf(tokenId: string | null): Promise<string>
}

export interface ExpectedHoldings {
  readonly usdc: number
  readonly usdcHeld?: number
  readonly shares?: Record<string, [balance: number, held: number]>
}

/**
 * The engine's exact picture (USDC, USDC held, then the tokens not at zero), and the same balances
 * through the client: /balance-allowance reports the balance, holds included.
 */
export async function expectHoldings(t: Test, server: TestServer, p: HeldBy, expected: ExpectedHoldings,
  what: string): Promise<void> {
  const h = await engineHoldings(server, p.address)
  const shares = Object.fromEntries(Object.entries(h.shares).filter(([, s]) => s.balance !== 0 || s.held !== 0)
    .map(([token, s]) => [token, [s.balance, s.held]]))
  t.same({ usdc: h.usdc, usdcHeld: h.usdcHeld, shares },
    { usdc: expected.usdc, usdcHeld: expected.usdcHeld ?? 0, shares: expected.shares ?? {} }, `${p.name}: ${what} (engine)`)
  t.equal(await p.balanceOf(null), String(expected.usdc), `${p.name}: ${what}: USDC via getBalanceAllowance`)
  for (const [token, [balance]] of Object.entries(expected.shares ?? {})) {
    t.equal(await p.balanceOf(token), String(balance),
      `${p.name}: ${what}: token ${token.slice(0, 8)}… via getBalanceAllowance`)
  }
}

/** A client result that is not an error object (the clients return errors rather than throwing). */
export function ok<T>(t: Test, result: T, what: string): T {
  const error = (result as { error?: unknown } | null)?.error
  t.equal(error, undefined, `${what}: no error${error === undefined ? '' : `: ${JSON.stringify(result)}`}`)
  return result
}
