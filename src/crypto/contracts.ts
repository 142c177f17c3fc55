/**
 * Chains and contract addresses that clob-client signs for (clob-compat.md section 3.1,
 * clob-v2-compat.md section 3.1): an order is signed for the CTF Exchange, or for the Neg Risk CTF
 * Exchange in a neg_risk market, of its protocol version (V1 orders for the V1 contracts, V2
 * orders for the V2 ones). Only 137 (Polygon) and 80002 (Amoy) are accepted by the clients for
 * order building. V3 (one exchange per chain) is known only to tell a V3 order from a bad one.
 */
export interface ChainContracts {
  readonly chainId: number
  /** V1 (domain version "1"). */
  readonly exchange: string
  readonly negRiskExchange: string
  /** V2 (domain version "2"). */
  readonly exchangeV2: string
  readonly negRiskExchangeV2: string
  /** V3 (domain version "3"): not served; only recognised. */
  readonly exchangeV3: string
  readonly negRiskAdapter: string
  readonly collateral: string
  readonly conditionalTokens: string
}

export const CHAINS: Readonly<Record<number, ChainContracts>> = {
  137: {
    chainId: 137,
    exchange: '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E',
    negRiskExchange: '0xC5d563A36AE78145C45a50134d48A1215220f80a',
    exchangeV2: '0xE111180000d2663C0091e4f400237545B87B996B',
    negRiskExchangeV2: '0xe2222d279d744050d28e00520010520000310F59',
    exchangeV3: '0xe3333700cA9d93003F00f0F71f8515005F6c00Aa',
    negRiskAdapter: '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296',
    collateral: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
    conditionalTokens: '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045',
  },
  80002: {
    chainId: 80002,
    exchange: '0xdFE02Eb6733538f8Ea35D585af8DE5958AD99E40',
    negRiskExchange: '0xC5d563A36AE78145C45a50134d48A1215220f80a',
    exchangeV2: '0xE111180000d2663C0091e4f400237545B87B996B',
    negRiskExchangeV2: '0xe2222d279d744050d28e00520010520000310F59',
    exchangeV3: '0x9fE6e61422AdB6F610d8597F9684b16912D50C3D',
    negRiskAdapter: '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296',
    collateral: '0x9c4e1703476e875070ee25b56a58b008cfb8fa78',
    conditionalTokens: '0x69308FB512518e39F9b16112fA8d994F4e2Bf8bB',
  },
}

export function contractsOf(chainId: number): ChainContracts {
  const contracts = CHAINS[chainId]
  if (contracts === undefined) throw new RangeError(`no contracts known for chain ${chainId}`)
  return contracts
}
