/** The first line of an error's message (viem's and native bindings' run to many lines), or the value as text. */
export function firstLineOf(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error)
}
