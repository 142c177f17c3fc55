/** The route table: every REST route of Predex, native and /compat, in one list. */
import { VERSION } from '../../version.js'
import { asyncApiDocument } from './asyncapi.js'
import { openApiDocument } from './openapi.js'
import type { TypedRoute } from './typed-route.js'
import { accountRoutes } from './routes/account.js'
import { authRoutes } from './routes/auth-keys.js'
import { documentRoutes } from './routes/documents.js'
import { healthRoutes } from './routes/health.js'
import { marketDataRoutes } from './routes/market-data.js'
import { marketRoutes } from './routes/markets.js'
import { tradingRoutes } from './routes/trading.js'
import { adminRoutes } from './routes/admin.js'
import { faucetRoutes } from './routes/faucet.js'
import { relayRoutes } from './routes/relay.js'
import { walletRoutes } from './routes/wallet.js'
import { userRoutes } from './routes/users.js'
import { polymarketRoutes } from './routes/polymarket.js'
import { heartbeatRoutes } from './routes/heartbeats.js'
import { orderGroupRoutes } from './routes/order-groups.js'
import type { NativeBodies } from '../shapes/bodies.js'

const baseRoutes: TypedRoute[] = [
  ...healthRoutes, ...marketRoutes, ...marketDataRoutes, ...authRoutes, ...tradingRoutes, ...accountRoutes,
  ...walletRoutes, ...faucetRoutes, ...relayRoutes, ...adminRoutes, ...userRoutes,
  ...polymarketRoutes, ...heartbeatRoutes, ...orderGroupRoutes,
]

export const allRoutes: TypedRoute[] = [...baseRoutes, ...documentRoutes(() => allRoutes)]

/** The OpenAPI document of both surfaces, as GET /openapi.json serves it. */
export function restApiDocument(): NativeBodies['GET /openapi.json'] {
  return openApiDocument(allRoutes, VERSION)
}

/** The AsyncAPI document of the WebSocket channels, as GET /asyncapi.json serves it. */
export function wsApiDocument(): NativeBodies['GET /asyncapi.json'] {
  return asyncApiDocument(VERSION)
}
