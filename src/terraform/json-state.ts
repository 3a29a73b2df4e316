// Terraform's stored JSON state as cty values: what UpgradeResourceState and MoveResourceState receive
// (`raw_state.json`), decoded into the current schema's type.
import { type CtyType, type CtyValue, numberFromText } from './cty.js'
import { CtyCodecError } from './msgpack.js'

/**
 * Decodes UpgradeResourceState's `raw_state.json` (the state file's JSON for the stored schema version)
 * into the current type: attributes the type no longer has are dropped, missing ones become null, and
 * numbers keep their exact decimal text (JSON.parse would round 12345678901234567890).
 */
export function decodeJsonState(json: Uint8Array | string, type: CtyType): CtyValue {
  const text = typeof json === 'string' ? json : new TextDecoder().decode(json)
  return fromJson(new JsonParser(text).parseDocument(), type, '')
}

/** A JSON number, kept as its source text. */
class JsonNumber {
  constructor(readonly text: string) {}
}

type Json = null | boolean | string | JsonNumber | Json[] | Map<string, Json>

function fromJson(raw: Json, type: CtyType, path: string): CtyValue {
  if (raw === null) return null
  if (typeof type === 'string') {
    // The same leniency as go-cty's JSON decoder: primitives convert between their JSON spellings.
    switch (type) {
      case 'string':
        if (typeof raw === 'string') return raw
        if (raw instanceof JsonNumber) return raw.text
        if (typeof raw === 'boolean') return String(raw)
        break
      case 'number':
        if (raw instanceof JsonNumber || typeof raw === 'string') {
          try {
            return numberFromText(raw instanceof JsonNumber ? raw.text : raw)
          } catch {
            throw new CtyCodecError(path, `invalid number ${JSON.stringify(raw instanceof JsonNumber ? raw.text : raw)}`)
          }
        }
        break
      case 'bool':
        if (typeof raw === 'boolean') return raw
        if (raw === 'true' || raw === 'false') return raw === 'true'
        break
    }
    throw new CtyCodecError(path, `expected ${type} in JSON state`)
  }
  switch (type.kind) {
    case 'list':
    case 'set':
      if (!Array.isArray(raw)) break
      return raw.map((item, i) => fromJson(item, type.element, `${path}[${i}]`))
    case 'tuple':
      if (!Array.isArray(raw) || raw.length !== type.elements.length) break
      return type.elements.map((t, i) => fromJson(raw[i] ?? null, t, `${path}[${i}]`))
    case 'map':
      if (!(raw instanceof Map)) break
      return Object.fromEntries([...raw].map(([k, v]) => [k, fromJson(v, type.element, `${path}[${JSON.stringify(k)}]`)]))
    case 'object': {
      if (!(raw instanceof Map)) break
      const entries = Object.entries(type.attributes).map(([name, t]): [string, CtyValue] => [
        name,
        fromJson(raw.get(name) ?? null, t, `${path}.${name}`),
      ])
      return Object.fromEntries(entries)
    }
  }
  throw new CtyCodecError(path, `expected ${JSON.stringify(type)} in JSON state`)
}

/** A small RFC 8259 parser; objects become Maps so that keys like "__proto__" stay plain data. */
class JsonParser {
  private pos = 0
  constructor(private readonly text: string) {}

  parseDocument(): Json {
    const value = this.value()
    this.space()
    if (this.pos !== this.text.length) this.fail('unexpected trailing data')
    return value
  }

  private fail(message: string): never {
    throw new SyntaxError(`invalid JSON state at offset ${this.pos}: ${message}`)
  }

  private space(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos)
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break
      this.pos++
    }
  }

  private value(): Json {
    this.space()
    const c = this.text[this.pos]
    if (c === '{') return this.object()
    if (c === '[') return this.array()
    if (c === '"') return this.string()
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number()
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length
        return value
      }
    }
    return this.fail(c === undefined ? 'unexpected end' : `unexpected ${JSON.stringify(c)}`)
  }

  private object(): Map<string, Json> {
    const out = new Map<string, Json>()
    this.pos++
    this.space()
    if (this.text[this.pos] === '}') {
      this.pos++
      return out
    }
    for (;;) {
      this.space()
      if (this.text[this.pos] !== '"') this.fail('expected a key')
      const key = this.string()
      this.space()
      if (this.text[this.pos++] !== ':') this.fail('expected ":"')
      out.set(key, this.value())
      this.space()
      const next = this.text[this.pos++]
      if (next === '}') return out
      if (next !== ',') this.fail('expected "," or "}"')
    }
  }

  private array(): Json[] {
    const out: Json[] = []
    this.pos++
    this.space()
    if (this.text[this.pos] === ']') {
      this.pos++
      return out
    }
    for (;;) {
      out.push(this.value())
      this.space()
      const next = this.text[this.pos++]
      if (next === ']') return out
      if (next !== ',') this.fail('expected "," or "]"')
    }
  }

  private string(): string {
    // Find the closing quote, then let JSON.parse do escapes: it is exact for strings.
    const start = this.pos
    this.pos++
    for (;;) {
      const c = this.text[this.pos]
      if (c === undefined) this.fail('unterminated string')
      if (c === '"') break
      this.pos += c === '\\' ? 2 : 1
    }
    this.pos++
    try {
      return JSON.parse(this.text.slice(start, this.pos)) as string
    } catch {
      return this.fail('invalid string')
    }
  }

  private number(): JsonNumber {
    const match = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y
    match.lastIndex = this.pos
    const found = match.exec(this.text)
    if (!found) return this.fail('invalid number')
    this.pos += found[0].length
    return new JsonNumber(found[0])
  }
}
