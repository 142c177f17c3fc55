/**
 * The market-maker controls' contract (test/contract/cases/mm-controls.ts) over REST: one Predex
 * on loopback, each case with its own market and wallets.
 */
import t from 'tap'
import { runCases } from '../support/driver.js'
import { startRestDriver } from '../support/rest-driver.js'
import { mmControlCases } from './cases/mm-controls.js'

const driver = await startRestDriver()
t.teardown(() => driver.stop())
runCases(t, mmControlCases, driver)
