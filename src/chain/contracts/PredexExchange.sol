// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ERC1155Holder} from "@openzeppelin/contracts/token/ERC1155/utils/ERC1155Holder.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// The part of the test network's Conditional Tokens (Gnosis' 1.0.3 and one addition:
/// src/chain/contracts/conditional-tokens/README.md) the exchange calls.
interface IConditionalTokens {
    /// Predex's addition: the exchange approves itself for an owner's tokens on its signed message.
    function relayApprovalForAll(address owner, bool approved) external;

    function splitPosition(
        IERC20 collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata partition,
        uint256 amount
    ) external;

    function mergePositions(
        IERC20 collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata partition,
        uint256 amount
    ) external;

    function redeemPositions(
        IERC20 collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata indexSets
    ) external;

    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data) external;

    function balanceOf(address owner, uint256 id) external view returns (uint256);

    function payoutNumerators(bytes32 conditionId, uint256 index) external view returns (uint256);

    function payoutDenominator(bytes32 conditionId) external view returns (uint256);
}

/// The part of Predex's test USDC the relay calls: an approval of the settling exchange that
/// the exchange itself applies once it has checked the owner's signed `Relay` message.
interface IRelayedUSDC {
    function relayApprove(address owner, uint256 value) external;
}

/// Settles on chain the trades Predex's engine matched off chain, each against the two orders
/// their makers signed: Polymarket's `Order`, V1 or V2, each checked under the EIP-712 domain
/// its clients sign for ("Polymarket CTF Exchange", version "1" or "2", the chain id, and the
/// V1 or V2 exchange's address, the neg-risk one in a neg-risk market). The engine matches V1
/// and V2 orders against each other, so one contract settles both: the same code sits at the four
/// exchange addresses, and the operator settles through one of them (Predex uses the V1
/// exchange's), which keeps every order's fills in one place.
///
/// A trade is one fill between two orders, A (the taker, who pays the fee) and B:
/// - opposite sides of one token (normal): `size` outcome tokens go from the seller to the buyer,
///   `collateralA` (= `collateralB`) USDC from the buyer to the seller;
/// - two buys of the two tokens of one condition (mint): the buyers pay `collateralA` and
///   `collateralB` (their sum `size`), which the Conditional Tokens split into `size` of each token;
/// - two sells of the two tokens (merge): `size` of each token is merged back into `size` USDC,
///   paid out as `collateralA` and `collateralB`.
///
/// Each order's fills are counted in its maker asset and never exceed its signed `makerAmount`;
/// each fill pays at least the order's signed price (what it gets over what it gives is at least
/// takerAmount over makerAmount, in exact integers). A trade id settles once: submitted again (a
/// settlement retried after a crash) it is skipped, so retrying is always safe. Only the operator
/// submits, as on Polymarket; expiry, nonces and the V1 `taker` field are the engine's to enforce
/// when it matches, since a trade matched in time must still settle when the chain is slow.
///
/// It is also the gasless relay (`relay`): a wallet's `Relay` message, signed as the server's
/// relay takes it (EIP-712 domain "Predex Relay", version "1", the chain id), is checked here,
/// its nonce consumed and its deadline enforced, and its action run for the wallet with what the
/// wallet gave the exchange for trading: `approve` sets the test USDC's standing allowance and
/// approves (an amount of 0: revokes) this exchange for the wallet's outcome tokens (each token
/// takes it from this exchange alone), `split` takes USDC under that allowance, `merge` and
/// `redeem` take outcome tokens under that approval. Whoever sends the transaction pays its gas;
/// the signature is the whole authority.
///
/// Like every Predex contract it keeps nothing from its constructor in storage, so its runtime
/// code alone, copied to a fixed address (anvil_setCode), is a whole exchange.
contract PredexExchange is ERC1155Holder {
    using SafeERC20 for IERC20;

    uint8 internal constant BUY = 0;
    uint8 internal constant SELL = 1;
    uint8 internal constant SIGNATURE_EOA = 0;
    uint8 internal constant SIGNATURE_POLY_1271 = 3;

    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 internal constant NAME_HASH = keccak256("Polymarket CTF Exchange");
    bytes32 internal constant ORDER_V1_TYPEHASH = keccak256(
        "Order(uint256 salt,address maker,address signer,address taker,uint256 tokenId,uint256 makerAmount,"
        "uint256 takerAmount,uint256 expiration,uint256 nonce,uint256 feeRateBps,uint8 side,uint8 signatureType)"
    );
    bytes32 internal constant ORDER_V2_TYPEHASH = keccak256(
        "Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,"
        "uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)"
    );

    IERC20 public immutable collateral;
    IConditionalTokens public immutable conditionalTokens;
    /// The only account that registers tokens and settles trades; it also receives the fees.
    address public immutable operator;
    /// The four addresses orders are signed for: V1, V1 neg-risk, V2, V2 neg-risk.
    address public immutable exchangeV1;
    address public immutable negRiskExchangeV1;
    address public immutable exchangeV2;
    address public immutable negRiskExchangeV2;

    struct Token {
        bytes32 conditionId;
        uint256 complement;
    }

    /// Outcome tokens (Conditional Tokens position ids) by id, each with its complement.
    mapping(uint256 => Token) public tokens;
    /// How much of each order (by EIP-712 digest) has been filled, in its maker asset.
    mapping(bytes32 => uint256) public filled;
    /// The trade ids settled.
    mapping(bytes32 => bool) public settled;
    /// Each condition's Yes token (index set 1), as registered.
    mapping(bytes32 => uint256) public yesTokens;
    /// Each wallet's next relay nonce.
    mapping(address => uint256) public relayNonces;

    /// A wallet's signed relay message, as it signed it.
    struct RelayRequest {
        address owner;
        string action;
        bytes32 conditionId;
        uint256 amount;
        uint256 nonce;
        uint256 deadline;
    }

    bytes32 internal constant RELAY_DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,string version,uint256 chainId)");
    bytes32 internal constant RELAY_TYPEHASH = keccak256(
        "Relay(address owner,string action,bytes32 conditionId,uint256 amount,uint256 nonce,uint256 deadline)"
    );
    bytes32 internal constant APPROVE = keccak256("approve");
    bytes32 internal constant SPLIT = keccak256("split");
    bytes32 internal constant MERGE = keccak256("merge");
    bytes32 internal constant REDEEM = keccak256("redeem");

    struct OrderV1 {
        uint256 salt;
        address maker;
        address signer;
        address taker;
        uint256 tokenId;
        uint256 makerAmount;
        uint256 takerAmount;
        uint256 expiration;
        uint256 nonce;
        uint256 feeRateBps;
        uint8 side;
        uint8 signatureType;
    }

    struct OrderV2 {
        uint256 salt;
        address maker;
        address signer;
        uint256 tokenId;
        uint256 makerAmount;
        uint256 takerAmount;
        uint8 side;
        uint8 signatureType;
        uint256 timestamp;
        bytes32 metadata;
        bytes32 builder;
    }

    /// An order as its maker signed it: `order` is abi.encode(OrderV1) or abi.encode(OrderV2).
    struct SignedOrder {
        uint8 version;
        bool negRisk;
        bytes order;
        bytes signature;
    }

    /// One fill's amounts: outcome tokens, each side's collateral, and A's fee (in collateral).
    struct Fill {
        bytes32 tradeId;
        uint256 size;
        uint256 collateralA;
        uint256 collateralB;
        uint256 feeA;
    }

    struct Trade {
        SignedOrder a;
        SignedOrder b;
        Fill fill;
    }

    /// What settling needs of a verified order.
    struct Terms {
        bytes32 hash;
        address maker;
        uint256 tokenId;
        uint256 makerAmount;
        uint256 takerAmount;
        uint8 side;
    }

    event TokenRegistered(uint256 indexed token, uint256 indexed complement, bytes32 indexed conditionId);
    event TradeSettled(
        bytes32 indexed tradeId,
        bytes32 indexed orderA,
        bytes32 indexed orderB,
        uint256 size,
        uint256 collateralA,
        uint256 collateralB,
        uint256 feeA
    );
    event TradeAlreadySettled(bytes32 indexed tradeId);
    /// A relay message ran. Its ledger effect is in the events below (and the USDC `Approval`).
    event Relayed(address indexed owner, uint256 indexed nonce, string action);
    /// `amount` USDC of `owner` became `amount` of each token of the condition of Yes token `token`.
    event RelayedSplit(address indexed owner, uint256 indexed token, uint256 amount);
    event RelayedMerge(address indexed owner, uint256 indexed token, uint256 amount);
    /// `amount` of `token` redeemed for `payout` USDC.
    event RelayedRedeem(address indexed owner, uint256 indexed token, uint256 amount, uint256 payout);

    error NotOperator(address caller);
    error UnsupportedVersion(uint8 version);
    error TokenConflict(uint256 token);
    error UnknownToken(uint256 token);
    error NotComplements(uint256 a, uint256 b);
    error UnsupportedSignatureType(uint8 signatureType);
    error BadSignature(bytes32 order);
    error Overfilled(bytes32 order);
    error PriceNotMet(bytes32 order);
    error AmountsMismatch(bytes32 tradeId);
    error RelayDeadlinePassed(uint256 deadline, uint256 nowSec);
    error RelayNonceMismatch(uint256 expected, uint256 nonce);
    error BadRelaySignature(address signer);
    error UnknownRelayAction(string action);
    error UnknownCondition(bytes32 conditionId);
    error NothingToRedeem(bytes32 conditionId);

    constructor(
        IERC20 collateral_,
        IConditionalTokens conditionalTokens_,
        address operator_,
        address[4] memory exchanges
    ) {
        collateral = collateral_;
        conditionalTokens = conditionalTokens_;
        operator = operator_;
        exchangeV1 = exchanges[0];
        negRiskExchangeV1 = exchanges[1];
        exchangeV2 = exchanges[2];
        negRiskExchangeV2 = exchanges[3];
    }

    modifier onlyOperator() {
        if (msg.sender != operator) revert NotOperator(msg.sender);
        _;
    }

    /// Registers a binary condition's two outcome tokens as complements. Registering the same pair
    /// again changes nothing; a token already paired otherwise is refused.
    function registerToken(uint256 token, uint256 complement, bytes32 conditionId) external onlyOperator {
        _register(token, complement, conditionId);
        _register(complement, token, conditionId);
        emit TokenRegistered(token, complement, conditionId);
    }

    function _register(uint256 token, uint256 complement, bytes32 conditionId) internal {
        Token storage known = tokens[token];
        if (known.conditionId != bytes32(0)) {
            if (known.conditionId != conditionId || known.complement != complement) revert TokenConflict(token);
            return;
        }
        tokens[token] = Token(conditionId, complement);
        if (yesTokens[conditionId] == 0) yesTokens[conditionId] = token;
    }

    /// The EIP-712 domain separator orders of `version` (1 or 2) are signed under.
    function domainSeparator(uint8 version, bool negRisk) public view returns (bytes32) {
        address verifying;
        bytes32 versionHash;
        if (version == 1) {
            verifying = negRisk ? negRiskExchangeV1 : exchangeV1;
            versionHash = keccak256("1");
        } else if (version == 2) {
            verifying = negRisk ? negRiskExchangeV2 : exchangeV2;
            versionHash = keccak256("2");
        } else {
            revert UnsupportedVersion(version);
        }
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, versionHash, block.chainid, verifying));
    }

    function hashOrderV1(OrderV1 memory o, bool negRisk) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            bytes.concat(
                abi.encode(ORDER_V1_TYPEHASH, o.salt, o.maker, o.signer, o.taker, o.tokenId, o.makerAmount),
                abi.encode(o.takerAmount, o.expiration, o.nonce, o.feeRateBps, o.side, o.signatureType)
            )
        );
        return _digest(domainSeparator(1, negRisk), structHash);
    }

    function hashOrderV2(OrderV2 memory o, bool negRisk) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            bytes.concat(
                abi.encode(ORDER_V2_TYPEHASH, o.salt, o.maker, o.signer, o.tokenId, o.makerAmount, o.takerAmount),
                abi.encode(o.side, o.signatureType, o.timestamp, o.metadata, o.builder)
            )
        );
        return _digest(domainSeparator(2, negRisk), structHash);
    }

    function settle(Trade[] calldata trades) external onlyOperator {
        for (uint256 i = 0; i < trades.length; i++) {
            Trade calldata t = trades[i];
            if (settled[t.fill.tradeId]) {
                emit TradeAlreadySettled(t.fill.tradeId);
                continue;
            }
            _settle(_terms(t.a), _terms(t.b), t.fill);
        }
    }

    function _digest(bytes32 separator, bytes32 structHash) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", separator, structHash));
    }

    /// The order's terms once its signature is checked under its version's domain.
    function _terms(SignedOrder calldata s) internal view returns (Terms memory) {
        if (s.version == 1) {
            OrderV1 memory o = abi.decode(s.order, (OrderV1));
            bytes32 hash = hashOrderV1(o, s.negRisk);
            _checkSignature(hash, o.maker, o.signer, o.signatureType, 1, s.signature);
            return Terms(hash, o.maker, o.tokenId, o.makerAmount, o.takerAmount, o.side);
        }
        if (s.version == 2) {
            OrderV2 memory o = abi.decode(s.order, (OrderV2));
            bytes32 hash = hashOrderV2(o, s.negRisk);
            _checkSignature(hash, o.maker, o.signer, o.signatureType, 2, s.signature);
            return Terms(hash, o.maker, o.tokenId, o.makerAmount, o.takerAmount, o.side);
        }
        revert UnsupportedVersion(s.version);
    }

    /// An EOA signs for itself; a contract wallet (POLY_1271, V2) answers ERC-1271 for itself. The
    /// proxy and Safe types need their factories on chain to tie a wallet to its owner, which this
    /// network does not deploy, so they are refused rather than trusted.
    function _checkSignature(
        bytes32 hash,
        address maker,
        address signer,
        uint8 signatureType,
        uint8 version,
        bytes calldata signature
    ) internal view {
        if (signatureType == SIGNATURE_EOA) {
            (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecover(hash, signature);
            if (err != ECDSA.RecoverError.NoError || recovered != signer || signer != maker) revert BadSignature(hash);
        } else if (signatureType == SIGNATURE_POLY_1271 && version == 2) {
            if (signer != maker || !SignatureChecker.isValidERC1271SignatureNow(maker, hash, signature)) {
                revert BadSignature(hash);
            }
        } else {
            revert UnsupportedSignatureType(signatureType);
        }
    }

    function _settle(Terms memory a, Terms memory b, Fill calldata f) internal {
        Token memory tokenA = tokens[a.tokenId];
        if (tokenA.conditionId == bytes32(0)) revert UnknownToken(a.tokenId);
        if (tokens[b.tokenId].conditionId == bytes32(0)) revert UnknownToken(b.tokenId);
        if (f.size == 0 || f.feeA > f.collateralA) revert AmountsMismatch(f.tradeId);
        settled[f.tradeId] = true;
        if (a.side != b.side) _settleNormal(a, b, f);
        else if (a.side == BUY) _settleMint(a, b, f, tokenA);
        else _settleMerge(a, b, f, tokenA);
        emit TradeSettled(f.tradeId, a.hash, b.hash, f.size, f.collateralA, f.collateralB, f.feeA);
    }

    /// A buys from B or sells to B, one token; A's fee comes out of what A pays or receives.
    function _settleNormal(Terms memory a, Terms memory b, Fill calldata f) internal {
        if (a.tokenId != b.tokenId || f.collateralA != f.collateralB) revert AmountsMismatch(f.tradeId);
        (Terms memory buyer, Terms memory seller) = a.side == BUY ? (a, b) : (b, a);
        _fill(buyer, f.collateralA, f.size);
        _fill(seller, f.size, f.collateralA);
        collateral.safeTransferFrom(buyer.maker, seller.maker, f.collateralA);
        conditionalTokens.safeTransferFrom(seller.maker, buyer.maker, a.tokenId, f.size, "");
        _chargeFee(a.maker, f.feeA);
    }

    /// A mint or a merge: the two tokens of one condition, whose two sides' collateral is one full set each.
    function _checkFullSets(Terms memory a, Terms memory b, Fill calldata f, Token memory tokenA) internal pure {
        if (tokenA.complement != b.tokenId) revert NotComplements(a.tokenId, b.tokenId);
        if (f.collateralA + f.collateralB != f.size) revert AmountsMismatch(f.tradeId);
    }

    function _settleMint(Terms memory a, Terms memory b, Fill calldata f, Token memory tokenA) internal {
        _checkFullSets(a, b, f, tokenA);
        _fill(a, f.collateralA, f.size);
        _fill(b, f.collateralB, f.size);
        collateral.safeTransferFrom(a.maker, address(this), f.collateralA);
        collateral.safeTransferFrom(b.maker, address(this), f.collateralB);
        collateral.forceApprove(address(conditionalTokens), f.size);
        conditionalTokens.splitPosition(collateral, bytes32(0), tokenA.conditionId, _partition(), f.size);
        conditionalTokens.safeTransferFrom(address(this), a.maker, a.tokenId, f.size, "");
        conditionalTokens.safeTransferFrom(address(this), b.maker, b.tokenId, f.size, "");
        _chargeFee(a.maker, f.feeA);
    }

    function _settleMerge(Terms memory a, Terms memory b, Fill calldata f, Token memory tokenA) internal {
        _checkFullSets(a, b, f, tokenA);
        _fill(a, f.size, f.collateralA);
        _fill(b, f.size, f.collateralB);
        conditionalTokens.safeTransferFrom(a.maker, address(this), a.tokenId, f.size, "");
        conditionalTokens.safeTransferFrom(b.maker, address(this), b.tokenId, f.size, "");
        conditionalTokens.mergePositions(collateral, bytes32(0), tokenA.conditionId, _partition(), f.size);
        collateral.safeTransfer(a.maker, f.collateralA);
        collateral.safeTransfer(b.maker, f.collateralB);
        _chargeFee(a.maker, f.feeA);
    }

    /// Counts `gives` against the order's maker amount and checks the price it signed:
    /// gets / gives >= takerAmount / makerAmount.
    function _fill(Terms memory t, uint256 gives, uint256 gets) internal {
        uint256 total = filled[t.hash] + gives;
        if (total > t.makerAmount) revert Overfilled(t.hash);
        filled[t.hash] = total;
        if (gets * t.makerAmount < gives * t.takerAmount) revert PriceNotMet(t.hash);
    }

    function _chargeFee(address payer, uint256 fee) internal {
        if (fee > 0) collateral.safeTransferFrom(payer, operator, fee);
    }

    // ---- Relay -------------------------------------------------------------------------------

    /// Runs a wallet's signed relay message: checks its deadline, nonce and signature, consumes the
    /// nonce, and runs the action for the wallet. Any failure reverts the whole, nonce included.
    function relay(RelayRequest calldata r, bytes calldata signature) external {
        if (block.timestamp > r.deadline) revert RelayDeadlinePassed(r.deadline, block.timestamp);
        uint256 expected = relayNonces[r.owner];
        if (r.nonce != expected) revert RelayNonceMismatch(expected, r.nonce);
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(relayDigest(r), signature);
        if (err != ECDSA.RecoverError.NoError || signer != r.owner) revert BadRelaySignature(signer);
        relayNonces[r.owner] = expected + 1;
        bytes32 action = keccak256(bytes(r.action));
        if (action == APPROVE) {
            IRelayedUSDC(address(collateral)).relayApprove(r.owner, r.amount);
            conditionalTokens.relayApprovalForAll(r.owner, r.amount > 0);
        } else if (action == SPLIT) {
            _relaySplit(r.owner, r.conditionId, r.amount);
        } else if (action == MERGE) {
            _relayMerge(r.owner, r.conditionId, r.amount);
        } else if (action == REDEEM) {
            _relayRedeem(r.owner, r.conditionId);
        } else {
            revert UnknownRelayAction(r.action);
        }
        emit Relayed(r.owner, r.nonce, r.action);
    }

    /// The digest a wallet signs for a relay message, the server's own (src/crypto/relay.ts).
    function relayDigest(RelayRequest calldata r) public view returns (bytes32) {
        bytes32 separator = keccak256(
            abi.encode(RELAY_DOMAIN_TYPEHASH, keccak256("Predex Relay"), keccak256("1"), block.chainid)
        );
        bytes32 structHash = keccak256(
            abi.encode(RELAY_TYPEHASH, r.owner, keccak256(bytes(r.action)), r.conditionId, r.amount, r.nonce, r.deadline)
        );
        return _digest(separator, structHash);
    }

    function _tokensOf(bytes32 conditionId) internal view returns (uint256 yes, uint256 no) {
        yes = yesTokens[conditionId];
        if (yes == 0) revert UnknownCondition(conditionId);
        no = tokens[yes].complement;
    }

    function _relaySplit(address owner, bytes32 conditionId, uint256 amount) internal {
        (uint256 yes, uint256 no) = _tokensOf(conditionId);
        collateral.safeTransferFrom(owner, address(this), amount);
        collateral.forceApprove(address(conditionalTokens), amount);
        conditionalTokens.splitPosition(collateral, bytes32(0), conditionId, _partition(), amount);
        conditionalTokens.safeTransferFrom(address(this), owner, yes, amount, "");
        conditionalTokens.safeTransferFrom(address(this), owner, no, amount, "");
        emit RelayedSplit(owner, yes, amount);
    }

    function _relayMerge(address owner, bytes32 conditionId, uint256 amount) internal {
        (uint256 yes, uint256 no) = _tokensOf(conditionId);
        conditionalTokens.safeTransferFrom(owner, address(this), yes, amount, "");
        conditionalTokens.safeTransferFrom(owner, address(this), no, amount, "");
        conditionalTokens.mergePositions(collateral, bytes32(0), conditionId, _partition(), amount);
        collateral.safeTransfer(owner, amount);
        emit RelayedMerge(owner, yes, amount);
    }

    /// Redeems all the wallet holds of both tokens and pays it what the reported outcome gives
    /// them; the Conditional Tokens refuse a condition not resolved yet. Tokens of the condition
    /// the exchange holds itself are redeemed with them, and their payout stays here.
    function _relayRedeem(address owner, bytes32 conditionId) internal {
        (uint256 yes, uint256 no) = _tokensOf(conditionId);
        uint256[2] memory ids = [yes, no];
        uint256[2] memory amounts;
        uint256[2] memory payouts;
        uint256 denominator = conditionalTokens.payoutDenominator(conditionId);
        for (uint256 i = 0; i < 2; i++) {
            amounts[i] = conditionalTokens.balanceOf(owner, ids[i]);
            if (amounts[i] == 0) continue;
            conditionalTokens.safeTransferFrom(owner, address(this), ids[i], amounts[i], "");
            if (denominator > 0) {
                payouts[i] = amounts[i] * conditionalTokens.payoutNumerators(conditionId, i) / denominator;
            }
        }
        if (amounts[0] + amounts[1] == 0) revert NothingToRedeem(conditionId);
        conditionalTokens.redeemPositions(collateral, bytes32(0), conditionId, _partition());
        if (payouts[0] + payouts[1] > 0) collateral.safeTransfer(owner, payouts[0] + payouts[1]);
        for (uint256 i = 0; i < 2; i++) {
            if (amounts[i] > 0) emit RelayedRedeem(owner, ids[i], amounts[i], payouts[i]);
        }
    }

    /// A binary condition's two outcomes, as index sets: Yes = 1, No = 2.
    function _partition() internal pure returns (uint256[] memory partition) {
        partition = new uint256[](2);
        partition[0] = 1;
        partition[1] = 2;
    }
}
