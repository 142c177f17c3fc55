// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";

/// Predex's test USDC: an ERC-20 with 6 decimals and EIP-2612 permit, minted by the faucet's key.
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

    error NotMinter(address caller);

    constructor(address minter_) ERC20(NAME, SYMBOL) ERC20Permit(NAME) {
        minter = minter_;
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

    function mint(address to, uint256 amount) external {
        if (msg.sender != minter) revert NotMinter(msg.sender);
        _mint(to, amount);
    }
}
