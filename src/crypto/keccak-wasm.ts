/**
 * keccak-f[1600] in WebAssembly, written out here as its bytecode: 64-bit lanes held in 25 locals,
 * so a permutation costs about a sixth of a JavaScript one (which splits each lane into two 32-bit
 * halves) and nothing is allocated per hash. The module is generated when this file loads (a few
 * kilobytes, compiled synchronously), so there is no binary to ship and no dependency to trust.
 * It exports one function, `absorb(input, blocks, output)`: a fresh sponge absorbs `blocks` whole
 * blocks of 136 bytes at `input` (the caller has padded them) and writes the 32-byte digest at
 * `output`; and its memory, where the callers (keccak.ts, eip712.ts) lay out their inputs.
 * noble's keccak stays the reference: test/unit/crypto/keccak.test.ts compares the two.
 */

/** Bytes absorbed per permutation by keccak-256 (1600 - 2 × 256 bits). */
export const KECCAK_RATE_BYTES = 136
/** Where the round constants live in the module's memory (24 lanes). */
const ROUND_CONSTANTS_AT = 0
/** The first byte the callers may use; below it, the round constants. */
export const KECCAK_MEMORY_FREE_AT = 256
/** The module's memory: one 64 KiB page. */
export const KECCAK_MEMORY_BYTES = 65_536

export interface KeccakModule {
  /** Absorbs `blocks` padded blocks at `input`, writes the 32-byte digest at `output`. */
  readonly absorb: (input: number, blocks: number, output: number) => void
  readonly memory: Uint8Array
}

// Opcodes (WebAssembly core specification, binary format).
const OP = {
  block: 0x02, loop: 0x03, br: 0x0c, brIf: 0x0d, end: 0x0b, localGet: 0x20, localSet: 0x21, localTee: 0x22,
  i64Load: 0x29, i64Store: 0x37, i32Const: 0x41, i64Const: 0x42, i32Eqz: 0x45, i32LtU: 0x49, i32Add: 0x6a,
  i32Sub: 0x6b, i32Shl: 0x74, i64And: 0x83, i64Xor: 0x85, i64Rotl: 0x89,
} as const
const VOID = 0x40
const I32 = 0x7f
const I64 = 0x7e

// Locals: the parameters, then the 25 lanes, 5 column parities, a temporary, 25 rotated lanes,
// and the round counter.
const INPUT = 0
const BLOCKS = 1
const OUTPUT = 2
const LANE = 3
const COLUMN = LANE + 25
const TEMP = COLUMN + 5
const ROTATED = TEMP + 1
const ROUND = ROTATED + 25
const I64_LOCALS = ROUND - LANE

/** Unsigned LEB128. */
function unsigned(value: number): number[] {
  const out: number[] = []
  do {
    let byte = value & 0x7f
    value >>>= 7
    if (value !== 0) byte |= 0x80
    out.push(byte)
  } while (value !== 0)
  return out
}

/** Signed LEB128 (for i32.const and i64.const immediates within the 32-bit range). */
function signed(value: number): number[] {
  const out: number[] = []
  for (;;) {
    const byte = value & 0x7f
    value >>= 7
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) {
      out.push(byte)
      return out
    }
    out.push(byte | 0x80)
  }
}

const get = (local: number): number[] => [OP.localGet, ...unsigned(local)]
const set = (local: number): number[] => [OP.localSet, ...unsigned(local)]
/** An 8-byte-aligned memarg with a constant offset. */
const memarg = (offset: number): number[] => [3, ...unsigned(offset)]

/** The rotation of lane x + 5y, and the lane it moves to (rho and pi, from their recurrence). */
function rhoPi(): { rotation: number[]; target: number[] } {
  const rotation = new Array<number>(25).fill(0)
  const target = new Array<number>(25).fill(0)
  let [x, y] = [1, 0]
  for (let t = 0; t < 24; t++) {
    rotation[x + 5 * y] = (((t + 1) * (t + 2)) / 2) % 64
    ;[x, y] = [y, (2 * x + 3 * y) % 5]
  }
  for (let lane = 0; lane < 25; lane++) {
    const [x0, y0] = [lane % 5, Math.floor(lane / 5)]
    target[lane] = y0 + 5 * ((2 * x0 + 3 * y0) % 5)
  }
  return { rotation, target }
}

/** The 24 round constants (iota), from the specification's LFSR. */
export function roundConstants(): bigint[] {
  const constants: bigint[] = []
  let r = 1
  for (let round = 0; round < 24; round++) {
    let constant = 0n
    for (let j = 0; j < 7; j++) {
      r = ((r << 1) ^ ((r >> 7) * 0x71)) % 256
      if ((r & 2) !== 0) constant ^= 1n << ((1n << BigInt(j)) - 1n)
    }
    constants.push(constant)
  }
  return constants
}

