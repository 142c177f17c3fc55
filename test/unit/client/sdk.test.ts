/**
 * The SDK: a wallet from the reference key signs the reference order exactly; the POST /order
 * body is byte for byte the reference's (so its HMAC is the reference vector); and L1 and L2
 * headers made by the SDK pass the server's checks over a real HTTP exchange (a local server
 * running src/auth), while a tampered request is refused with the failing check's code.
 */
import t from 'tap'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Wallet } from '../../../src/crypto/wallet.js'
import { orderBody, signLimitOrder } from '../../../src/client/orders.js'
import { RestTransport, PredexApiError } from '../../../src/client/rest-transport.js'
import { verifyL1 } from '../../../src/auth/l1.js'
import { verifyL2, type ApiCredential } from '../../../src/auth/l2.js'
import { DEFAULT_WINDOW } from '../../../src/auth/failure.js'
import { l2Signature } from '../../../src/crypto/hmac.js'

const wallet = new Wallet('0x' + '11'.repeat(32))

t.test('the reference order, signed and written as clob-client writes it', (t) => {
  t.equal(wallet.address, '0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A')
  const signed = signLimitOrder(wallet, { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: 137 },
    { tokenId: '123', side: 'BUY', price: 0.5, size: 10 }, { salt: '12345' })
  t.equal(signed.orderId, '0x82021a2ede3f548f5b56b0fc116f5d280937b7b3570a699b7504c93bf44e26ac')
  t.equal(signed.signature, '0x00db3671d59cfa5ec2b7bfdad5180692993d1cb6349e9061a6639c8c5b950045688b6c82855ab73b17ec2241f3f0f955fdfd85ae65e33032842b0e6673ac61eb1b')
  const body = orderBody(signed, '00000000-0000-4000-8000-000000000001', 'GTC')
  t.equal(l2Signature('c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=', '1700000000', 'POST', '/order', body),
    '6N51qQlI-Y00W1PsFWf48z4nZKdXPuFpozOqj-z1Jq0=', 'the body is the reference body, byte for byte')
  t.end()
})

t.test('SDK headers pass the server checks over HTTP', async (t) => {
  const credential: ApiCredential = { apiKey: 'k-1', address: wallet.address.toLowerCase(), secret: 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=',
    passphrase: 'pass', nonce: 0 }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const get = (name: string): string | undefined => header(request, name)
      const path = request.url!.split('?')[0]!
      const now = Math.floor(Date.now() / 1000)
      const result = path === '/auth/api-key'
        ? verifyL1(get, 80002, now, DEFAULT_WINDOW)
        : verifyL2({ method: request.method!, path, body: Buffer.concat(chunks), headers: get },
          (key) => (key === credential.apiKey ? credential : undefined), now, DEFAULT_WINDOW)
      response.writeHead(result.ok ? 200 : 401, { 'content-type': 'application/json' })
      response.end(JSON.stringify(result.ok ? result : { error: result.message, code: result.code }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  for (const headerFamily of ['POLY', 'EXCHANGE'] as const) {
    const transport = new RestTransport({ baseUrl, headerFamily })
    t.match(await transport.request('POST', '/auth/api-key', { kind: 'l1', wallet, chainId: 80002 }), { ok: true, address: credential.address }, `L1, ${headerFamily}`)
    t.match(await transport.request('DELETE', '/order?x=1', { kind: 'l2', credentials: credential, address: wallet.address }, { orderID: '0xabc' }),
      { ok: true, apiKey: 'k-1' }, `L2 with a body and a query, ${headerFamily}`)
  }
  const skewed = new RestTransport({ baseUrl, now: () => Date.now() / 1000 - 120 })
  t.same(await apiError(skewed.request('GET', '/data/orders', { kind: 'l2', credentials: credential, address: wallet.address })),
    [401, 'AUTH_TIMESTAMP'], 'a clock two minutes behind')
  const transport = new RestTransport({ baseUrl })
  const wrongSecret = { ...credential, secret: 'AAAA' + credential.secret.slice(4) }
  t.same(await apiError(transport.request('GET', '/data/orders', { kind: 'l2', credentials: wrongSecret, address: wallet.address })),
    [401, 'AUTH_SIGNATURE'], 'a wrong secret')
  t.same(await apiError(transport.request('POST', '/auth/api-key', { kind: 'l1', wallet, chainId: 137 })),
    [401, 'AUTH_L1_SIGNATURE'], 'L1 signed for another chain')
})

/** The status and code of the PredexApiError a request fails with. */
async function apiError(request: Promise<unknown>): Promise<[number, string] | string> {
  try {
    await request
    return 'no error'
  } catch (error) {
    return error instanceof PredexApiError ? [error.status, error.code] : String(error)
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}
