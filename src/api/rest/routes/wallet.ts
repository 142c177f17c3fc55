/** A wallet's balances on the test network, public (as a block explorer shows them). */
import type { ServiceContext } from '../../../service/context.js'
import { addressOf, decimalOfMicros } from '../../wire.js'
import type { Route } from '../route.js'
import { accountOf, availableUsdcMicros } from './common.js'

export const walletRoutes: Route<ServiceContext>[] = [
  { method: 'GET', path: '/wallet-status', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'account', summary: "A wallet's test gas, USDC, USDC an order may still hold, and allowance to the exchange (decimals)",
      query: { address: 'required: 0x address' },
      response: '{address, eth_balance, usdc_balance, available_usdc, allowance, shares_approved, relay_nonce}' },
    handler: async (request, _identity, context) => {
      const address = addressOf(request.query.get('address'), 'address')
      const account = await accountOf(context, address)
      return { body: {
        address,
        eth_balance: decimalOfMicros(account?.gasMicros ?? 0),
        usdc_balance: decimalOfMicros(account?.usdcMicros ?? 0),
        available_usdc: decimalOfMicros(availableUsdcMicros(account)),
        allowance: decimalOfMicros(account?.usdcAllowanceMicros ?? 0),
        shares_approved: account?.sharesApproved ?? false,
        relay_nonce: account?.relayNonce ?? 0,
      } }
    } },
]