/** One round on the lane locals: theta, rho and pi, chi, then iota with the constant of ROUND. */
function roundCode(): number[] {
  const code: number[] = []
  for (let x = 0; x < 5; x++) {
    code.push(...get(LANE + x))
    for (let y = 1; y < 5; y++) code.push(...get(LANE + x + 5 * y), OP.i64Xor)
    code.push(...set(COLUMN + x))
  }
  for (let x = 0; x < 5; x++) {
    code.push(...get(COLUMN + ((x + 4) % 5)), ...get(COLUMN + ((x + 1) % 5)), OP.i64Const, 1, OP.i64Rotl,
      OP.i64Xor, ...set(TEMP))
    for (let y = 0; y < 5; y++) code.push(...get(LANE + x + 5 * y), ...get(TEMP), OP.i64Xor, ...set(LANE + x + 5 * y))
  }
  const { rotation, target } = rhoPi()
  for (let lane = 0; lane < 25; lane++) {
    code.push(...get(LANE + lane), OP.i64Const, ...signed(rotation[lane]!), OP.i64Rotl, ...set(ROTATED + target[lane]!))
  }
  for (let lane = 0; lane < 25; lane++) {
    const [x, row] = [lane % 5, lane - (lane % 5)]
    code.push(...get(ROTATED + lane), ...get(ROTATED + row + ((x + 1) % 5)), OP.i64Const, ...signed(-1), OP.i64Xor,
      ...get(ROTATED + row + ((x + 2) % 5)), OP.i64And, OP.i64Xor, ...set(LANE + lane))
  }
  code.push(...get(LANE), ...get(ROUND), OP.i32Const, 3, OP.i32Shl, OP.i64Load, ...memarg(ROUND_CONSTANTS_AT),
    OP.i64Xor, ...set(LANE))
  return code
}

/** The body of absorb: per block, xor its 17 lanes in and run 24 rounds; then store 4 lanes. */
function absorbCode(): number[] {
  const code: number[] = [OP.block, VOID, OP.loop, VOID, ...get(BLOCKS), OP.i32Eqz, OP.brIf, 1]
  for (let lane = 0; lane < KECCAK_RATE_BYTES / 8; lane++) {
    code.push(...get(LANE + lane), ...get(INPUT), OP.i64Load, ...memarg(lane * 8), OP.i64Xor, ...set(LANE + lane))
  }
  code.push(OP.i32Const, 0, ...set(ROUND), OP.loop, VOID, ...roundCode(),
    ...get(ROUND), OP.i32Const, 1, OP.i32Add, OP.localTee, ...unsigned(ROUND), OP.i32Const, 24, OP.i32LtU,
    OP.brIf, 0, OP.end)
  code.push(...get(INPUT), OP.i32Const, ...signed(KECCAK_RATE_BYTES), OP.i32Add, ...set(INPUT),
    ...get(BLOCKS), OP.i32Const, 1, OP.i32Sub, ...set(BLOCKS), OP.br, 0, OP.end, OP.end)
  for (let lane = 0; lane < 4; lane++) code.push(...get(OUTPUT), ...get(LANE + lane), OP.i64Store, ...memarg(lane * 8))
  code.push(OP.end)
  return code
}

function section(id: number, contents: number[]): number[] {
  return [id, ...unsigned(contents.length), ...contents]
}

function text(name: string): number[] {
  return [...unsigned(name.length), ...Array.from(name, (c) => c.charCodeAt(0))]
}

/** The module's bytes: one function type, one function, one page of memory, two exports. */
export function keccakModuleBytes(): Uint8Array {
  const locals = [2, ...unsigned(I64_LOCALS), I64, 1, I32]
  const body = [...locals, ...absorbCode()]
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 3, I32, I32, I32, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0, ...unsigned(KECCAK_MEMORY_BYTES / 65_536)]),
    ...section(7, [2, ...text('absorb'), 0, 0, ...text('memory'), 2, 0]),
    ...section(10, [1, ...unsigned(body.length), ...body]),
  ])
}

/** The part of the WebAssembly API this uses (TypeScript's lib here has no declarations for it). */
interface WebAssemblyApi {
  readonly Module: new (bytes: Uint8Array) => object
  readonly Instance: new (module: object) => { readonly exports: Record<string, unknown> }
}

/** The compiled module with its round constants in place, or why it cannot run here. */
export function loadKeccakModule(): KeccakModule | string {
  const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly
  if (api === undefined) return 'no WebAssembly here'
  try {
    const exports = new api.Instance(new api.Module(keccakModuleBytes())).exports as
      { absorb: KeccakModule['absorb']; memory: { buffer: ArrayBuffer } }
    const memory = new Uint8Array(exports.memory.buffer)
    if (memory.length !== KECCAK_MEMORY_BYTES) return `memory of ${memory.length} bytes`
    const constants = new BigUint64Array(exports.memory.buffer, ROUND_CONSTANTS_AT, 24)
    roundConstants().forEach((constant, i) => (constants[i] = constant))
    return { absorb: exports.absorb, memory }
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
