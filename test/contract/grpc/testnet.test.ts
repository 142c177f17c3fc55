/**
 * The test-network contract (test/contract/cases/testnet-lifecycle.ts, testnet-refusals.ts)
 * through the gRPC driver: a wallet's status and a market by id or slug over gRPC's
 * AccountService and MarketDataService; the faucet, the relay, users and admin are REST's only,
 * so those steps are the REST driver's on the same server.
 */
import t from 'tap'
import { runCases } from '../../support/driver.js'
import { startGrpcDriver } from '../../support/grpc-driver.js'
import { testnetLifecycleCases } from '../cases/testnet-lifecycle.js'
import { testnetRefusalCases } from '../cases/testnet-refusals.js'

const driver = await startGrpcDriver()
t.teardown(() => driver.stop())
runCases(t, [...testnetLifecycleCases, ...testnetRefusalCases], driver)
