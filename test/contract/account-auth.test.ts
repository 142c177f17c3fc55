/**
 * The account and API keys contract (test/contract/cases/account-auth.ts) over REST: one Predex
 * on loopback, each case with its own market and wallets. The POLY_* header names are REST's own:
 * test/contract/rest-auth-headers.test.ts.
 */
import t from 'tap'
import { runCases } from '../support/driver.js'
import { startRestDriver } from '../support/rest-driver.js'
import { accountAuthCases } from './cases/account-auth.js'

const driver = await startRestDriver()
t.teardown(() => driver.stop())
runCases(t, accountAuthCases, driver)
