/**
 * The market-maker controls' contract (test/contract/cases/mm-controls.ts) over gRPC: the same
 * cases as REST's (test/contract/mm-controls.test.ts) through the gRPC driver.
 */
import t from 'tap'
import { runCases } from '../../support/driver.js'
import { startGrpcDriver } from '../../support/grpc-driver.js'
import { mmControlCases } from '../cases/mm-controls.js'

const driver = await startGrpcDriver()
t.teardown(() => driver.stop())
runCases(t, mmControlCases, driver)
