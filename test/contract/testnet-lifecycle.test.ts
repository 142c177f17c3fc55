/**
 * The test network end to end (test/contract/cases/testnet-lifecycle.ts) over REST: one Predex
 * on loopback, the story with its own market and wallets.
 */
import t from 'tap'
import { runCases } from '../support/driver.js'
import { startRestDriver } from '../support/rest-driver.js'
import { testnetLifecycleCases } from './cases/testnet-lifecycle.js'

const driver = await startRestDriver()
t.teardown(() => driver.stop())
runCases(t, testnetLifecycleCases, driver)
