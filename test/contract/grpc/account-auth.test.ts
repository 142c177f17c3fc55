/**
 * The account and API keys contract (test/contract/cases/account-auth.ts) through the gRPC
 * driver: balances over gRPC's AccountService; API keys (L1 create and derive, L2 list and
 * revoke) are REST's only, so those cases run through the REST driver's operations on the same
 * server, and what they check of a key (a new key is usable at once, a revoked one is not) holds
 * for both faces' gate.
 */
import t from 'tap'
import { runCases } from '../../support/driver.js'
import { startGrpcDriver } from '../../support/grpc-driver.js'
import { accountAuthCases } from '../cases/account-auth.js'

const driver = await startGrpcDriver()
t.teardown(() => driver.stop())
runCases(t, accountAuthCases, driver)
