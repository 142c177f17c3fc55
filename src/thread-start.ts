/**
 * Where a thread of ours starts (the engine worker, the signature pool's threads), and with which
 * flags. A module run from its TypeScript source starts its threads from sources too, with the
 * parent's flags: its module hooks are the loader that compiles them. A compiled module starts them
 * from the compiled file, and without the parent's module hooks (--import, --require, --loader,
 * from its command line and from NODE_OPTIONS): compiled code needs no loader, and every hook runs
 * again in every thread. Under tap (a TypeScript loader, a mock and a process-info hook) that made a
 * server's start take 5-8 s instead of 1, the most of a short contract test's time. Other flags
 * (--expose-gc, --enable-source-maps) still reach the threads.
 */

/** The flags that load code into a thread before its own: a value follows them, or is joined with '='. */
const HOOK_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader'])

export interface ThreadStart {
  readonly url: URL
  /** The Worker's (or piscina's) execArgv and env: undefined leaves Node's defaults (the parent's). */
  readonly execArgv?: string[]
  readonly env?: NodeJS.ProcessEnv
}

/**
 * The thread `name` (a file beside `moduleUrl`, without its extension): its .ts when `moduleUrl` is
 * a source, else its .js with the parent's hooks left out.
 */
export function threadStart(name: string, moduleUrl: string): ThreadStart {
  const source = moduleUrl.endsWith('.ts')
  const url = new URL(`./${name}.${source ? 'ts' : 'js'}`, moduleUrl)
  if (source) return { url }
  const nodeOptions = process.env['NODE_OPTIONS'] ?? ''
  // NODE_OPTIONS' flags are apart by spaces, and a value may be in double quotes (tap writes "--import=...").
  const optionsWithoutHooks = withoutHooks(nodeOptions.match(/(?:[^\s"]+|"[^"]*")+/g) ?? []).join(' ')
  const env = optionsWithoutHooks === nodeOptions.trim() ? undefined
    : { ...process.env, NODE_OPTIONS: optionsWithoutHooks }
  return { url, execArgv: withoutHooks(process.execArgv), env }
}

/** `flags` without the module hooks and their values. */
export function withoutHooks(flags: readonly string[]): string[] {
  const kept: string[] = []
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]!
    const name = flag.replaceAll('"', '').split('=', 1)[0]!
    if (!HOOK_FLAGS.has(name)) kept.push(flag)
    else if (!flag.includes('=')) i++ // its value is the next element
  }
  return kept
}
