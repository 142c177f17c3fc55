/**
 * A TCP proxy on 127.0.0.1 that a test can cut, as a network partition cuts a cable: `partition()`
 * stops carrying bytes both ways on every connection, open or new, without closing any (TCP
 * connections survive a partition: neither end is told, what is sent waits); `heal()` carries
 * them again, the waiting bytes first. Stopped (every connection destroyed) when the test ends.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  /** `127.0.0.1:<port>`: what the cut-off side connects to. */
  readonly url: string
  partition(): void
  heal(): void
}

export async function startTcpProxy(t: { teardown: (fn: () => Promise<void>) => void }, target: string):
  Promise<TcpProxy> {
  const [host, port] = target.split(':') as [string, string]
  const links = new Set<Link>()
  let cut = false
  const server: Server = createServer((client) => {
    const upstream = connect({ host, port: Number(port) })
    const link = new Link(client, upstream)
    links.add(link)
    if (cut) link.partition()
    const end = (): void => {
      links.delete(link)
      client.destroy()
      upstream.destroy()
    }
    client.once('error', end).once('close', end)
    upstream.once('error', end).once('close', end)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const link of links) link.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port')
  return {
    url: `127.0.0.1:${address.port}`,
    partition: () => {
      cut = true
      for (const link of links) link.partition()
    },
    heal: () => {
      cut = false
      for (const link of links) link.heal()
    },
  }
}

/**
 * One proxied connection. Bytes read while it is cut wait here, and the sockets are paused so
 * that the rest waits in the kernel's buffers; forwarded by hand rather than piped, since a pipe
 * resumes a paused source on its destination's 'drain'.
 */
class Link {
  private cut = false
  private readonly waiting: { to: Socket; chunk: Buffer }[] = []

  constructor(private readonly client: Socket, private readonly upstream: Socket) {
    client.on('data', (chunk: Buffer) => this.carry(upstream, chunk))
    upstream.on('data', (chunk: Buffer) => this.carry(client, chunk))
  }

  partition(): void {
    this.cut = true
    this.client.pause()
    this.upstream.pause()
  }

  heal(): void {
    this.cut = false
    for (const { to, chunk } of this.waiting.splice(0)) to.write(chunk)
    this.client.resume()
    this.upstream.resume()
  }

  destroy(): void {
    this.client.destroy()
    this.upstream.destroy()
  }

  private carry(to: Socket, chunk: Buffer): void {
    if (this.cut) this.waiting.push({ to, chunk })
    else to.write(chunk)
  }
}
