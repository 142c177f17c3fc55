/** Deterministic test records: `length` bytes derived from `n`, so a reader can check content. */
export function recordOf(n: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length)
  let x = (n * 2654435761) >>> 0
  for (let i = 0; i < length; i++) {
    x = (x ^ (x << 13)) >>> 0
    x = (x ^ (x >>> 17)) >>> 0
    x = (x ^ (x << 5)) >>> 0
    bytes[i] = x & 0xff
  }
  return bytes
}
