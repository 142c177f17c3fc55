/**
 * Building rejections: a code, its catalogue message, and the context that tells the client
 * exactly what was wrong (which field, which amounts).
 */
import { CODE_MESSAGES, type Code } from './codes.js'
import type { ContextValue, Rejection } from './result.js'

export function rejection(code: Code, context: Readonly<Record<string, ContextValue>> | null): Rejection {
  return { ok: false, code, message: CODE_MESSAGES[code], context }
}

