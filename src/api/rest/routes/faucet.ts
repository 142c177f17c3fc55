/**
 * The test network's faucet (src/service/testnet/testnet.ts): new test USDC for any address, and test gas
 * the first time, with a cooldown per address (429 FAUCET_COOLDOWN with Retry-After inside it)
 * and a cap per request. This module parses the request and shapes the answer. Served under
 * /compat too, the same route: a Polymarket bot's one base URL (`<server>/compat`) then reaches
 * the test funds its first order needs (examples/polymarket-v2-bot.mjs).
 */
import { REST_SMALL_BODY_BYTES_MAX } from '../../../limits.js'
import type { ServiceContext } from '../../../service/context.js'
import { faucet } from '../../../service/testnet/testnet.js'
import type { FaucetRequest, Unparsed } from '../../shapes/requests.js'
import type { FaucetCredit } from '../../shapes/testnet.js'
import { addressOf, decimalOfMicros, microsOfDecimal, parseJsonBody, requireObject } from '../../wire.js'
import type { TypedRoute } from '../typed-route.js'

async function credit(context: ServiceContext, body: Unparsed<FaucetRequest>): Promise<FaucetCredit> {
  const address = addressOf(body.address, 'address')
  const usdcMicros = body.amount === undefined || body.amount === null ? null : microsOfDecimal(body.amount, 'amount')
  const receipt = await faucet(context, { address, usdcMicros })
  return {
    address,
    usdc_credited: decimalOfMicros(receipt.usdcMicros),
    eth_credited: decimalOfMicros(receipt.gasMicros),
    transaction_hash: receipt.transactionHash,
    block_number: receipt.blockNumber,
  }
}

export const faucetRoutes: TypedRoute[] = [
  { method: 'POST', path: '/faucet', auth: 'none', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'faucet',
    surface: 'both',
    openapi: { tag: 'faucet',
      summary: 'Test USDC (and test gas for a new address); one request per address per cooldown',
      body: '{address, amount?: "1000" (USDC, at most the configured faucet amount)}',
      response: '{address, usdc_credited, eth_credited, transaction_hash, block_number}; '
        + '429 FAUCET_COOLDOWN, RATE_LIMITED (per client) or FAUCET_BUDGET (all clients) with Retry-After' },
    handler: async (request, _identity, context) =>
      ({ body: await credit(context, requireObject(parseJsonBody(request.body), 'body')) }) },
]
