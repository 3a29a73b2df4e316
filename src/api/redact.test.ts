// Redaction of values under secret-looking keys (what `raw` outputs and the request log may show):
// any depth, arrays included, the input untouched, extra keys only when asked.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { redact, redactedJson } from './redact.js'

describe('redact', () => {
  test('hides values of secret-looking keys at any depth, arrays included, without touching the input', () => {
    const input = {
      account_id: 100042,
      extra_details: { cipassword: 'S3cretPass9', name: 'web' },
      keys: [{ private_key: '-----BEGIN', public_key: 'ssh-ed25519 AAAA' }, { nested: [{ API_TOKEN: 't' }] }],
      Client_Secret: { deep: 'object' },
      console_password: null,
    }
    assert.deepEqual(redact(input), {
      account_id: 100042,
      extra_details: { cipassword: '***', name: 'web' },
      keys: [{ private_key: '***', public_key: 'ssh-ed25519 AAAA' }, { nested: [{ API_TOKEN: '***' }] }],
      Client_Secret: '***',
      console_password: '***',
    })
    assert.equal(input.extra_details.cipassword, 'S3cretPass9')
  })

  test('config is hidden only when asked (the OpenVPN profile)', () => {
    assert.deepEqual(redact({ config: 'client\ndev tun' }), { config: 'client\ndev tun' })
    assert.deepEqual(redact({ config: 'client', vpn_config: 'x' }, { extraKeys: ['config'] }), {
      config: '***',
      vpn_config: '***',
    })
  })

  test('primitives pass through; redactedJson gives the JSON text', () => {
    assert.equal(redact('text'), 'text')
    assert.equal(redact(null), null)
    assert.equal(redactedJson({ a: [1, { password: 'p' }] }), '{"a":[1,{"password":"***"}]}')
    assert.equal(redactedJson(undefined), 'null')
  })
})
