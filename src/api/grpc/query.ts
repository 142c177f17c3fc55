/**
 * The proto's query fields read as REST reads its query parameters, so both faces accept and
 * refuse the same values: a page (limit 0, the proto's absent, is the default; any other limit is
 * REST's limitOf of its text), an optional int64 of unix seconds, and '' as an absent filter.
 */
import type { PageRequest } from '../../gen/predex/v1/common_pb.js'
import { limitOf, optionalInteger, page } from '../wire.js'

/** One page of `items`, with the limit REST would apply. */
export function pageOf<T>(items: readonly T[], request: PageRequest | undefined) {
  const limitAsked = request?.limit ?? 0
  const limit = limitOf(limitAsked === 0 ? null : String(limitAsked))
  const { data, nextCursor } = page(items, request?.nextCursor ?? '', limit)
  return { limit, count: data.length, nextCursor, data }
}

/** '' (the proto's absent string) as REST's absent query parameter. */
export function orNull(text: string): string | null {
  return text === '' ? null : text
}

/** An optional int64 (unix seconds) as REST's query integer: a negative or huge one is refused as REST refuses it. */
export function secondsOf(value: bigint | undefined, field: string): number | null {
  return optionalInteger(value === undefined ? null : String(value), field)
}
