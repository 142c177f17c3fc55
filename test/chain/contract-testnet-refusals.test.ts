/**
 * The contract of the test network's refusals (test/contract/cases/testnet-refusals.ts) over REST with a real chain behind the
 * test network (issue 35 point 7): the same cases as on the builtin network, their stage set on
 * the chain (test/support/chain-stage.ts).
 */
import t from 'tap'
import { runCases } from '../support/driver.js'
import { startRestDriver } from '../support/rest-driver.js'
import { testnetRefusalCases } from '../contract/cases/testnet-refusals.js'

const driver = await startRestDriver({ chain: 'local' })
t.teardown(() => driver.stop())
runCases(t, testnetRefusalCases, driver)
