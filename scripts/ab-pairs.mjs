/**
 * What the A/B scripts (engine-ab, replay-ab, host-ab, codec-ab) share: the median, the pairs of
 * runs whose order alternates (A then B, then B then A, ...), each printed with its ratio B / A,
 * then the median ratio (`rateA()` and `rateB()` each run one measurement, a child process, and
 * return a rate), and their command line.
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

/**
 * The two trees and the number of pairs from the command line of an A/B script (`<A> <B> [--pairs
 * N]`); prints the usage and exits with 2 when a tree is missing.
 */
export function treesAndPairs(args, script, defaultPairs) {
  const [a, b] = args.filter((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--pairs')
  if (a === undefined || b === undefined) {
    process.stderr.write(`usage: node scripts/${script} <built tree A> <built tree B> [--pairs N]\n`)
    process.exit(2)
  }
  const at = args.indexOf('--pairs')
  return { a, b, pairs: at < 0 ? defaultPairs : Number(args[at + 1]) }
}
