/**
 * Which implementation recovers signers on a thread (`--sig-backend`): libsecp256k1 (native) when
 * its binding loads, noble otherwise (auto); or one of them, by name. noble stays the reference
 * and the fallback: without the native binding only speed changes.
 */
import { loadNativeRecoverer } from './native-recovery.js'
import { nobleRecoverPublicKey, useRecoverer } from './signature.js'

export const SIG_BACKEND_CHOICES = ['auto', 'native', 'noble'] as const
export type SigBackendChoice = typeof SIG_BACKEND_CHOICES[number]
export type SigBackend = 'native' | 'noble'

export interface InstalledBackend {
  readonly backend: SigBackend
  /** Why auto fell back to noble (the binding's load error); null otherwise. */
  readonly fallbackReason: string | null
}

let installed: InstalledBackend | null = null

/**
 * Installs the chosen backend on this thread and says which runs. Throws when `native` is asked
 * for and its binding does not load: a server told to use it must not start slower in silence.
 */
export function installSigBackend(choice: SigBackendChoice): InstalledBackend {
  if (installed !== null && (choice === 'auto' || installed.backend === choice)) return installed
  if (choice === 'noble') {
    useRecoverer(nobleRecoverPublicKey)
    installed = { backend: 'noble', fallbackReason: null }
    return installed
  }
  const native = loadNativeRecoverer()
  if (typeof native === 'string') {
    if (choice === 'native') throw new Error(`--sig-backend native: libsecp256k1 did not load (${native})`)
    useRecoverer(nobleRecoverPublicKey)
    installed = { backend: 'noble', fallbackReason: native }
    return installed
  }
  useRecoverer(native)
  installed = { backend: 'native', fallbackReason: null }
  return installed
}
