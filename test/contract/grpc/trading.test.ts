/**
 * The trading contract (test/contract/cases/trading.ts) over gRPC: the same cases as REST's
 * (test/contract/trading.test.ts) through the gRPC driver (test/support/grpc-driver.ts), on one
 * Predex on loopback, each case with its own markets and wallets.
 */
import t from 'tap'
import { runCases } from '../../support/driver.js'
import { startGrpcDriver } from '../../support/grpc-driver.js'
import { tradingCases } from '../cases/trading.js'

const driver = await startGrpcDriver()
t.teardown(() => driver.stop())
runCases(t, tradingCases, driver)
