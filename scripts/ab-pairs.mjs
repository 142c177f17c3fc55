/**
 * What engine-ab.mjs and replay-ab.mjs share: the median, and the pairs of runs whose order
 * alternates (A then B, then B then A, ...), each printed with its ratio B / A, then the median
 * ratio. `rateA()` and `rateB()` each run one measurement (a child process) and return a rate.
 */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

export function comparePairs(pairs, rateA, rateB) {
  const ratios = []
  for (let pair = 1; pair <= pairs; pair++) {
    const aFirst = pair % 2 === 1
    const first = aFirst ? rateA() : rateB()
    const second = aFirst ? rateB() : rateA()
    const [a, b] = aFirst ? [first, second] : [second, first]
    ratios.push(b / a)
    process.stdout.write(`pair ${pair}: A ${Math.round(a)} B ${Math.round(b)} commands/s, B / A ${(b / a).toFixed(3)}\n`)
  }
  process.stdout.write(`median B / A over ${pairs} pairs: ${median(ratios).toFixed(3)}\n`)
}
