/**
 * The faces' ports checked before anything else starts. Both faces listen exclusively (no
 * SO_REUSEPORT), so a second server on a port a running one holds cannot listen; without this
 * check it would find out only after opening and recovering its data directory's journal. Here it
 * binds each port for a moment with a plain socket, which the kernel refuses on a port anyone
 * listens on, and the start stops before the data directory is touched, naming the port.
 *
 * Two servers started at the very same moment can both pass this check; the later of the two
 * real binds is then refused, and the start closes what it opened and exits (app.ts).
 */
import { createServer } from 'node:net'

export interface FacePort {
  readonly port: number
  /** What listens there, for the message: "REST and WebSocket", "gRPC". */
  readonly face: string
  /** How to choose another: "--port / PORT". */
  readonly setting: string
}

export class PortInUseError extends Error {
  override readonly name = 'PortInUseError'
  constructor(readonly host: string, readonly facePort: FacePort, detail: string) {
    super(`port ${facePort.port} on ${host} (${facePort.face}) is in use (${detail}): another process listens `
      + `there, perhaps another Predex. Stop it, or choose another port with ${facePort.setting}.`)
  }
}

/** Rejects with PortInUseError for the first of `ports` that cannot be bound on `host` now (0: any port, never). */
export async function checkPortsFree(host: string, ports: readonly FacePort[]): Promise<void> {
  for (const facePort of ports) {
    if (facePort.port !== 0) await checkPortFree(host, facePort)
  }
}

function checkPortFree(host: string, facePort: FacePort): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') reject(new PortInUseError(host, facePort, error.code))
      else reject(new Error(`cannot listen on port ${facePort.port} on ${host} (${facePort.face}): `
        + `${error.code ?? error.message}; choose another with ${facePort.setting}`, { cause: error }))
    })
    probe.listen({ host, port: facePort.port, exclusive: true }, () => probe.close(() => resolve()))
  })
}
