// The entries of a zip archive (a saved Terraform plan), read the way any unzip does: the end record,
// the central directory, then each local entry, stored or deflated. The suites grep every entry of a
// plan file for secrets that must not be there.
import assert from 'node:assert/strict'
import { inflateRawSync } from 'node:zlib'

/** Every entry of `zip`, inflated, by name. */
export function zipEntries(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  assert.ok(end >= 0, 'no end of central directory record: not a zip')
  const count = zip.readUInt16LE(end + 10)
  let at = zip.readUInt32LE(end + 16)
  const entries = new Map<string, Buffer>()
  for (let i = 0; i < count; i++) {
    assert.equal(zip.readUInt32LE(at), 0x02014b50, `central directory entry ${i}`)
    const method = zip.readUInt16LE(at + 10)
    const size = zip.readUInt32LE(at + 20)
    const nameLength = zip.readUInt16LE(at + 28)
    const extraLength = zip.readUInt16LE(at + 30)
    const commentLength = zip.readUInt16LE(at + 32)
    const local = zip.readUInt32LE(at + 42)
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8')
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
    const data = zip.subarray(start, start + size)
    assert.ok(method === 0 || method === 8, `${name}: compression method ${method}`)
    entries.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data))
    at += 46 + nameLength + extraLength + commentLength
  }
  return entries
}

/** Every entry of `zip` as text (a protobuf entry keeps its strings as UTF-8 bytes, so a search finds them). */
export function zipTexts(zip: Buffer): Map<string, string> {
  return new Map([...zipEntries(zip)].map(([name, data]) => [name, data.toString('utf8')]))
}
