/**
 * The suite judges each figure against the threshold that issue 29 and ../shared/spec/benchmarks.md
 * set for it. The gRPC order-entry stream's was 1 x REST in bench/targets.ts while both say 2 x, so
 * the report called 1.3 x "met".
 */
import t from 'tap'
import { check, TARGETS } from '../../../bench/targets.js'

function verdictOf(workload: string, field: string, value: number): string {
  const target = TARGETS.find((candidate) => candidate.workload === workload && candidate.source.startsWith(field))
  if (target === undefined) throw new Error(`no target reads ${workload}.${field}`)
  return check(target, { [workload]: { [field]: value } }).verdict
}

t.test('the order-entry stream must take in at least twice what REST does', async (t) => {
  t.equal(verdictOf('grpc', 'stream_vs_rest', 1.3), 'NOT met', '1.3 x REST is short of 2 x')
  t.equal(verdictOf('grpc', 'stream_vs_rest', 1.99), 'NOT met')
  t.equal(verdictOf('grpc', 'stream_vs_rest', 2), 'met')
})

t.test('unary PlaceOrder: at least 0.8 x REST', async (t) => {
  t.equal(verdictOf('grpc', 'unary_vs_rest', 0.79), 'NOT met')
  t.equal(verdictOf('grpc', 'unary_vs_rest', 0.8), 'met')
})

t.test('a REST target not met says what this machine allows at most, and whether the target is beyond it', async (t) => {
  const target = TARGETS.find((candidate) => candidate.source === 'intake_vs_pool')!
  const short = check(target, { rest: { intake_vs_pool: 0.12, intake_vs_pool_reachable: 0.45 } })
  t.equal(short.verdict, 'NOT met')
  t.match(short.marginText, /this machine allows at most 45 %, so the target is out of reach here$/)
  const reachable = check(target, { rest: { intake_vs_pool: 0.12, intake_vs_pool_reachable: 0.9 } })
  t.match(reachable.marginText, /this machine allows at most 90 %$/)
  t.equal(check(target, { rest: { intake_vs_pool: 0.85, intake_vs_pool_reachable: 0.9 } }).marginText.includes('allows'),
    false, 'a target met says nothing of the bound')
  t.equal(check(target, { rest: { intake_vs_pool: 0.12 } }).marginText.includes('allows'), false,
    'an older report without the bound')
})

t.test('the ack target not met says the least the disk allows, as the step\'s arrivals see it', async (t) => {
  const target = TARGETS.find((candidate) => candidate.source === 'ack_p99_ms / disk_flush_p99_ms')!
  const stalled = check(target, { host: { ack_p99_ms: 60, disk_flush_p99_ms: 0.5, disk_arrival_p99_to_flush_p99: 40 } })
  t.equal(stalled.verdict, 'NOT met')
  t.match(stalled.marginText, /this machine allows no less than 40\.00 x, so the target is out of reach here$/)
  const steady = check(target, { host: { ack_p99_ms: 6, disk_flush_p99_ms: 0.5, disk_arrival_p99_to_flush_p99: 2.5 } })
  t.match(steady.marginText, /this machine allows no less than 2\.50 x$/, 'a disk that allows the target: the code is short')
})

t.test('a reported figure of zero reads as zero', async (t) => {
  // The report read "none found (no rate tried kept it)" for the engine's 0 scavenges per 100 000
  // commands: a leftover of the knee's wording from when the knee was a figure without threshold.
  const target = TARGETS.find((candidate) => candidate.source === 'scavenges_per_100k')!
  const zero = check(target, { engine: { scavenges_per_100k: 0 } })
  t.equal(zero.verdict, 'reported')
  t.equal(zero.measuredText, '0')
  t.equal(check(target, { engine: { scavenges_per_100k: 0.2 } }).measuredText, '0.2')
})
