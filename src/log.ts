/**
 * The server's log: pino, JSON lines by default (one object per line, for collectors), readable
 * lines when the output is a terminal or `--log-format pretty`. Every module logs through `Log`
 * with a message and named fields (never a value spliced into the message when it can be a field),
 * so a collector can filter on `requestId`, `apiKey`, `route` or `code`.
 *
 * Secrets never reach a line: call sites log identifiers (API key ids, addresses, order hashes),
 * never headers or bodies, and the redaction below is the second line for a field that slips in
 * under a secret's name (test/contract/log-secrets.test.ts runs a session with real credentials
 * and searches the output for each of them).
 */
import { pino, type DestinationStream, type Logger } from 'pino'

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const
export type LogLevel = typeof LOG_LEVELS[number]
export type LogFormat = 'json' | 'pretty'

/** Named values of a line; an `err` field is written with its type, message and stack. */
export type LogFields = Readonly<Record<string, unknown>>

export interface Log {
  debug(message: string, fields?: LogFields): void
  info(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  error(message: string, fields?: LogFields): void
  /** False when debug lines are dropped: the per-request line costs nothing then. */
  readonly debugEnabled: boolean
}

/** Field names whose values are secrets wherever they appear (one level deep, as fields are flat). */
const SECRET_FIELDS = ['secret', 'passphrase', 'signature', 'adminKey', 'masterKey', 'privateKey', 'headers', 'body']
const REDACTED_PATHS = SECRET_FIELDS.flatMap((name) => [name, `*.${name}`])

class PinoLog implements Log {
  constructor(private readonly logger: Logger) {}

  get debugEnabled(): boolean {
    return this.logger.isLevelEnabled('debug')
  }

  debug(message: string, fields: LogFields = {}): void {
    this.logger.debug(fields, message)
  }

  info(message: string, fields: LogFields = {}): void {
    this.logger.info(fields, message)
  }

  warn(message: string, fields: LogFields = {}): void {
    this.logger.warn(fields, message)
  }

  error(message: string, fields: LogFields = {}): void {
    this.logger.error(fields, message)
  }
}

export interface LogOptions {
  readonly level: LogLevel
  readonly format: LogFormat
  /** Where lines go; standard output when absent. */
  readonly destination?: DestinationStream
}

/** The server's log. Pretty printing loads pino-pretty only when asked for (it is slow to load). */
export async function openLog(options: LogOptions): Promise<Log> {
  const settings = {
    level: options.level,
    base: { pid: process.pid },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  }
  if (options.format === 'json') {
    return new PinoLog(pino(settings, options.destination ?? pino.destination({ dest: 1, sync: true })))
  }
  const { default: pretty } = await import('pino-pretty')
  const stream = pretty({ colorize: options.destination === undefined && process.stdout.isTTY,
    translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true,
    ...(options.destination === undefined ? {} : { destination: options.destination }) })
  return new PinoLog(pino(settings, stream))
}

/** A log that drops everything (benchmarks, tests that do not read it). */
export const SILENT_LOG: Log = {
  debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined,
  debugEnabled: false,
}

/**
 * A log that hands each line to `push` as "LEVEL message {fields}": for tests that assert what
 * was logged without parsing JSON.
 */
export function lineLog(push: (line: string) => void, debugEnabled = false): Log {
  const line = (level: string) => (message: string, fields?: LogFields): void => {
    if (level === 'DEBUG' && !debugEnabled) return
    push(fields === undefined ? `${level} ${message}` : `${level} ${message} ${JSON.stringify(fields, errorText)}`)
  }
  return { debug: line('DEBUG'), info: line('INFO'), warn: line('WARN'), error: line('ERROR'), debugEnabled }
}

function errorText(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.stack ?? value.message : value
}
