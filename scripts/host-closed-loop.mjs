/**
 * A durable host's closed loop, as bench:host's sync run drives it: every command submitted with
 * at most `window` in flight (4 096 by default), resolved once all are acknowledged. Shared by
 * the scripts that measure a host of a built tree (host-ab.mjs, host-gc.mjs, host-window.mjs,
 * replay-ab.mjs).
 */
export const WINDOW = 4_096

/** A bench stream's command as a client submits it: the engine stamps seq and time. */
export const unstamped = ({ seq: _seq, timeMs: _timeMs, ...command }) => command

export async function closedLoop(host, commands, window = WINDOW) {
  let next = 0
  let done = 0
  await new Promise((resolveAll, reject) => {
    const pump = () => {
      while (next < commands.length && next - done < window) {
        host.submit(commands[next++]).then(() => {
          if (++done === commands.length) resolveAll()
          else pump()
        }, reject)
      }
    }
    pump()
  })
}
