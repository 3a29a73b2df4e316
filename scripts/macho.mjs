// Checks the code signature of a Mach-O executable (64-bit, one architecture) as macOS's kernel checks its
// pages: the signature's CodeDirectory holds a hash of every page of the file up to the signature, and a
// page whose hash differs gets the process killed. Apple silicon runs no binary without a valid signature
// (an ad hoc one will do); Intel Macs run unsigned binaries, but not ones whose signature is broken.
import { createHash } from 'node:crypto'

const MH_MAGIC_64 = 0xfeedfacf
const LC_CODE_SIGNATURE = 0x1d
const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0
const CSMAGIC_CODEDIRECTORY = 0xfade0c02
const HASH_TYPES = { 1: 'sha1', 2: 'sha256' }

/**
 * Throws, naming `name`, when `binary` carries a signature whose CodeDirectory does not match its pages,
 * or when `required` and it carries none. Returns 'signed' or 'unsigned'.
 * @param {Buffer} binary
 * @param {{ required: boolean, name: string }} options
 */
export function checkMachOSignature(binary, { required, name }) {
  if (binary.readUInt32LE(0) !== MH_MAGIC_64) throw new Error(`${name} is not a 64-bit Mach-O executable`)
  const commands = binary.readUInt32LE(16)
  let offset = 32
  let signature
  for (let i = 0; i < commands; i++) {
    if (binary.readUInt32LE(offset) === LC_CODE_SIGNATURE)
      signature = { start: binary.readUInt32LE(offset + 8), size: binary.readUInt32LE(offset + 12) }
    offset += binary.readUInt32LE(offset + 4)
  }
  if (!signature) {
    if (required) throw new Error(`${name} has no code signature: Apple silicon would refuse to run it`)
    return 'unsigned'
  }
  const blob = binary.subarray(signature.start, signature.start + signature.size)
  if (blob.readUInt32BE(0) !== CSMAGIC_EMBEDDED_SIGNATURE) throw new Error(`${name}: the code signature is not an embedded signature`)
  let directories = 0
  for (let i = 0; i < blob.readUInt32BE(8); i++) {
    const at = blob.readUInt32BE(16 + i * 8)
    if (blob.readUInt32BE(at) !== CSMAGIC_CODEDIRECTORY) continue
    directories++
    const cd = blob.subarray(at)
    const hashOffset = cd.readUInt32BE(16)
    const slots = cd.readUInt32BE(28)
    const codeLimit = cd.readUInt32BE(32)
    const hashSize = cd[36]
    const algorithm = HASH_TYPES[cd[37]]
    const pageSize = 2 ** cd[39]
    if (!algorithm) throw new Error(`${name}: the code signature uses hash type ${cd[37]}, which this check does not know`)
    if (codeLimit !== signature.start)
      throw new Error(`${name}: the code signature covers ${codeLimit} bytes, the file has ${signature.start} before it`)
    if (slots !== Math.ceil(codeLimit / pageSize))
      throw new Error(`${name}: the code signature has ${slots} page hashes for ${codeLimit} bytes`)
    for (let slot = 0; slot < slots; slot++) {
      const page = binary.subarray(slot * pageSize, Math.min((slot + 1) * pageSize, codeLimit))
      const expected = cd.subarray(hashOffset + slot * hashSize, hashOffset + (slot + 1) * hashSize)
      if (!createHash(algorithm).update(page).digest().subarray(0, hashSize).equals(expected))
        throw new Error(`${name}: page ${slot} does not match its hash in the code signature: macOS would kill the process`)
    }
  }
  if (directories === 0) throw new Error(`${name}: the code signature has no code directory`)
  return 'signed'
}
