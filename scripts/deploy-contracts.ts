/**
 * `npm run deploy:contracts`: deploys Predex's contracts to an external EVM chain for
 * `--chain rpc` (docs/testnet.md, "Chains"), from the operator's key, and writes where they are
 * as the JSON file `--chain-contracts` reads: `{collateral, conditionalTokens, settler}`.
 *
 *   npm run deploy:contracts -- --rpc-url URL --chain-id 80002 --operator-key-file KEY [--out FILE]
 *
 * The key pays for the three transactions and becomes the operator (the test USDC's minter, the
 * exchange's settler), so Predex runs with the same key file. `--chain-id` is the chain the
 * node must be and the clients sign orders for (80002 or 137). Without --out the file is
 * printed. Exit status: 0, 1 when the deployment failed, 2 for a usage error.
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createPublicClient, createWalletClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { deployContracts } from '../src/chain/contract-deployment.js'
import { rpcTransport, viemChainOf } from '../src/chain/node-chain.js'
import { operatorKeyOf } from '../src/chain/rpc-chain.js'
import { CHAINS } from '../src/crypto/contracts.js'
import { CHAIN_POLL_MS } from '../src/limits.js'

const USAGE = 'usage: npm run deploy:contracts -- --rpc-url URL --chain-id 80002|137 --operator-key-file KEY [--out FILE]'

async function main(): Promise<number> {
  let values: Record<string, string | undefined>
  try {
    values = parseArgs({ options: { 'rpc-url': { type: 'string' }, 'chain-id': { type: 'string' },
      'operator-key-file': { type: 'string' }, out: { type: 'string' } } }).values
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`)
    return 2
  }
  const chainId = Number(values['chain-id'])
  const rpcUrl = values['rpc-url']
  const keyFile = values['operator-key-file']
  if (rpcUrl === undefined || keyFile === undefined || CHAINS[chainId] === undefined) {
    console.error(USAGE)
    return 2
  }
  try {
    const chain = viemChainOf(rpcUrl, chainId)
    const transport = rpcTransport(rpcUrl)
    const client = createPublicClient({ chain, transport, pollingInterval: CHAIN_POLL_MS })
    if (await client.getChainId() !== chainId) throw new Error(`${rpcUrl} is not chain ${chainId}`)
    const deployer = createWalletClient({ chain, transport, account: privateKeyToAccount(operatorKeyOf(keyFile)) })
    const text = JSON.stringify(await deployContracts(client, deployer, chainId), null, 2) + '\n'
    if (values.out === undefined) process.stdout.write(text)
    else writeFileSync(values.out, text)
    return 0
  } catch (error) {
    console.error(`deployment failed: ${(error as Error).message}`)
    return 1
  }
}

process.exitCode = await main()
