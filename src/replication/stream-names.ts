/**
 * How the replicated command log is laid out in JetStream (issue 34): one stream, one subject,
 * one message per batch record, in order. Each message says which commands it holds in two
 * headers, so that a reader (a standby, a read replica, a starting primary) knows the engine seq
 * a stream position stands for without decoding the record. The stream's own sequence is the
 * fencing token: a writer appends message n + 1 only if the stream's last message is its n
 * (Nats-Expected-Last-Sequence), so a deposed writer's next append is refused.
 */

/** The record's first and last engine seq (decimal). */
export const FIRST_SEQ_HEADER = 'Predex-First-Seq'
export const LAST_SEQ_HEADER = 'Predex-Last-Seq'

/** The subject the records are published on: `<stream, lower case>.commands`. */
export function commandSubject(stream: string): string {
  return `${stream.toLowerCase()}.commands`
}

/** A stream name JetStream takes (no spaces, dots, wildcards or separators), checked before any connection. */
export function validStreamName(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(name)
}
