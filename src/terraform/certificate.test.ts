// The AutoMTLS certificate: a self-signed localhost CA that node:crypto parses and verifies, well-formed every time.
import assert from 'node:assert/strict'
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { createSecureContext } from 'node:tls'
import { describe, test } from 'node:test'
import { createCertificate, pemFromHandshake } from './certificate.js'

describe('createCertificate', () => {
  test('is a self-signed localhost CA that node:crypto parses and verifies', () => {
    const now = new Date()
    const { cert, key, handshake } = createCertificate(now)
    const x509 = new X509Certificate(cert)
    assert.equal(x509.subjectAltName, 'DNS:localhost')
    assert.equal(x509.ca, true)
    assert.ok(x509.checkHost('localhost'))
    assert.ok(x509.verify(x509.publicKey), 'self-signature verifies')
    assert.ok(x509.checkIssued(x509))
    assert.equal(x509.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1')
    assert.equal(new Date(x509.validFrom).getTime(), Math.floor((now.getTime() - 30_000) / 1000) * 1000)
    assert.ok(new Date(x509.validTo).getTime() > now.getTime() + 365 * 24 * 3600_000)
    assert.deepEqual(x509.keyUsage, ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'])
    assert.ok(x509.checkPrivateKey(createPrivateKey(key)))
    createSecureContext({ cert, key }) // OpenSSL accepts the pair for a TLS server
    // The handshake form is unpadded standard base64 of the DER (Go's RawStdEncoding).
    assert.doesNotMatch(handshake, /[=\n]/)
    assert.deepEqual(Buffer.from(handshake, 'base64'), x509.raw)
    assert.equal(pemFromHandshake(handshake), cert)
  })

  test('300 generations in a row are all well-formed DER with a minimal serial', () => {
    for (let i = 0; i < 300; i++) {
      const { cert, key } = createCertificate()
      const x509 = new X509Certificate(cert) // throws on malformed DER (e.g. a non-minimal INTEGER)
      const top = Number.parseInt(x509.serialNumber.slice(0, 2), 16)
      assert.ok(top >= 0x40 && top <= 0x7f, `serial ${x509.serialNumber}`)
      assert.equal(x509.serialNumber.length, 32)
      assert.ok(x509.verify(x509.publicKey))
      createSecureContext({ cert, key })
    }
  })
})
