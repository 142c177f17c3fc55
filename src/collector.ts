/**
 * What V8's collector is told about this process's objects.
 *
 * V8 watches where objects are allocated, and when most objects from one site outlive a young
 * collection it allocates that site's objects in the old generation from then on (allocation-site
 * pretenuring). A host with thousands of commands in flight is exactly what trips it: each
 * command's promise, pending entry and outcome live for the ack's milliseconds, long enough to be
 * alive at a scavenge under load, and die right after. Once tenured, every command's objects are
 * garbage in the old generation, which grew by about 700 bytes a command until a full collection
 * (the engine host's closed loop, main thread), and the scavenges that remained cost more, not
 * less. Measured (docs/performance.md, "A Map's old tables, objects tenured too soon, and snapshots
 * off the commit path"): with
 * this setting and the host's pending table, 50 bytes a command promoted and 0.25 µs of scavenges
 * on the main thread against 650-820 bytes and 1.0-1.3 µs; the engine alone is unchanged.
 *
 * Process-wide (worker threads share V8's flags), so it is called once, first thing, by the
 * entry points that run a host: the server (src/main.ts) and bench:host.
 */
import { setFlagsFromString } from 'node:v8'

export function keepShortLivedObjectsYoung(): void {
  setFlagsFromString('--no-allocation-site-pretenuring')
}
