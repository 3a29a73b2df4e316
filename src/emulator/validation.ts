// Request validation (the API's request-body rules and header rules): parsing a body, and the BodyReader
// that collects every failed check of a request so that one 422 names every bad field.
import { type Cycle, cycleOf, PROMOCODES } from './catalog.js'
import { type Issue, invalid } from './envelope.js'
import { isObject, type Json, type JsonObject } from './json.js'

/** A request body as received: absent, not JSON, or parsed. */
export type ParsedBody = { kind: 'none' } | { kind: 'invalid' } | { kind: 'json'; value: Json }

export function parseBody(text: string): ParsedBody {
  if (text.trim() === '') return { kind: 'none' }
  try {
    return { kind: 'json', value: JSON.parse(text) as Json }
  } catch {
    return { kind: 'invalid' }
  }
}

interface FieldRule {
  required?: boolean
}
interface StringRule extends FieldRule {
  min?: number
  max?: number
  pattern?: RegExp
  patternMsg?: string
}
interface IntRule extends FieldRule {
  min?: number
  max?: number
}

/**
 * Reads a body while collecting every failed check, so one 422 names every bad field (the API's error envelope).
 * Each reader returns undefined for a bad or absent value; `done` throws when anything failed.
 */
export class BodyReader {
  readonly issues: Issue[]
  private readonly fields: JsonObject

  constructor(body: ParsedBody, expectBody: boolean, inherited: Issue[] = []) {
    this.issues = [...inherited]
    this.fields = {}
    if (!expectBody) return
    if (body.kind === 'none') this.issues.push({ loc: ['body'], msg: 'a JSON object body is required', type: 'missing' })
    else if (body.kind === 'invalid') this.issues.push({ loc: ['body'], msg: 'body is not valid JSON', type: 'json_invalid' })
    else if (!isObject(body.value)) this.issues.push({ loc: ['body'], msg: 'body must be a JSON object', type: 'type_error' })
    else this.fields = body.value
  }

  /** False once the body itself failed: field checks would only repeat that one issue. */
  get usable(): boolean {
    return !this.issues.some((i) => i.loc.length === 1)
  }

  fail(field: string, msg: string, type: Issue['type'] = 'value_error', where = 'body'): undefined {
    this.issues.push({ loc: [where, field], msg, type })
    return undefined
  }

  private raw(field: string, rule: FieldRule): Json | undefined {
    const value = this.fields[field]
    if (value === undefined || value === null) {
      if (rule.required && this.usable) this.fail(field, 'field required', 'missing')
      return undefined
    }
    return value
  }

  int(field: string, rule: IntRule = {}): number | undefined {
    const value = this.raw(field, rule)
    if (value === undefined) return undefined
    if (typeof value !== 'number' || !Number.isInteger(value)) return this.fail(field, 'must be an integer', 'type_error')
    if (rule.min !== undefined && value < rule.min) return this.fail(field, `must be at least ${rule.min}`)
    if (rule.max !== undefined && value > rule.max) return this.fail(field, `must be at most ${rule.max}`)
    return value
  }

  string(field: string, rule: StringRule = {}): string | undefined {
    const value = this.raw(field, rule)
    if (value === undefined) return undefined
    if (typeof value !== 'string') return this.fail(field, 'must be a string', 'type_error')
    const min = rule.min ?? 1
    const max = rule.max ?? 255
    // Characters, as the API states its limits: an emoji is one character, though two UTF-16 units.
    const length = [...value].length
    if (length < min || length > max) {
      return this.fail(field, min === max ? `must be ${min} characters` : `must be ${min}-${max} characters`)
    }
    if (rule.pattern && !rule.pattern.test(value)) return this.fail(field, rule.patternMsg ?? 'has an invalid format')
    return value
  }

  oneOf<T extends string>(field: string, values: readonly T[], rule: FieldRule = {}): T | undefined {
    const value = this.string(field, rule)
    if (value === undefined) return undefined
    if (!(values as readonly string[]).includes(value)) return this.fail(field, `must be one of ${values.join(', ')}`)
    return value as T
  }

  cycle(allowed?: readonly string[]): Cycle | undefined {
    const code = this.string('cycle', { required: true })
    if (code === undefined) return undefined
    const cycle = cycleOf(code)
    if (!cycle || (allowed && !allowed.includes(code))) return this.fail('cycle', `unknown or unoffered cycle '${code}'`)
    return cycle
  }

  /** `pay_invoice_with_cc` (the API's request-body rules): boolean, also "yes"/"no"; absent or null means pay now. */
  pay(): boolean {
    const value = this.fields.pay_invoice_with_cc
    if (value === undefined || value === null || value === true) return true
    if (value === false) return false
    if (typeof value === 'string') {
      const word = value.toLowerCase()
      if (word === 'yes') return true
      if (word === 'no') return false
    }
    this.fail('pay_invoice_with_cc', 'must be a boolean', 'type_error')
    return true
  }

  /** Omitted, null and "" all mean no code (the API's request-body rules). */
  promocode(): string | null {
    const value = this.fields.promocode
    if (value === undefined || value === null || value === '') return null
    if (typeof value !== 'string') return this.fail('promocode', 'must be a string', 'type_error') ?? null
    if (!Object.hasOwn(PROMOCODES, value)) return this.fail('promocode', `unknown promocode '${value}'`) ?? null
    return value
  }

  description(): string {
    return this.string('description', { min: 0, max: 255 }) ?? ''
  }

  done(): void {
    if (this.issues.length > 0) throw invalid(this.issues)
  }
}

export const USER_PATTERN = /^[A-Za-z0-9.-]+$/
export const PASSWORD_PATTERN = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)[A-Za-z\d]+$/

/** Idempotency-Key (the API's header rules): 1-255 printable ASCII characters. */
export function idempotencyKeyIssue(key: string | null): Issue | null {
  if (key === null) return null
  if (/^[\x20-\x7e]{1,255}$/.test(key)) return null
  return { loc: ['header', 'Idempotency-Key'], msg: 'must be 1-255 printable ASCII characters', type: 'value_error' }
}
