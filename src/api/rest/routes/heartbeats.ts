/** Heartbeats (cancel on disconnect for REST clients): POST /v1/heartbeats and /heartbeats. */
import type { ServiceContext } from '../../../service/context.js'
import type { Route } from '../route.js'

export const heartbeatRoutes: Route<ServiceContext>[] = []
