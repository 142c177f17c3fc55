/**
 * The JSON text of a value of a known shape: a string the compiler tells apart from any other, so
 * an answer sent as text made beforehand (REST's cached book) is still held to its route's shape
 * (src/api/rest/typed-route.ts). `jsonOf` makes one from a value of the shape; a text built from
 * pieces for speed is declared one with `builtJsonOf`, beside the test that compares it with
 * JSON.stringify of the value.
 */
declare const SHAPE: unique symbol

/** The JSON text of a `B`. */
export type JsonOf<B> = string & { readonly [SHAPE]: B }

export function jsonOf<B>(body: B): JsonOf<B> {
  return JSON.stringify(body) as JsonOf<B>
}

/** `text`, built from pieces, is what JSON.stringify gives of `body` (a test must show it). */
export function builtJsonOf<B>(text: string, _body: B): JsonOf<B> {
  return text as JsonOf<B>
}
