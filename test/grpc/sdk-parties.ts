/**
 * Funded traders that each talk to one test server through their own gRPC SDK client, for the
 * tests that drive the market-maker controls (amend-replace, mass-quote): one place for the setup
 * both wrote the same way. The clients close when the test file's teardown stops the server.
 */
import t from 'tap'
import { PredexGrpcClient } from '../../src/client/grpc/predex-grpc-client.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { USDC, type TestServer, type Trader } from '../support/rest-harness.js'

export interface Party {
  readonly trader: Trader
  readonly client: PredexGrpcClient
}

export interface SdkParties {
  /** A funded trader with its own SDK client; with `shares`, Yes and No shares of `market` to sell too. */
  party(shares?: number): Promise<Party>
  /** What the engine holds of the party's USDC for its resting orders. */
  heldMicros(who: Party): Promise<number>
  /** The engine's state hash: equal before and after means nothing was journaled that changed it. */
  engineState(): Promise<unknown>
}

/** Registers the teardown that closes the clients and stops `server`. */
export function sdkParties(server: TestServer, market: MarketRecord): SdkParties {
  const target = `127.0.0.1:${server.predex.grpcPort}`
  const clients: PredexGrpcClient[] = []
  t.teardown(async () => {
    for (const client of clients) client.close()
    await server.stop()
  })
  return {
    async party(shares = 0) {
      const trader = await server.trader(1_000 * USDC)
      if (shares > 0) {
        await server.command({ kind: 'split', address: trader.address, marketId: market.marketId,
          amountMicros: shares * USDC })
      }
      const client = new PredexGrpcClient({ target, signer: { credentials: trader.credentials, address: trader.address } })
      clients.push(client)
      return { trader, client }
    },
    async heldMicros(who) {
      return (await server.account(who.trader.address)).heldMicros
    },
    async engineState() {
      return server.predex.context.host.query({ kind: 'stateHash' })
    },
  }
}
