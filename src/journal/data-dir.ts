/**
 * The data directory holds what no other user of the machine may read: API keys, secrets and
 * passphrases (journaled), the admin key, the journal and the read store. So it is the owner's
 * alone: the folder 0700, each file and folder in it 0600 / 0700, whatever the umask the files
 * were made under (lmdb-js makes its files 0644 less the umask), and an existing folder made by
 * someone with a wider umask is narrowed at start.
 */
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const OWNER_ONLY_DIR = 0o700
const OWNER_ONLY_FILE = 0o600

/** Creates `dir` (and its parents) if needed, and makes it the owner's alone. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: OWNER_ONLY_DIR })
  chmodSync(dir, OWNER_ONLY_DIR)
}

/** Makes every file and folder below `dir` the owner's alone (once its stores are open). */
export function restrictBelow(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) {
      chmodSync(path, OWNER_ONLY_DIR)
      restrictBelow(path)
    } else {
      chmodSync(path, OWNER_ONLY_FILE)
    }
  }
}
