/**
 * `--chain rpc`: an external chain's node at `--chain-rpc-url`, Predex's contracts where the
 * `--chain-contracts` file says (deployed by scripts/deploy-contracts.ts), and the operator's key
 * read from `--chain-operator-key-file`. Predex neither starts nor stops the node.
 *
 * Before anything is served the deployment is checked against the node: its chain is
 * `--chain-id`, the settling exchange checks orders under the addresses the clients sign for and
 * names the file's test USDC and Conditional Tokens, and the key is the operator both trust (the
 * exchange's settler, the test USDC's minter). A wrong file or key fails the start saying which,
 * rather than the first trade.
 */
import { readFileSync, statSync } from 'node:fs'
import type { Address, Hex } from 'viem'
import type { Log } from '../log.js'
import { artifactOf } from './artifacts.js'
import type { Chain, ChainOptions } from './chain.js'
import { exchangeAddresses } from './contract-placement.js'
import { deploymentFromFile } from './deployment.js'
import { clientsOf, NodeChain, type ChainClients } from './node-chain.js'
import { firstLineOf } from '../stdx/error-text.js'

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/

export async function openRpcChain(options: ChainOptions, log: Log): Promise<Chain> {
  const rpcUrl = options.rpcUrl!
  const deployment = deploymentFromFile(options.contractsFile!, options.chainId)
  const clients = clientsOf(rpcUrl, options.blockMs, operatorKeyOf(options.operatorKeyFile!), deployment,
    options.confirmations)
  await checkDeployment(clients, rpcUrl)
  const chain = new NodeChain('rpc', rpcUrl, clients, () => Promise.resolve())
  await chain.poll()
  log.info('external chain: contracts checked', { rpcUrl, chainId: deployment.chainId, settler: deployment.settler,
    collateral: deployment.collateral, conditionalTokens: deployment.conditionalTokens,
    operator: clients.operator.account.address })
  return chain
}

/** The operator's key: 0x and 64 hex digits, in a file only its owner may read (a key that moves funds). */
export function operatorKeyOf(path: string): Hex {
  let text: string
  try {
    if ((statSync(path).mode & 0o077) !== 0) {
      throw new Error('others may read it: chmod 600 it')
    }
    text = readFileSync(path, 'utf8').trim()
  } catch (error) {
    throw new Error(`--chain-operator-key-file ${path}: ${(error as Error).message}`, { cause: error })
  }
  // The message never repeats the text: it is a secret, and it may be nearly right.
  if (!PRIVATE_KEY.test(text)) {
    throw new Error(`--chain-operator-key-file ${path}: not a private key (0x and 64 hex digits)`)
  }
  return text as Hex
}

async function checkDeployment(clients: ChainClients, rpcUrl: string): Promise<void> {
  const { client, contracts } = clients
  const operator = clients.operator.account.address.toLowerCase()
  let nodeChainId: number
  try {
    nodeChainId = await client.getChainId()
  } catch (error) {
    throw new Error(`--chain-rpc-url ${rpcUrl}: the node did not answer (${firstLineOf(error)})`, { cause: error })
  }
  if (nodeChainId !== contracts.chainId) {
    throw new Error(`--chain-rpc-url ${rpcUrl} is chain ${nodeChainId}, not --chain-id ${contracts.chainId}`)
  }
  const settler = { address: contracts.settler as Address, abi: artifactOf('PredexExchange').abi }
  const read = async (name: string): Promise<string> => {
    try {
      return String(await client.readContract({ ...settler, functionName: name as 'operator' })).toLowerCase()
    } catch {
      throw new Error(`--chain-contracts: ${contracts.settler} is not a PredexExchange (its ${name}() does not answer)`)
    }
  }
  const expected: [string, string][] = [
    ['operator', operator], ['collateral', contracts.collateral], ['conditionalTokens', contracts.conditionalTokens],
    ...['exchangeV1', 'negRiskExchangeV1', 'exchangeV2', 'negRiskExchangeV2']
      .map((name, i): [string, string] => [name, exchangeAddresses(contracts)[i]!.toLowerCase()]),
  ]
  for (const [name, wanted] of expected) {
    const found = await read(name)
    if (found !== wanted.toLowerCase()) {
      throw new Error(`--chain-contracts: the settling exchange's ${name} is ${found}, not ${wanted.toLowerCase()}`
        + (name === 'operator' ? ' (the key of --chain-operator-key-file)' : ''))
    }
  }
  const minter = String(await client.readContract({ address: contracts.collateral as Address,
    abi: artifactOf('TestUSDC').abi, functionName: 'minter' })).toLowerCase()
  if (minter !== operator) {
    throw new Error(`--chain-contracts: the test USDC's minter is ${minter}, not the operator ${operator}`)
  }
  await checkRelayExchange(clients)
}

/** The Conditional Tokens let the settling exchange alone approve itself for owners (the relay's approve). */
async function checkRelayExchange({ client, contracts }: ChainClients): Promise<void> {
  let relayExchange: string
  try {
    relayExchange = String(await client.readContract({ address: contracts.conditionalTokens as Address,
      abi: artifactOf('ConditionalTokens').abi, functionName: 'relayExchange' })).toLowerCase()
  } catch {
    throw new Error(`--chain-contracts: ${contracts.conditionalTokens} is not the test network's Conditional Tokens `
      + '(its relayExchange() does not answer: deploy them with npm run deploy:contracts)')
  }
  if (relayExchange !== contracts.settler.toLowerCase()) {
    throw new Error(`--chain-contracts: the Conditional Tokens' relay exchange is ${relayExchange}, not the settling `
      + `exchange ${contracts.settler.toLowerCase()}`)
  }
}
