/**
 * Refusals of the test network and admin operations (test/contract/cases/testnet-refusals.ts)
 * over REST: one Predex on loopback, each case with its own owner and markets.
 */
import t from 'tap'
import { runCases } from '../support/driver.js'
import { startRestDriver } from '../support/rest-driver.js'
import { testnetRefusalCases } from './cases/testnet-refusals.js'

const driver = await startRestDriver()
t.teardown(() => driver.stop())
runCases(t, testnetRefusalCases, driver)
