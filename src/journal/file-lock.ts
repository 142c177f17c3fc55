/**
 * A lock the kernel holds for us: an exclusive advisory lock on an open file description
 * (Linux `fcntl(F_OFD_SETLK)`, `flock` elsewhere), through fs-native-extensions' prebuilt
 * binding. Node has no such call of its own. The kernel drops the lock when the file is closed,
 * and so when its process dies in any way (kill -9 included, before the process is even reaped):
 * nothing is left to judge stale. Taking it is one atomic system call, so two processes can never
 * both succeed. Two opens of one file in the same process conflict too (the lock belongs to the
 * open file description, not to the process).
 */
import { createRequire } from 'node:module'

interface LockBinding {
  /** true when the lock was taken; false when another open file description holds it. */
  tryLock(fd: number): boolean
}

let binding: LockBinding | null = null

function lockBinding(): LockBinding {
  if (binding === null) {
    try {
      binding = createRequire(import.meta.url)('fs-native-extensions') as LockBinding
    } catch (error) {
      throw new Error('cannot load fs-native-extensions, which takes the data directory\'s lock: '
        + `${(error as Error).message}. Run \`npm ci\` on this machine.`, { cause: error })
    }
  }
  return binding
}

/** Takes the exclusive lock of the open file `fd` without waiting: true if taken, false if held elsewhere. */
export function tryLockFile(fd: number): boolean {
  return lockBinding().tryLock(fd)
}
