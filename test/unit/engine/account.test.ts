/**
 * Accounts compare addresses by numeric keys when both are lowercase hex addresses
 * (src/engine/account.ts, isAddressAfter): the answer must be exactly `>` on the strings, for
 * keyed pairs (shared prefixes of every length, digits against letters) and for pairs where one
 * or both addresses have no key (mixed case, other lengths, not hex).
 */
import t from 'tap'
import { Account, isAddressAfter } from '../../../src/engine/account.js'
import { Random } from '../../simulation/random.js'

const seed = Number(process.env.ACCOUNT_SEED ?? 20_261_129)

function hexAddress(random: Random, prefix: string): string {
  const digits = '0123456789abcdef'
  let address = prefix
  while (address.length < 42) address += digits[random.int(0, 15)]
  return address
}

t.test('isAddressAfter agrees with > on the address strings', (t) => {
  t.comment(`seed ${seed} (ACCOUNT_SEED=${seed} to reproduce)`)
  const random = new Random(seed)
  const addresses: string[] = []
  // Keyed: random, and sharing a long prefix that ends in each chunk of ten digits.
  for (let i = 0; i < 40; i++) addresses.push(hexAddress(random, '0x'))
  const base = hexAddress(random, '0x')
  for (let shared = 2; shared < 42; shared += 3) addresses.push(hexAddress(random, base.slice(0, shared)))
  addresses.push('0x' + '0'.repeat(40), '0x' + 'f'.repeat(40), '0x' + '9'.repeat(39) + 'a')
  // Not keyed: a checksummed (mixed-case) address, other lengths, other characters.
  addresses.push('0x' + 'A'.repeat(40), '0x' + 'a'.repeat(39) + 'F', base.slice(0, 41), base + '0', 'key-7', 'z', '0x')
  const accounts = addresses.map((address, i) => new Account(i, address))
  t.ok(accounts[0]!.addressKey0 >= 0, 'a lowercase hex address has keys')
  t.equal(accounts[accounts.length - 1]!.addressKey0, -1, 'anything else has none')
  let wrong = 0
  for (const a of accounts) for (const b of accounts) if (isAddressAfter(a, b) !== a.address > b.address) wrong++
  t.equal(wrong, 0, `all ${accounts.length ** 2} ordered pairs agree`)
  t.end()
})
