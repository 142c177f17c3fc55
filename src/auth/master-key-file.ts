/**
 * Where the master key comes from: the configuration (--master-key / PREDEX_MASTER_KEY), else
 * `<data-dir>/master-key`, else a new random one written there (0600) at the first start. Next to
 * it, `master-key.id` keeps the key's fingerprint (master-key.ts: it reveals nothing of the key),
 * so that a start with another key, or with the key file lost, is refused with a clear message
 * instead of silently making every API key of the data directory unusable. All of this runs
 * before the journal is opened: a refused start leaves nothing open. The key is never logged.
 */
import { closeSync, fchmodSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { MasterKey } from '../crypto/master-key.js'
import type { Log } from '../log.js'

const KEY_FILE = 'master-key'
const ID_FILE = 'master-key.id'
const OWNER_ONLY_FILE = 0o600

export function masterKeyOf(dataDir: string, configured: MasterKey | null, log: Log): MasterKey {
  const idFile = join(dataDir, ID_FILE)
  const recordedId = readIfExists(idFile)?.trim() ?? null
  const key = configured ?? storedKey(dataDir) ?? newKey(dataDir, recordedId, log)
  // A start racing this one on a new directory may have recorded its own key's first: compare with that.
  const id = recordedId ?? (writeOnce(dataDir, idFile, key.id() + '\n') ? key.id() : readIfExists(idFile)!.trim())
  if (id !== key.id()) {
    throw new Error(`the master key is not the one the API keys of ${dataDir} derive their secrets from ` +
      `(its fingerprint is in ${idFile}): start with that key (${join(dataDir, KEY_FILE)}, or --master-key / ` +
      'PREDEX_MASTER_KEY). Only to give up every API key of this data directory (each must then be created ' +
      `again), delete ${idFile}.`)
  }
  return key
}

/** The key stored in the data directory, or null if there is none. */
function storedKey(dataDir: string): MasterKey | null {
  const keyFile = join(dataDir, KEY_FILE)
  const text = readIfExists(keyFile)
  if (text === null) return null
  const key = MasterKey.fromHex(text)
  if (key === null) throw new Error(`${keyFile} is not a master key (64 hex characters): restore it from a backup`)
  return key
}

/** A new key, stored; refused if the data directory's API keys derive from one that is gone. */
function newKey(dataDir: string, recordedId: string | null, log: Log): MasterKey {
  const keyFile = join(dataDir, KEY_FILE)
  if (recordedId !== null) {
    throw new Error(`the master key is missing: ${keyFile} is gone and the API keys recorded here derive their ` +
      'secrets from it. Restore the file from a backup, or pass the key with --master-key / PREDEX_MASTER_KEY. ' +
      'Only to give up every API key of this data directory (each must then be created again), delete ' +
      `${join(dataDir, ID_FILE)}.`)
  }
  const key = MasterKey.random()
  // Never over another's: a start racing this one on a new directory may have stored its key first.
  if (!writeOnce(dataDir, keyFile, key.fileText())) return storedKey(dataDir)!
  log.warn('master key generated (not shown): back it up with the data directory; '
    + 'without it every API key must be created again', { file: keyFile })
  return key
}

function readIfExists(file: string): string | null {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/**
 * Creates `file` holding `text`, whole, durably (before the first secret derives from it) and only
 * if it does not exist yet (false then): a temporary file written and flushed, linked to the name
 * (which fails if the name is taken), and the folder flushed so the name survives a crash.
 */
function writeOnce(dir: string, file: string, text: string): boolean {
  const temporary = `${file}.${process.pid}.tmp`
  const fd = openSync(temporary, 'w', OWNER_ONLY_FILE)
  try {
    fchmodSync(fd, OWNER_ONLY_FILE) // a temporary file left by a crash keeps its mode otherwise
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    linkSync(temporary, file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    unlinkSync(temporary)
  }
  const folder = openSync(dir, 'r')
  try {
    fsyncSync(folder)
  } finally {
    closeSync(folder)
  }
  return true
}
