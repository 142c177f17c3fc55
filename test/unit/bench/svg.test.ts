/**
 * The bench report's charts (bench/svg.ts, bench/charts.ts) and its target checks
 * (bench/targets.ts): the SVG is well formed (every tag closed, no raw `<` or `&` in text), text is
 * escaped, a histogram draws one bar per bucket with heights proportional to the counts, target
 * bars are as long as their fraction of the target and say MET or NOT MET in words, and a figure a
 * workload did not print is "not measured", never a number. The SVG is checked by parsing its tags,
 * not against a stored copy, so layout changes do not break the test but a wrong bar does.
 */
import t from 'tap'
import { histogramChart, targetChart, timelineChart } from '../../../bench/charts.js'
import { histogram, type LatencyHistogram } from '../../../bench/series.js'
import { escapeXml, niceTicks } from '../../../bench/svg.js'
import { check, TARGETS, type Target } from '../../../bench/targets.js'

interface Tag {
  readonly name: string
  readonly attrs: Readonly<Record<string, string>>
}

/** Every element of `svg`, in order; throws when a tag is not closed or text holds a raw `<` or `&`. */
function parse(svg: string): Tag[] {
  const tags: Tag[] = []
  const open: string[] = []
  const token = /<(\/?)([a-z]+)((?:\s+[a-zA-Z0-9:-]+="[^"<>]*")*)\s*(\/?)>|([^<]+)/gy
  let parsedTo = 0
  for (let match = token.exec(svg); match !== null; match = token.exec(svg)) {
    parsedTo = token.lastIndex
    const [, closing, name, attrText, selfClosing, content] = match
    if (content !== undefined) {
      if (/&(?!(lt|gt|amp|quot|apos);)/.test(content)) throw new Error(`raw & in text: ${content}`)
      continue
    }
    if (closing === '/') {
      if (open.pop() !== name) throw new Error(`</${name}> closes nothing`)
      continue
    }
    const attrs = Object.fromEntries([...attrText!.matchAll(/([a-zA-Z0-9:-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]))
    tags.push({ name: name!, attrs })
    if (selfClosing !== '/') open.push(name!)
  }
  if (parsedTo !== svg.length) {
    throw new Error(`not a tag nor text at ${parsedTo}: ${svg.slice(parsedTo, parsedTo + 40)}`)
  }
  if (open.length > 0) throw new Error(`unclosed: ${open.join(', ')}`)
  return tags
}

const bars = (svg: string): Tag[] =>
  parse(svg).filter((tag) => tag.name === 'rect' && /\bbar\b/.test(tag.attrs.class ?? ''))

t.test('escapeXml escapes the five XML characters', async (t) => {
  t.equal(escapeXml(`<a href="x">Tom & Jerry's</a>`), '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&apos;s&lt;/a&gt;')
})

t.test('a histogram draws one bar per bucket, heights proportional to the counts', async (t) => {
  const known: LatencyHistogram = { label: 'known', unit: 'us', upper: [1, 1.78, 3.16, 5.62], counts: [1, 0, 4, 2],
    p50: 2, p99: 5, p999: 5.5, samples: 7 }
  const drawn = bars(histogramChart('known counts', known))
  t.equal(drawn.length, 4, 'one bar per bucket, the empty one too')
  const heights = drawn.map((bar) => Number(bar.attrs.height))
  t.equal(heights[1], 0, 'an empty bucket has no height')
  t.ok(Math.abs(heights[2]! / heights[0]! - 4) < 0.05, `4 samples: 4 x the height of 1 (${heights[2]} / ${heights[0]})`)
  t.ok(Math.abs(heights[3]! / heights[0]! - 2) < 0.05, '2 samples: 2 x the height of 1')
  t.same(drawn.map((bar) => Number(bar.attrs['data-count'])), [1, 0, 4, 2])
  const widths = new Set(drawn.map((bar) => bar.attrs.width))
  t.equal(widths.size, 1, 'log-spaced buckets drawn with equal widths')
  t.equal(parse(histogramChart('known counts', known)).filter((tag) => tag.attrs.class === 'mark').length, 3,
    'p50, p99 and p99.9 marked')
})

t.test('series.histogram counts samples into its log buckets and trims empty ends', async (t) => {
  const h = histogram('five', 'us', [100, 1, 1.5, 1, 3])
  t.same(h.upper, [1, 1.78, 3.16, 5.62, 10, 17.8, 31.6, 56.2, 100])
  t.same(h.counts, [2, 1, 1, 0, 0, 0, 0, 0, 1], 'an edge value falls in the bucket it closes')
  t.equal(h.samples, 5)
  t.equal(h.p50, 1.5)
  t.equal(h.p99, 100)
  t.same(histogram('none', 'ms', []).counts, [], 'no samples: no buckets')
  t.doesNotThrow(() => parse(histogramChart('empty', histogram('none', 'ms', []))), 'an empty histogram still draws')
})

t.test('text in charts is escaped', async (t) => {
  const evil = '<script>alert("x")</script> & co'
  const svg = histogramChart(evil, { ...histogram(evil, 'ms', [1, 2, 3]) })
  t.notMatch(svg, /<script/, 'no raw tag from a label')
  t.match(svg, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; &amp; co/)
  t.doesNotThrow(() => parse(svg))
  t.doesNotThrow(() => parse(timelineChart(evil, [{ label: evil, intervalSeconds: 0.1, perSecond: [1, 2] }])))
  t.doesNotThrow(() => parse(targetChart(evil, [{ label: evil, fractionOfTarget: 1, met: true, measuredText: evil }])))
})

t.test('a timeline is a step line through every interval', async (t) => {
  const svg = timelineChart('two', [{ label: 'a', intervalSeconds: 0.1, perSecond: [10, 20, 30] },
    { label: 'b', intervalSeconds: 0.1, perSecond: [5] }])
  const lines = parse(svg).filter((tag) => tag.attrs.class === 'series')
  t.equal(lines.length, 2, 'one line per timeline')
  t.equal(lines[0]!.attrs.points!.split(' ').length, 6, 'two points per interval')
  t.equal(lines[1]!.attrs.points!.split(' ').length, 2, 'a single interval still draws')
})

t.test('target bars: length by fraction of the target, met or not in words and class', async (t) => {
  const svg = targetChart('targets', [
    { label: 'half', fractionOfTarget: 0.5, met: false, measuredText: '2.5 x' },
    { label: 'whole', fractionOfTarget: 1, met: true, measuredText: '5 x' },
    { label: 'absent', fractionOfTarget: null, met: null, measuredText: '>= 3 x' },
  ])
  const drawn = bars(svg)
  t.equal(drawn.length, 2, 'no bar for a figure not measured')
  t.equal(drawn[0]!.attrs.class, 'bar not-met')
  t.equal(drawn[1]!.attrs.class, 'bar met')
  t.ok(Math.abs(Number(drawn[0]!.attrs.width) * 2 - Number(drawn[1]!.attrs.width)) < 0.05, 'half as long')
  t.match(svg, />NOT MET: 2\.5 x</)
  t.match(svg, />MET: 5 x</)
  t.match(svg, />not measured: &gt;= 3 x</)
  t.equal(parse(svg).filter((tag) => tag.attrs.class === 'target').length, 1, 'one target line')
})

t.test('niceTicks: round steps from 0 past the maximum', async (t) => {
  t.same(niceTicks(9), [0, 2, 4, 6, 8, 10])
  t.same(niceTicks(0.37), [0, 0.1, 0.2, 0.3, 0.4])
  t.same(niceTicks(0), [0, 1])
})

t.test('targets: met, not met by how much, not measured, not run', async (t) => {
  const byLabel = (fragment: string): Target => TARGETS.find((target) => target.label.includes(fragment))!
  const engine = check(byLabel('nodejs-order-book'), { engine: { ratio: 1.67 } })
  t.equal(engine.verdict, 'NOT met')
  t.match(engine.marginText, /3\.33 x short \(33 % of the target\)/)
  t.equal(check(byLabel('nodejs-order-book'), { engine: { ratio: 5.2 } }).verdict, 'met')
  const ack = check(byLabel('ack p99 at half'), { host: { ack_p99_ms: 435.4, disk_flush_p99_ms: 0.5 } })
  t.equal(ack.verdict, 'NOT met', 'the ack is judged against the disk of the same run')
  t.match(ack.marginText, /290\.3 x the limit/)
  t.equal(check(byLabel('ack p99 at half'), { host: { ack_p99_ms: 1.4, disk_flush_p99_ms: 0.5 } }).verdict, 'met')
  t.equal(check(byLabel('knee'), { host: {} }).verdict, 'not measured', 'a field the workload does not print')
  t.equal(check(byLabel('knee'), { host: { ack_knee_per_s: 1200, sync_commands_per_s: 40_000 } }).verdict, 'NOT met',
    'the knee is judged against the closed-loop maximum')
  t.equal(check(byLabel('knee'), { host: { ack_knee_per_s: 20_000, sync_commands_per_s: 40_000 } }).verdict, 'met')
  t.equal(check(byLabel('replay'), { host: { replay_commands_per_s: 350, engine_commands_per_s: 500 } }).value, 0.7,
    'replay falls back to the two rates')
  t.equal(check(byLabel('raw libsecp256k1'), { sig: { native_to_raw: 0, raw_libsecp256k1_per_s: 0 } }).verdict,
    'not measured', 'no native backend: not measured, not failed')
  t.equal(check(byLabel('POST /orders'), {}).verdict, 'not run')
  t.equal(check(byLabel('POST /orders'), { rest: { orders_per_s: 1000, batch_orders_per_s: 3100 } }).verdict, 'met')
})
