/**
 * The health and markets contract (test/contract/cases/health-markets.ts) over REST: one Predex
 * on loopback, each case with its own markets. /metrics is REST's own: test/contract/rest-metrics.test.ts.
 */
import t from 'tap'
import { runCases } from '../support/driver.js'
import { startRestDriver } from '../support/rest-driver.js'
import { healthMarketsCases } from './cases/health-markets.js'

const driver = await startRestDriver()
t.teardown(() => driver.stop())
runCases(t, healthMarketsCases, driver)
