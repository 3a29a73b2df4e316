// The hclog JSON lines: the levels Terraform's variables ask for, the timestamp's exact form, and fields.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createLogger, formatTimestamp, type LoggerOptions, logLevelFromEnv } from './log.js'

function capture(options: LoggerOptions) {
  const lines: string[] = []
  const log = createLogger({ ...options, write: (line) => lines.push(line), now: () => Date.UTC(2025, 0, 2, 3, 4, 5, 123) + 0.456 })
  return { log, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) }
}

describe('logLevelFromEnv', () => {
  const cases: [Record<string, string>, string | undefined][] = [
    [{}, undefined],
    [{ TF_LOG: '' }, undefined],
    [{ TF_LOG: 'off' }, undefined],
    [{ TF_LOG: 'DEBUG' }, 'debug'],
    [{ TF_LOG: 'warn' }, 'warn'],
    [{ TF_LOG: 'JSON' }, 'trace'],
    [{ TF_LOG: 'bogus' }, 'trace'],
    [{ TF_LOG: 'TRACE', TF_LOG_PROVIDER: 'ERROR' }, 'error'],
    [{ TF_LOG_PROVIDER: 'info' }, 'info'],
  ]
  for (const [env, expected] of cases) {
    test(`${JSON.stringify(env)} → ${expected}`, () => assert.equal(logLevelFromEnv(env), expected))
  }
})

describe('createLogger', () => {
  test('writes hclog JSON with a 6-digit fractional timestamp and extra fields', () => {
    const { log, lines, parsed } = capture({ level: 'trace' })
    log.info('server created', { id: '42', count: 3n })
    assert.equal(lines.length, 1)
    assert.ok(lines[0]?.endsWith('\n'))
    assert.deepEqual(parsed()[0], {
      '@level': 'info',
      '@message': 'server created',
      '@module': 'provider',
      '@timestamp': '2025-01-02T03:04:05.123456Z',
      id: '42',
      count: '3',
    })
  })

  test('filters below the threshold and writes nothing when off', () => {
    const warn = capture({ level: 'warn' })
    warn.log.trace('t')
    warn.log.debug('d')
    warn.log.info('i')
    warn.log.warn('w')
    warn.log.error('e')
    assert.deepEqual(
      warn.parsed().map((l) => l['@level']),
      ['warn', 'error'],
    )
    const off = capture({ level: undefined })
    off.log.error('e')
    assert.equal(off.lines.length, 0)
  })

  test('never throws: circular fields, throwing writers, reserved keys, errors', () => {
    const { log, parsed } = capture({ level: 'trace' })
    const circular: Record<string, unknown> = {}
    circular.self = circular
    log.error('boom', { circular })
    log.error('failed', { error: new Error('bad'), '@level': 'fake' })
    const [first, second] = parsed()
    assert.equal(first?.['@message'], 'boom')
    assert.match(String(first?.log_error), /circular/i)
    assert.match(String(second?.error), /^Error: bad/)
    assert.equal(second?.['@level'], 'error')
    assert.equal(second?.['_@level'], 'fake')
    const throwing = createLogger({
      level: 'trace',
      write: () => {
        throw new Error('EPIPE')
      },
    })
    assert.doesNotThrow(() => throwing.error('x'))
  })

  test('timestamps always carry exactly six fractional digits', () => {
    for (const t of [0, 1.5, 1735787045123.999, Date.now() + 0.0001]) {
      assert.match(formatTimestamp(t), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
    }
  })
})
