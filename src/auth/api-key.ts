/**
 * An API key's lookup, bounded: a claimed key longer than any key Predex issues (API_KEY_CHARS_MAX)
 * is unknown at once, never hashed into the credentials' table nor kept anywhere. Both the L2
 * check and the WebSocket credential look keys up through it.
 */
import { API_KEY_CHARS_MAX } from '../limits.js'
import type { ApiCredential } from './l2.js'

export function lookupBounded(lookup: (apiKey: string) => ApiCredential | undefined, apiKey: string):
  ApiCredential | undefined {
  return apiKey.length > API_KEY_CHARS_MAX ? undefined : lookup(apiKey)
}
