/**
 * The rest of Polymarket's current CLOB surface (clob-client-v2 1.1.0, reference clob-v2-compat.md
 * section 5): version, liveness, market look-ups, and the calls answered truthfully where Predex
 * has no such program.
 */
import type { ServiceContext } from '../../../service/context.js'
import type { Route } from '../route.js'

export const polymarketRoutes: Route<ServiceContext>[] = []
