/**
 * A wait that something else can cut short: a test client's reader sleeps until its deadline or
 * until a message arrives (`wake`), whichever comes first, then checks again.
 */
export class Waker {
  private waking: (() => void) | null = null

  /** Resolves after `ms`, or at the next `wake()`. */
  async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      this.waking = () => {
        clearTimeout(timer)
        resolve()
      }
    })
    this.waking = null
  }

  wake(): void {
    this.waking?.()
  }
}
