/**
 * A text rendered at most once per `maxAgeMs`: callers in between share the last render (or the
 * one under way). For GET /metrics, whose render costs milliseconds of the front end's thread
 * (METRICS_RENDER_INTERVAL_MS says why). A failed render is not kept: the next caller renders.
 */
export class RenderCache {
  private text: Promise<string> | null = null
  private renderedMs = -Infinity

  /** `nowMs`: a monotonic clock (performance.now unless told). */
  constructor(private readonly render: () => Promise<string>, private readonly maxAgeMs: number,
    private readonly nowMs: () => number = () => performance.now()) {}

  get(): Promise<string> {
    const nowMs = this.nowMs()
    if (this.text !== null && nowMs - this.renderedMs < this.maxAgeMs) return this.text
    const text = this.render()
    this.text = text
    this.renderedMs = nowMs
    text.catch(() => {
      if (this.text === text) this.text = null
    })
    return text
  }
}
