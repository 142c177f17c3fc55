/**
 * Only the event kinds the main thread reads cross from the engine worker (messages.ts,
 * EVENTS_CROSSING): a credit's `balance` stays on the worker, its `ledger` crosses, and so does
 * a key registration's `apiKey` (the user streams end when their key is revoked). The filter itself is checked on every kind.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EngineHost } from '../../../src/host/engine-host.js'
import { crossingEvents, EVENTS_CROSSING, type Outcome } from '../../../src/host/messages.js'
import type { EngineEvent } from '../../../src/engine/event.js'

const alice = '0x' + '1'.padStart(40, '0')

t.test('the filter keeps the kinds that cross, in order', (t) => {
  const events: EngineEvent[] = [
    { type: 'balance', address: alice, asset: 'USDC', balanceMicros: 1, heldMicros: 0 },
    { type: 'ledger', action: 'credit', address: alice, marketId: '', amountMicros: 1, payoutMicros: 0 },
    { type: 'orderRejected', orderId: '0x1', maker: alice, code: 'MARKET_NOT_FOUND', message: 'no market' },
    { type: 'allowance', address: alice, usdcAllowanceMicros: 1, sharesApproved: true },
  ] as EngineEvent[]
  t.same(crossingEvents(events).map((e) => e.type), ['ledger', 'allowance'])
  t.same(Object.entries(EVENTS_CROSSING).filter(([, crosses]) => !crosses).map(([type]) => type).sort(),
    ['balance', 'chainSynced', 'orderRejected'], 'the kinds nobody on the main thread reads')
  t.end()
})

t.test('a subscriber on the main thread gets only the crossing kinds', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'predex.crossing-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const host = await EngineHost.start({ dataDir: dir, hashSeed: 1 })
  const seen: Outcome[] = []
  host.subscribe((outcomes) => seen.push(...outcomes))
  // Without this the credit could be applied before the worker reads the subscription, and then
  // carry no events at all (this test failed that way on a fresh clone's CI run).
  await host.eventsFlowing()
  await host.submit({ kind: 'credit', address: alice, usdcMicros: 5_000_000, gasMicros: 0 })
  await host.submit({ kind: 'registerApiKey', apiKey: 'k1', address: alice, secret: 's', passphrase: 'p', nonce: 0 })
  t.same(seen.map((o) => o.events.map((e) => e.type)), [['ledger'], ['apiKey']], 'no balance; the apiKey crosses')
  await host.stop()
})
