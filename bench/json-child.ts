/**
 * Runs a Node child (a benchmark, or one of its measuring processes) whose last stdout line is a
 * JSON object, and resolves with that object: the suite's workloads, bench:engine's allocation
 * children and the allocation test all run their children this way.
 */
import { spawn } from 'node:child_process'

export function runJsonChild(args: readonly string[], name: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`${name} exited with ${code ?? signal}`))
      const last = stdout.trim().split('\n').pop() ?? ''
      try {
        resolve(JSON.parse(last) as Record<string, unknown>)
      } catch {
        reject(new Error(`${name} printed no JSON line`))
      }
    })
  })
}
