/**
 * Hand-written SVG for the bench report's charts: a document with a title, a few shapes, text that
 * is always escaped, and axis ticks at round numbers. No chart library: the charts are few and
 * small, and a dependency would be more code to trust than this file. The charts themselves are in
 * bench/charts.ts.
 */

/** Text as it may appear inside an SVG element or attribute value. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[c]!};`)
}

type Attributes = Readonly<Record<string, string | number | undefined>>

function attributes(attrs: Attributes): string {
  return Object.entries(attrs).filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` ${name}="${escapeXml(typeof value === 'number' ? coordinate(value) : value!)}"`).join('')
}

/** Two decimals at most: the files stay small and diff well. */
function coordinate(value: number): string {
  return String(Math.round(value * 100) / 100)
}

export function element(name: string, attrs: Attributes, content?: string): string {
  return content === undefined ? `<${name}${attributes(attrs)}/>` : `<${name}${attributes(attrs)}>${content}</${name}>`
}

export function text(x: number, y: number, content: string, attrs: Attributes = {}): string {
  return element('text', { x, y, ...attrs }, escapeXml(content))
}

export function line(x1: number, y1: number, x2: number, y2: number, attrs: Attributes = {}): string {
  return element('line', { x1, y1, x2, y2, ...attrs })
}

export function rect(x: number, y: number, width: number, height: number, attrs: Attributes = {}): string {
  return element('rect', { x, y, width: Math.max(0, width), height: Math.max(0, height), ...attrs })
}

export function polyline(points: readonly (readonly [number, number])[], attrs: Attributes = {}): string {
  return element('polyline', { points: points.map(([x, y]) => `${coordinate(x)},${coordinate(y)}`).join(' '),
    fill: 'none', ...attrs })
}

/** A standalone SVG file: white background, a title (also the accessible name), then `body`. */
export function svgDocument(widthPx: number, heightPx: number, title: string, body: readonly string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${widthPx}" height="${heightPx}" ` +
      `viewBox="0 0 ${widthPx} ${heightPx}" role="img" font-family="sans-serif" font-size="12">`,
    element('title', {}, escapeXml(title)),
    rect(0, 0, widthPx, heightPx, { fill: 'white' }),
    text(widthPx / 2, 22, title, { 'text-anchor': 'middle', 'font-size': 15, 'font-weight': 'bold' }),
    ...body,
    '</svg>',
  ].join('\n') + '\n'
}

/** Round tick values from 0 to at least `max`, about `count` of them (steps of 1, 2 or 5 x 10^k). */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1]
  const raw = max / count
  const magnitude = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!
  const ticks: number[] = []
  for (let i = 0; ticks.length === 0 || ticks[ticks.length - 1]! < max; i++) {
    ticks.push(Number((i * step).toPrecision(12)))
  }
  return ticks
}

/** 1 234 567 -> "1.2 M", 45 000 -> "45 k", 0.25 -> "0.25": tick labels stay short. */
export function shortNumber(value: number): string {
  const abs = Math.abs(value)
  if (abs >= 1e6) return `${Number((value / 1e6).toPrecision(3))} M`
  if (abs >= 1e4) return `${Number((value / 1e3).toPrecision(3))} k`
  if (abs >= 100 || abs === 0) return String(Math.round(value))
  return String(Number(value.toPrecision(3)))
}
