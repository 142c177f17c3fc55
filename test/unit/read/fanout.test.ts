/**
 * The fan-out with fakes: each batch reaches the read model, then its save, then every subscriber
 * in registration order; a throwing subscriber is logged and the others still get the batch (it
 * stays registered); unsubscribing stops delivery; close leaves the source.
 */
import t from 'tap'
import { FanOut, type OutcomeSubscriber } from '../../../src/read/fanout.js'
import type { EngineEvent } from '../../../src/engine/event.js'
import type { Outcome } from '../../../src/host/messages.js'
import { lineLog, SILENT_LOG } from '../../../src/log.js'

const credited: EngineEvent = { type: 'ledger', action: 'credit', address: '0x1', marketId: '', amountMicros: 1, payoutMicros: 0 }

function outcome(seq: number): Outcome {
  return { requestId: seq, seq, timeMs: 1_000 * seq, recorded: true, result: { ok: true }, events: [credited] }
}

/** A host that delivers when told, a read model and subscribers that write what they see into one journal. */
function rig(): { fanOut: FanOut; emit: (outcomes: readonly Outcome[]) => void; seen: string[]; logged: string[];
  listeners: () => number; subscriber: (name: string, fail?: boolean) => OutcomeSubscriber } {
  const listeners = new Set<(outcomes: readonly Outcome[]) => void>()
  const seen: string[] = []
  const logged: string[] = []
  const fanOut = new FanOut({
    source: { subscribe: (listener) => (listeners.add(listener), () => void listeners.delete(listener)) },
    read: { apply: (seq, events, timeMs) => void seen.push(`read ${seq} ${events.length} ${timeMs}`) },
    save: () => void seen.push('save'),
    log: lineLog((line) => logged.push(line)),
  })
  const subscriber = (name: string, fail = false): OutcomeSubscriber => ({
    publish: (outcomes) => {
      seen.push(`${name} ${outcomes.map((o) => o.seq).join(',')}`)
      if (fail) throw new Error(`${name} is broken`)
    },
  })
  return { fanOut, emit: (outcomes) => [...listeners].forEach((listener) => listener(outcomes)), seen, logged,
    listeners: () => listeners.size, subscriber }
}

t.test('the read model, then its save, then the subscribers in registration order', (t) => {
  const { fanOut, emit, seen, listeners, subscriber } = rig()
  t.equal(listeners(), 1, 'subscribed to the source at construction')
  emit([outcome(1)])
  t.same(seen, ['read 1 1 1000', 'save'], 'before any channel registers, the read model still gets every outcome')
  seen.length = 0
  fanOut.register(subscriber('market'))
  fanOut.register(subscriber('user'))
  emit([outcome(2), outcome(3)])
  t.same(seen, ['read 2 1 2000', 'read 3 1 3000', 'save', 'market 2,3', 'user 2,3'])
  t.end()
})

t.test('a throwing subscriber is logged; the others still get the batch, and so does it next time', (t) => {
  const { fanOut, emit, seen, logged, subscriber } = rig()
  fanOut.register(subscriber('first'))
  fanOut.register(subscriber('broken', true))
  fanOut.register(subscriber('last'))
  emit([outcome(1), outcome(2)])
  t.same(seen, ['read 1 1 1000', 'read 2 1 2000', 'save', 'first 1,2', 'broken 1,2', 'last 1,2'])
  t.equal(logged.length, 1)
  t.match(logged[0], /^ERROR fan-out: a subscriber failed \{"seqFirst":1,"seqLast":2,"err":"Error: broken is broken/)
  seen.length = 0
  emit([outcome(3)])
  t.same(seen, ['read 3 1 3000', 'save', 'first 3', 'broken 3', 'last 3'], 'still registered')
  t.end()
})

t.test('a read model that fails is not shielded: the error goes to the host, no subscriber sees the batch', (t) => {
  const seen: string[] = []
  let emit: (outcomes: readonly Outcome[]) => void = () => undefined
  const fanOut = new FanOut({
    source: { subscribe: (listener) => ((emit = listener), () => undefined) },
    read: { apply: () => { throw new Error('projection bug') } },
    save: () => void seen.push('save'),
    log: SILENT_LOG,
  })
  fanOut.register({ publish: () => void seen.push('channel') })
  t.throws(() => emit([outcome(1)]), /projection bug/)
  t.same(seen, [])
  t.end()
})

t.test('unsubscribe stops delivery; close leaves the source', (t) => {
  const { fanOut, emit, seen, listeners, subscriber } = rig()
  const unsubscribeMarket = fanOut.register(subscriber('market'))
  fanOut.register(subscriber('user'))
  unsubscribeMarket()
  emit([outcome(1)])
  t.same(seen, ['read 1 1 1000', 'save', 'user 1'])
  fanOut.close()
  t.equal(listeners(), 0, 'no longer subscribed to the source')
  t.end()
})
