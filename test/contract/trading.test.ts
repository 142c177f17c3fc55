/**
 * The trading contract (test/contract/cases/trading.ts) over REST: one Predex on loopback, each
 * case with its own markets and wallets.
 */
import t from 'tap'
import { runCases } from '../support/driver.js'
import { startRestDriver } from '../support/rest-driver.js'
import { tradingCases } from './cases/trading.js'

const driver = await startRestDriver()
t.teardown(() => driver.stop())
runCases(t, tradingCases, driver)
