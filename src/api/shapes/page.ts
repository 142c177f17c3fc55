/**
 * One page of a list (Polymarket's pagination, reference section 6): the cursor is base64 of a
 * decimal offset, `MA==` the first page, `LTE=` the end (a client follows `next_cursor` until it).
 */

export type Page<T> = {
  /** The page size asked for (default 100, at most 500). */
  readonly limit: number
  /** Items on this page. */
  readonly count: number
  readonly next_cursor: string
  readonly data: readonly T[]
}
