/**
 * The two charts, drawn by lightweight-charts (bundled from npm, no CDN): candles from
 * GET /ticks/:symbol, and the portfolio's value over its history. Each container says how many
 * points it drew (`data-points`), which the browser tests read; a caption says in words what a
 * screen reader cannot see (the chart holds the library's attribution link, so it is no image).
 */
import { useEffect, useRef } from 'preact/hooks'
import { CandlestickSeries, ColorType, createChart, LineSeries, type IChartApi, type UTCTimestamp }
  from 'lightweight-charts'

export interface CandlePoint {
  readonly time: number
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
}

export interface LinePoint {
  readonly time: number
  readonly value: number
}

const LAYOUT = { layout: { background: { type: ColorType.Solid, color: '#ffffff' }, textColor: '#222222' },
  grid: { vertLines: { color: '#eeeeee' }, horzLines: { color: '#eeeeee' } },
  timeScale: { timeVisible: true, secondsVisible: false }, autoSize: true }

function useChart(draw: (chart: IChartApi) => void, deps: readonly unknown[]) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (box.current === null) return undefined
    const chart = createChart(box.current, LAYOUT)
    draw(chart)
    chart.timeScale().fitContent()
    return () => chart.remove()
  }, deps)
  return box
}

export function CandlesChart({ candles, label }: { candles: readonly CandlePoint[]; label: string }) {
  const box = useChart((chart) => {
    const series = chart.addSeries(CandlestickSeries, { upColor: '#0a7d32', downColor: '#b42318', borderVisible: false,
      wickUpColor: '#0a7d32', wickDownColor: '#b42318' })
    series.setData(candles.map((c) => ({ ...c, time: c.time as UTCTimestamp })))
  }, [candles])
  return <figure><div class="chart" ref={box} data-testid="candles" data-points={candles.length} />
    <figcaption>{label}</figcaption></figure>
}

export function LineChart({ points, label, testId }: { points: readonly LinePoint[]; label: string; testId: string }) {
  const box = useChart((chart) => {
    const series = chart.addSeries(LineSeries, { color: '#1d4ed8', lineWidth: 2 })
    series.setData(points.map((p) => ({ ...p, time: p.time as UTCTimestamp })))
  }, [points])
  return <figure><div class="chart" ref={box} data-testid={testId} data-points={points.length} />
    <figcaption>{label}</figcaption></figure>
}
