/**
 * Chains and contract addresses that clob-client signs for (reference section 3.1): an order
 * is signed for the CTF Exchange, or for the Neg Risk CTF Exchange in a neg_risk market. Only
 * 137 (Polygon) and 80002 (Amoy) are accepted by clob-client for order building.
 */
export interface ChainContracts {
  readonly chainId: number
  readonly exchange: string
  readonly negRiskExchange: string
  readonly negRiskAdapter: string
  readonly collateral: string
  readonly conditionalTokens: string
}

export const CHAINS: Readonly<Record<number, ChainContracts>> = {
  137: {
    chainId: 137,
    exchange: '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E',
    negRiskExchange: '0xC5d563A36AE78145C45a50134d48A1215220f80a',
    negRiskAdapter: '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296',
    collateral: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
    conditionalTokens: '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045',
  },
  80002: {
    chainId: 80002,
    exchange: '0xdFE02Eb6733538f8Ea35D585af8DE5958AD99E40',
    negRiskExchange: '0xC5d563A36AE78145C45a50134d48A1215220f80a',
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
