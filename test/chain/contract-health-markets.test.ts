/**
 * The contract of health and markets (test/contract/cases/health-markets.ts) over REST with a real chain behind the
 * test network (issue 35 point 7): the same cases as on the builtin network, their stage set on
 * the chain (test/support/chain-stage.ts).
 */
import t from 'tap'
import { runCases } from '../support/driver.js'
import { startRestDriver } from '../support/rest-driver.js'
import { healthMarketsCases } from '../contract/cases/health-markets.js'

const driver = await startRestDriver({ chain: 'local' })
t.teardown(() => driver.stop())
runCases(t, healthMarketsCases, driver)
