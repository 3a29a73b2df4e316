// The certificate of go-plugin's AutoMTLS: a self-signed server certificate made at each launch, in the
// profile go-plugin expects, and the client's certificate read from the handshake's environment.
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto'

/** A self-signed certificate for go-plugin's AutoMTLS. */
export interface Certificate {
  /** PEM certificate, for the TLS server (or, in tests, the client). */
  readonly cert: string
  /** PEM PKCS#8 private key. */
  readonly key: string
  /** Base64 of the DER, standard alphabet without padding: Go's RawStdEncoding, as the handshake line wants. */
  readonly handshake: string
}

/**
 * Builds the server certificate go-plugin expects: ECDSA P-256 (0.4 ms, where RSA takes 100 ms), SAN
 * DNS:localhost (the client dials "localhost" and Go ignores the CN), and go-plugin's own profile: CA:TRUE,
 * keyUsage digitalSignature|keyEncipherment|keyAgreement|certSign, EKU serverAuth+clientAuth, and a NotBefore
 * 30 s in the past to absorb clock skew.
 */
export function createCertificate(now: Date = new Date()): Certificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const spki = publicKey.export({ type: 'spki', format: 'der' })
  const notBefore = new Date(now.getTime() - 30_000)
  const notAfter = new Date(notBefore)
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + 30) // as go-plugin; the process never lives that long
  const name = seq(set(seq(oid(OID.organization), utf8('terraform-provider-provider'))), set(seq(oid(OID.commonName), utf8('localhost'))))
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serialNumber()),
    seq(oid(OID.ecdsaWithSha256)),
    name,
    seq(time(notBefore), time(notAfter)),
    name,
    spki,
    explicit(
      3,
      seq(
        extension(OID.basicConstraints, true, seq(boolean(true))),
        extension(OID.keyUsage, true, keyUsageBits()),
        extension(OID.extKeyUsage, false, seq(oid(OID.serverAuth), oid(OID.clientAuth))),
        extension(OID.subjectKeyIdentifier, false, octets(keyIdentifier(spki))),
        extension(OID.subjectAltName, false, seq(tlv(0x82, Buffer.from('localhost', 'ascii')))),
      ),
    ),
  )
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' })
  const der = seq(tbs, seq(oid(OID.ecdsaWithSha256)), bitString(signature))
  const base64 = der.toString('base64')
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${base64.replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    handshake: base64.replace(/=+$/, ''),
  }
}

/** Rebuilds the PEM form of the certificate carried in a handshake line (for clients and tests). */
export function pemFromHandshake(handshake: string): string {
  const der = Buffer.from(handshake, 'base64')
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`
}

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectKeyIdentifier: '2.5.29.14',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const

/**
 * 16 random bytes with the top byte forced into 0x40–0x7f: positive (no 0x00 sign pad needed) and never
 * starting with 0x00, which would be a non-minimal INTEGER that OpenSSL rejects (once in 256 starts otherwise).
 */
function serialNumber(): Buffer {
  const bytes = randomBytes(16)
  bytes[0] = ((bytes[0] ?? 0) & 0x3f) | 0x40
  return bytes
}

function keyUsageBits(): Buffer {
  // Bits 0 digitalSignature, 2 keyEncipherment, 4 keyAgreement, 5 keyCertSign → 1010 1100; DER drops the two
  // trailing zero bits, so the "unused bits" byte is 2.
  return tlv(0x03, Buffer.from([2, 0b1010_1100]))
}

function keyIdentifier(spki: Buffer): Buffer {
  // RFC 5280 method 1: SHA-1 of the subjectPublicKey BIT STRING contents. For a P-256 SPKI the key is the
  // last 65 bytes (uncompressed point), after the fixed algorithm header.
  return createHash('sha1')
    .update(spki.subarray(spki.length - 65))
    .digest()
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? seq(oid(id), boolean(true), octets(value)) : seq(oid(id), octets(value))
}

function time(date: Date): Buffer {
  // RFC 5280: UTCTime through 2049, GeneralizedTime from 2050.
  const iso = date.toISOString() // YYYY-MM-DDTHH:MM:SS.sssZ
  const compact = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(compact.slice(2), 'ascii')) : tlv(0x18, Buffer.from(compact, 'ascii'))
}

// DER writer: tag, minimal length, contents.
function tlv(tag: number, contents: Buffer): Buffer {
  const n = contents.length
  let header: number[]
  if (n < 0x80) header = [tag, n]
  else {
    const lengthBytes: number[] = []
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) lengthBytes.unshift(rest & 0xff)
    header = [tag, 0x80 | lengthBytes.length, ...lengthBytes]
  }
  return Buffer.concat([Buffer.from(header), contents])
}

function seq(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items))
}

function set(...items: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(items))
}

function explicit(n: number, inner: Buffer): Buffer {
  return tlv(0xa0 | n, inner)
}

function boolean(value: boolean): Buffer {
  return tlv(0x01, Buffer.from([value ? 0xff : 0x00]))
}

function octets(value: Buffer): Buffer {
  return tlv(0x04, value)
}

function utf8(text: string): Buffer {
  return tlv(0x0c, Buffer.from(text, 'utf8'))
}

function bitString(value: Buffer): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([0]), value]))
}

/** A non-negative INTEGER from big-endian bytes, minimal: no redundant leading zeros, a 0x00 pad only for sign. */
function integer(bytes: Buffer): Buffer {
  let start = 0
  while (start < bytes.length - 1 && bytes[start] === 0 && ((bytes[start + 1] ?? 0) & 0x80) === 0) start++
  const body = bytes.subarray(start)
  return tlv(0x02, ((body[0] ?? 0) & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), body]) : body)
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number)
  const [first = 0, second = 0, ...rest] = parts
  const out = [first * 40 + second]
  for (const part of rest) {
    const base128: number[] = [part & 0x7f]
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) base128.unshift((v & 0x7f) | 0x80)
    out.push(...base128)
  }
  return tlv(0x06, Buffer.from(out))
}
