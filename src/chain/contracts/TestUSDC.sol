// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";

/// Predex's test USDC: an ERC-20 with 6 decimals and EIP-2612 permit, minted by the faucet's key.
///
/// It differs from an ERC-20 in one way: Predex's four exchanges (V1 and V2, plain and neg-risk)
/// are one venue, so an approval of any of them is an approval of all four, and it is a standing
/// one that settlement does not spend down (as an unlimited approval is not spent). That is the
/// allowance the engine holds orders against (orders hold min(balance, allowance) - held), and
/// the one its ledger mirrors from the `Approval` logs (docs/testnet.md, "The ledger follows the chain").
///
/// Predex places its contracts at the addresses Polymarket's clients know for chain 80002 by
/// copying their runtime code there (anvil_setCode), where no constructor runs. So everything a
/// contract needs must live in its code: the name and symbol are constants, the minter an
/// immutable, and OpenZeppelin's EIP712 recomputes the permit domain when the contract runs at
/// an address other than the one it was built at.
contract TestUSDC is ERC20, ERC20Permit {
    string private constant NAME = "USD Coin";
    string private constant SYMBOL = "USDC";

    /// The only account that may mint: the operator's key, which pays the faucet.
    address public immutable minter;
    address private immutable exchangeV1;
    address private immutable negRiskExchangeV1;
    address private immutable exchangeV2;
    address private immutable negRiskExchangeV2;

    /// Each owner's one standing allowance for the four exchanges.
    mapping(address => uint256) private exchangeAllowances;

    error NotMinter(address caller);
    error NotRelay(address caller);

    constructor(address minter_, address[4] memory exchanges) ERC20(NAME, SYMBOL) ERC20Permit(NAME) {
        minter = minter_;
        exchangeV1 = exchanges[0];
        negRiskExchangeV1 = exchanges[1];
        exchangeV2 = exchanges[2];
        negRiskExchangeV2 = exchanges[3];
    }

    function isExchange(address spender) public view returns (bool) {
        return spender == exchangeV1 || spender == negRiskExchangeV1 || spender == exchangeV2
            || spender == negRiskExchangeV2;
    }

    function allowance(address owner, address spender) public view override returns (uint256) {
        if (isExchange(spender)) return exchangeAllowances[owner];
        return super.allowance(owner, spender);
    }

    function _approve(address owner, address spender, uint256 value, bool emitEvent) internal override {
        if (!isExchange(spender)) return super._approve(owner, spender, value, emitEvent);
        exchangeAllowances[owner] = value;
        if (emitEvent) emit Approval(owner, spender, value);
    }

    /// An exchange's spending is checked against the standing allowance and leaves it as it is.
    function _spendAllowance(address owner, address spender, uint256 value) internal override {
        if (!isExchange(spender)) return super._spendAllowance(owner, spender, value);
        uint256 current = exchangeAllowances[owner];
        if (current < value) revert ERC20InsufficientAllowance(spender, current, value);
    }

    function name() public pure override returns (string memory) {
        return NAME;
    }

    function symbol() public pure override returns (string memory) {
        return SYMBOL;
    }

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// The gasless relay's approval: the settling exchange (the V1 address) checks the owner's
    /// signed `Relay` message (src/chain/contracts/PredexExchange.sol) and sets the owner's standing
    /// allowance with it, as `permit` sets an allowance on a signature. Only that exchange may.
    function relayApprove(address owner, uint256 value) external {
        if (msg.sender != exchangeV1) revert NotRelay(msg.sender);
        _approve(owner, exchangeV1, value, true);
    }

    function mint(address to, uint256 amount) external {
        if (msg.sender != minter) revert NotMinter(msg.sender);
        _mint(to, amount);
    }
}
