/** Waits until `check` holds, polling every `pollMs`; throws after `timeoutMs`. Returns the ms it took. */
export async function eventually(check: () => boolean, timeoutMs: number, what: string, pollMs = 20): Promise<number> {
  const started = Date.now()
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
  return Date.now() - started
}

/** Reads until `done` holds; throws, with the last value read, after `waitMsMax`. */
export async function waitUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string,
  waitMsMax = 30_000): Promise<T> {
  const deadline = Date.now() + waitMsMax
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`${what}: not within ${waitMsMax} ms (last: ${JSON.stringify(value)})`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
