// OpenSSH key formats for the keypair calls: an Ed25519 keypair generated in OpenSSH's own formats, the
// checks an imported public key line must pass, and a key's fingerprint as OpenSSH prints it (the control
// API's keypairs list). Also used by tests that need a real key.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'

/** SSH wire `string`: a uint32 big-endian length, then the bytes. */
function sshString(data: Buffer | string): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data
  const length = Buffer.alloc(4)
  length.writeUInt32BE(bytes.length)
  return Buffer.concat([length, bytes])
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n)
  return b
}

/** Reads the SSH strings of a blob; null when the blob is not a clean sequence of them. */
function readStrings(blob: Buffer): Buffer[] | null {
  const out: Buffer[] = []
  let offset = 0
  while (offset < blob.length) {
    if (offset + 4 > blob.length) return null
    const length = blob.readUInt32BE(offset)
    offset += 4
    if (offset + length > blob.length) return null
    out.push(blob.subarray(offset, offset + length))
    offset += length
  }
  return out
}

export interface GeneratedKey {
  publicKey: string
  privateKey: string
}

/**
 * A fresh Ed25519 pair in OpenSSH formats: the public line, and the unencrypted
 * openssh-key-v1 container (cipher none, check ints, 1,2,3... padding to 8 bytes).
 */
export function generateEd25519(comment: string): GeneratedKey {
  // Encoded by the generation itself, with no KeyObject: Node.js 20 can deadlock exporting a key object
  // as JWK when a garbage collection during the export frees the job that made it (seen as a test
  // process stuck at 0 % CPU in a futex, under KeyObjectHandle::ExportJWK and ~KeyGenJob). An Ed25519
  // key's DER ends with its 32 raw bytes: the public key in SPKI, the seed in PKCS #8.
  const { publicKey, privateKey } = generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  })
  const pub = publicKey.subarray(publicKey.length - 32)
  const seed = privateKey.subarray(privateKey.length - 32)
  const pubBlob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)])
  const check = randomBytes(4)
  const section = Buffer.concat([
    check,
    check,
    sshString('ssh-ed25519'),
    sshString(pub),
    sshString(Buffer.concat([seed, pub])),
    sshString(comment),
  ])
  const padLength = (8 - (section.length % 8)) % 8
  const padding = Buffer.from(Array.from({ length: padLength }, (_, i) => i + 1))
  const container = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(pubBlob),
    sshString(Buffer.concat([section, padding])),
  ])
  const lines = container.toString('base64').match(/.{1,70}/g) ?? []
  return {
    publicKey: `ssh-ed25519 ${pubBlob.toString('base64')} ${comment}`,
    privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`,
  }
}

const KEY_TYPES = ['ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521']

/** Why a K3 public key line is malformed, or null when it is a well-formed OpenSSH key. */
export function publicKeyProblem(line: string): string | null {
  if (/[\r\n]/.test(line.trim())) return 'must be one line'
  const parts = line.trim().split(/\s+/)
  const [type, body] = parts
  if (!type || !KEY_TYPES.includes(type)) return `key type must be one of ${KEY_TYPES.join(', ')}`
  if (!body || !/^[A-Za-z0-9+/]+={0,2}$/.test(body) || body.length % 4 !== 0) return 'key body is not base64'
  const strings = readStrings(Buffer.from(body, 'base64'))
  if (!strings || strings.length < 2) return 'key body is not an SSH public key blob'
  if (strings[0]!.toString() !== type) return `key body holds a ${strings[0]!.toString()} key, not ${type}`
  if (type === 'ssh-ed25519' && (strings.length !== 2 || strings[1]!.length !== 32)) return 'bad ssh-ed25519 key length'
  if (type === 'ssh-rsa' && strings.length !== 3) return 'bad ssh-rsa key'
  if (type.startsWith('ecdsa-') && (strings.length !== 3 || strings[1]!.toString() !== type.slice(11))) {
    return `bad ${type} key`
  }
  return null
}

/**
 * The SHA256 fingerprint of a public key line as `ssh-keygen -l` prints it: `SHA256:` and the base64 of the
 * SHA-256 of the decoded key blob, without its padding. Null for a line whose second field is no base64.
 */
export function fingerprint(line: string): string | null {
  const body = line.trim().split(/\s+/)[1]
  if (!body || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null
  const digest = createHash('sha256').update(Buffer.from(body, 'base64')).digest('base64')
  return `SHA256:${digest.replace(/=+$/, '')}`
}
