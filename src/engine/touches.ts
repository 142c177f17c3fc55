/**
 * What the current command touched: balances and price levels, each with its value from before
 * the command. At the end of the command the engine turns the ones that really changed into
 * `balance` and `bookLevel` events. A stamp per command makes "first touch" an O(1) check.
 */
import type { Account, ShareBalance } from './account.js'
import type { Level } from './book.js'

export class Touches {
  /** Increases by one per command; 0 is never a command's stamp. */
  stamp = 0
  /**
   * False while the engine replays (`Engine.applyForReplay`): nothing reads what was touched, since
   * no aggregated event is written, so nothing is recorded.
   */
  recording = true
  /**
   * The touched objects are the first `*Count` entries; the arrays are reused from command to
   * command (setting a length to 0 showed up in profiles).
   */
  readonly accounts: Account[] = []
  readonly shares: ShareBalance[] = []
  readonly levels: Level[] = []
  accountCount = 0
  shareCount = 0
  levelCount = 0
  /** Scratch of aggregate.ts: the changed levels' items, sorted (2 x level index + 1 for No). */
  readonly levelItems: number[] = []

  begin(recording: boolean): void {
    this.recording = recording
    this.stamp++
    this.accountCount = 0
    this.shareCount = 0
    this.levelCount = 0
  }

  account(account: Account): void {
    if (!this.recording || account.stamp === this.stamp) return
    account.stamp = this.stamp
    account.usdcBeforeMicros = account.usdcMicros
    account.usdcHeldBeforeMicros = account.usdcHeldMicros
    this.accounts[this.accountCount++] = account
  }

  shareBalance(shares: ShareBalance): void {
    if (!this.recording || shares.stamp === this.stamp) return
    shares.stamp = this.stamp
    shares.balanceBeforeMicros = shares.balanceMicros
    shares.heldBeforeMicros = shares.heldMicros
    this.shares[this.shareCount++] = shares
  }

  level(level: Level): void {
    if (!this.recording || level.stamp === this.stamp) return
    level.stamp = this.stamp
    level.noLotsBefore = level.noLots
    level.yesLotsBefore = level.lots - level.noLots
    this.levels[this.levelCount++] = level
  }
}
