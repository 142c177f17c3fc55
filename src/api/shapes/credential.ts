/** API credentials (reference section 5.2): created or derived with L1, listed and revoked with L2. */

/** POST /auth/api-key and GET /auth/derive-api-key. The secret is base64url, for the HMAC. */
export type ApiCredentials = {
  readonly apiKey: string
  readonly secret: string
  readonly passphrase: string
}

/** GET /auth/api-keys: the caller's API keys. */
export type ApiKeys = {
  readonly apiKeys: readonly string[]
}

/** DELETE /auth/api-key: false when the key was already revoked. */
export type ApiKeyDeleted = {
  readonly deleted: boolean
}
