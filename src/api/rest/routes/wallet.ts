/** A wallet's balances on the test network, public (as a block explorer shows them). */
import { walletBalances } from '../../../service/testnet/testnet.js'
import type { WalletStatus } from '../../shapes/testnet.js'
import { addressOf, decimalOfMicros } from '../../wire.js'
import type { TypedRoute } from '../typed-route.js'

export const walletRoutes: TypedRoute[] = [
  { method: 'GET', path: '/wallet-status', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'account',
      summary: "A wallet's test gas, USDC, USDC an order may still hold, and allowance to the exchange (decimals)",
      query: { address: 'required: 0x address' },
      response: '{address, eth_balance, usdc_balance, available_usdc, allowance, shares_approved, relay_nonce}' },
    handler: async (request, _identity, context) => {
      const wallet = await walletBalances(context, addressOf(request.query.get('address'), 'address'))
      const body: WalletStatus = {
        address: wallet.address,
        eth_balance: decimalOfMicros(wallet.gasMicros),
        usdc_balance: decimalOfMicros(wallet.usdcMicros),
        available_usdc: decimalOfMicros(wallet.availableUsdcMicros),
        allowance: decimalOfMicros(wallet.usdcAllowanceMicros),
        shares_approved: wallet.sharesApproved,
        relay_nonce: wallet.relayNonce,
      }
      return { body }
    } },
]
