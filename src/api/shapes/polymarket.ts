/** Bodies of Polymarket's current surface (routes/polymarket.ts). */

/** Routes answering the same body on both surfaces. */
export type PolymarketSharedBodies = object

/** Routes only under /compat. */
export type PolymarketCompatBodies = object

/** Routes only on the native API. */
export type PolymarketNativeBodies = object
