/**
 * The market-data contract (test/contract/cases/market-data.ts) over gRPC: the same cases as
 * REST's through the gRPC driver; the compat price history, which gRPC does not serve, stays REST's.
 */
import t from 'tap'
import { runCases } from '../../support/driver.js'
import { startGrpcDriver } from '../../support/grpc-driver.js'
import { marketDataCases } from '../cases/market-data.js'

const driver = await startGrpcDriver()
t.teardown(() => driver.stop())
runCases(t, marketDataCases, driver)
