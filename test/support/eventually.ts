/** Waits until `check` holds, polling every `pollMs`; throws after `timeoutMs`. Returns the ms it took. */
export async function eventually(check: () => boolean, timeoutMs: number, what: string, pollMs = 20): Promise<number> {
  const started = Date.now()
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
  return Date.now() - started
}
