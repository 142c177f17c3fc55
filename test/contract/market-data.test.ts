/**
 * The market-data contract (test/contract/cases/market-data.ts) over REST: one Predex on
 * loopback, each case with its own markets and books.
 */
import t from 'tap'
import { runCases } from '../support/driver.js'
import { startRestDriver } from '../support/rest-driver.js'
import { marketDataCases } from './cases/market-data.js'

const driver = await startRestDriver()
t.teardown(() => driver.stop())
runCases(t, marketDataCases, driver)
