/**
 * A process-wide watch started by its first holder and stopped when the last lets go (several
 * servers may share a process: the tests'). `hold()` answers the release, which is idempotent.
 */
export interface Startable {
  start(): void
  stop(): void
}

export function heldOnce(make: () => Startable): () => () => void {
  let shared: Startable | null = null
  let holders = 0
  return () => {
    holders++
    shared ??= make()
    shared.start()
    let released = false
    return () => {
      if (released) return
      released = true
      holders--
      if (holders === 0) {
        shared?.stop()
        shared = null
      }
    }
  }
}
