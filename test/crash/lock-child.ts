/**
 * A process that contends for data-directory locks (directory-lock.test.ts): for each line
 * `acquire <dir>` on stdin it tries to take the lock once, without waiting, and prints `owner` or
 * `refused <pid>`; `release` gives back what it took and prints `released`.
 */
import { createInterface } from 'node:readline'
import { DataDirectoryInUseError, DirectoryLock } from '../../src/journal/directory-lock.js'

let held: DirectoryLock | null = null
for await (const line of createInterface({ input: process.stdin })) {
  const [word, dir] = line.split(' ')
  if (word === 'acquire') {
    try {
      held = DirectoryLock.acquire(dir!, 0)
      process.stdout.write('owner\n')
    } catch (error) {
      if (!(error instanceof DataDirectoryInUseError)) throw error
      process.stdout.write(`refused ${error.pid}\n`)
    }
  } else if (word === 'release') {
    held?.release()
    held = null
    process.stdout.write('released\n')
  }
}
