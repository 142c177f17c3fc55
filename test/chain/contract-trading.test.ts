/**
 * The trading contract (test/contract/cases/trading.ts) over REST with a real chain behind the
 * test network (issue 35 point 7): the same cases as on the builtin network, their stage set on
 * the chain (test/support/chain-stage.ts), each case with its own markets and wallets.
 */
import t from 'tap'
import { runCases } from '../support/driver.js'
import { startRestDriver } from '../support/rest-driver.js'
import { tradingCases } from '../contract/cases/trading.js'

const driver = await startRestDriver({ chain: 'local' })
t.teardown(() => driver.stop())
runCases(t, tradingCases, driver)
