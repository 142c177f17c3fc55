#!/usr/bin/env node
// A new user's first trade with the SDK: the example itself (examples/sdk-first-trade.mjs), kept
// in one copy; this path stays because the README and older notes name it. Same arguments:
//
//   node scripts/first-trade.mjs [http://127.0.0.1:8080] [--key 0x<private key>]
await import('../examples/sdk-first-trade.mjs')
