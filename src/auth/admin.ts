/** The admin API key check: the `EXCHANGE-ADMIN-KEY` header against the configured key, constant time. */
import { equalSecrets } from '../crypto/hmac.js'
import { AuthCode } from '../errors.js'
import { authFailure, type AuthFailure } from './failure.js'
import type { HeaderGetter } from './headers.js'

export function verifyAdmin(get: HeaderGetter, adminKey: string): { ok: true } | AuthFailure {
  const given = get('exchange-admin-key')
  if (given === undefined || given === '') {
    return authFailure(AuthCode.AUTH_ADMIN_KEY, 'the EXCHANGE-ADMIN-KEY header is missing')
  }
  if (!equalSecrets(given, adminKey)) return authFailure(AuthCode.AUTH_ADMIN_KEY, 'the admin key is wrong')
  return { ok: true }
}
