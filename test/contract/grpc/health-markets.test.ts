/**
 * The health and markets contract (test/contract/cases/health-markets.ts) through the gRPC
 * driver: the listing and a market by id, condition id or slug over gRPC's MarketDataService;
 * liveness, readiness and the upcoming and resolving listings are REST's only (gRPC has the
 * standard health service instead: test/grpc/server.test.ts).
 */
import t from 'tap'
import { runCases } from '../../support/driver.js'
import { startGrpcDriver } from '../../support/grpc-driver.js'
import { healthMarketsCases } from '../cases/health-markets.js'

const driver = await startGrpcDriver()
t.teardown(() => driver.stop())
runCases(t, healthMarketsCases, driver)
