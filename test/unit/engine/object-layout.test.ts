/**
 * Issue 30 moved resting orders from objects into typed arrays. What the old layout wrote must
 * still mean the same (docs/engine.md, "Orders in typed arrays"): its journal replays into the new
 * layout with the same answers and the same state hash, and its snapshot loads into the new layout
 * with the same hash, then trades on exactly as the replayed engine does.
 */
import t from 'tap'
import { gunzipSync } from 'node:zlib'
import { Engine } from '../../../src/engine/engine.js'
import { decodeSnapshot, encodeSnapshot, stateHashOf } from '../../../src/engine/snapshot.js'
import { OBJECT_LAYOUT_FIXTURE as FIXTURE } from './object-layout.fixture.js'
import { runObjectLayoutWorkload } from './object-layout-workload.js'

const oldSnapshot = (): Uint8Array => Uint8Array.from(gunzipSync(Buffer.from(FIXTURE.snapshotGzipBase64, 'base64')))

t.test('the old layout\'s journal replays into the new one: same answers, same state hash', (t) => {
  const engine = new Engine({ hashSeed: 99 })
  const run = runObjectLayoutWorkload(engine)
  t.equal(run.commandsDigest, FIXTURE.commandsDigest,
    'the workload still makes the fixture\'s commands (if not, the workload changed, not the engine)')
  t.equal(run.answersDigest, FIXTURE.answersDigest, 'every result and event as the object layout gave them')
  t.equal(stateHashOf(engine), FIXTURE.stateHash, 'the same state hash')
  t.equal(engine.orders.live, FIXTURE.liveOrders, 'the same live orders')
  t.equal(engine.orders.ended, FIXTURE.endedOrders, 'the same retained ended orders')
  t.end()
})

t.test('the old layout\'s snapshot loads into the new one and trades on as the replay does', (t) => {
  const bytes = oldSnapshot()
  const loaded = decodeSnapshot(bytes, { hashSeed: 7 })
  t.equal(stateHashOf(loaded), FIXTURE.stateHash, 'the snapshot\'s state hash')
  t.same(encodeSnapshot(loaded), bytes, 'written back byte for byte')
  t.ok(loaded.orders.live > 100, `the snapshot holds resting orders (${loaded.orders.live})`)
  // Both engines go on with the workload's next commands, which cancel and fill the orders that
  // rested in the snapshot: every answer must agree, and the end state.
  const replayed = new Engine({ hashSeed: 3 })
  const { workload } = runObjectLayoutWorkload(replayed)
  let differences = 0
  for (let i = 0; i < 2000 && differences === 0; i++) {
    const generated = workload.next()
    const fromLoaded = loaded.apply({ ...generated, seq: loaded.seq + 1 })
    const fromReplayed = replayed.apply({ ...generated, seq: replayed.seq + 1 })
    workload.observe(generated, fromLoaded.result, fromLoaded.events)
    if (JSON.stringify(fromLoaded) !== JSON.stringify(fromReplayed)) {
      differences++
      t.fail(`command ${i} (${generated.kind}) answered differently on the loaded engine`)
    }
  }
  t.equal(differences, 0, 'the loaded and the replayed engine answer alike')
  t.equal(stateHashOf(loaded), stateHashOf(replayed), 'and end in the same state')
  t.end()
})
