/**
 * The seed of a seeded randomized test: the environment variable `variable` when set (to replay a
 * failing run from the seed it printed), else a fresh one.
 */
export function seedOf(variable: string): number {
  const given = process.env[variable]
  return given === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(given)
}
