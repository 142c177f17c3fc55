/** The route table: every REST route of Predex, native and /compat, in one list. */
import type { ServiceContext } from '../../service/context.js'
import { API_VERSION, openApiDocument } from './openapi.js'
import { docsPage } from './docs-page.js'
import type { Route } from './route.js'
import { accountRoutes } from './routes/account.js'
import { authRoutes } from './routes/auth-keys.js'
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

const baseRoutes: Route<ServiceContext>[] = [
  ...healthRoutes, ...marketRoutes, ...marketDataRoutes, ...authRoutes, ...tradingRoutes, ...accountRoutes,
  ...walletRoutes, ...faucetRoutes, ...relayRoutes, ...adminRoutes, ...userRoutes,
  ...polymarketRoutes, ...heartbeatRoutes,
]

const openApiRoute: Route<ServiceContext> = {
  method: 'GET', path: '/openapi.json', auth: 'none', bodyMax: 0, surface: 'native',
  openapi: { tag: 'health', summary: 'This document: OpenAPI 3.1 of the native API', response: 'OpenAPI document' },
  handler: () => ({ body: nativeApiDocument() }),
}

/** The OpenAPI document of the native API, as GET /openapi.json serves it. */
export function nativeApiDocument(): Record<string, unknown> {
  return openApiDocument(allRoutes, API_VERSION)
}

/** The page is the same for the process's life: rendered once, at the first request. */
let docsHtml: string | null = null

const docsRoute: Route<ServiceContext> = {
  method: 'GET', path: '/docs', auth: 'none', bodyMax: 0, surface: 'native',
  openapi: { tag: 'health', summary: 'This document as a browsable page', response: 'HTML page',
    mediaType: 'text/html' },
  handler: () => {
    docsHtml ??= docsPage(nativeApiDocument())
    return { body: docsHtml, raw: true, contentType: 'text/html; charset=utf-8' }
  },
}

export const allRoutes: Route<ServiceContext>[] = [...baseRoutes, openApiRoute, docsRoute]
