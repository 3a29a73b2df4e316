// The provider configuration's order_journal setting (and PROVIDER_ORDER_JOURNAL): a value that is
// neither a directory nor a postgresql:// connection string is refused, naming the setting and never
// showing the value, before any journal is opened or any directory made.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { InputError, silentLogger, validateConfig } from '../core/index.js'
import { describeDatabase } from '../api/index.js'
import { providerDefinition } from './provider.js'

const provider = providerDefinition
const PASSWORD = 'Pg5ecretJournalPw'

/** Settings a journal string must not be taken for a directory in: each holds the password. */
const NOT_A_DIRECTORY: Record<string, string> = {
  'a leading space': ` postgresql://ci:${PASSWORD}@db.internal:5432/terraform`,
  'a trailing newline': `postgresql://ci:${PASSWORD}@db.internal:5432/terraform\n`,
  'a mysql:// scheme': `mysql://ci:${PASSWORD}@db.internal:3306/terraform`,
  'an https:// URL': `https://ci:${PASSWORD}@db.internal/terraform`,
  'postgresql: without //': `postgresql:ci:${PASSWORD}@db.internal/terraform`,
  'user:password@host without a scheme': `ci:${PASSWORD}@db.internal:5432/terraform`,
  'a tab inside': `journal\t${PASSWORD}`,
  // Read by a URL parser as host ci, port 2024 and the rest of the password as the database.
  'a password with an unencoded /': `postgresql://ci:2024/${PASSWORD}@db.internal:5432/terraform`,
  // PostgreSQL's other form of a connection string (libpq's keyword/value): a directory of this name
  // would hold the password in its path, and the shared journal would be silently off.
  'a keyword/value connection string': `host=db.internal port=5432 user=ci password=${PASSWORD} dbname=terraform`,
  'a keyword/value connection string with no password': `dbname=terraform host=db.internal`,
}

/** Configures the provider as the server does: the full configuration, every setting present. */
function configure(settings: Record<string, string | null>) {
  const full = Object.fromEntries(Object.keys(provider.attributes).map((name) => [name, settings[name] ?? null]))
  return provider.configure(full as never, {
    userAgent: 'test',
    log: silentLogger,
    operation: () => undefined,
    registerSettlement: () => () => undefined,
    perProcess: (_key, create) => create(),
    perRun: (_key, create) => create(),
    onLeft: () => undefined,
  })
}

async function withEnv<T>(values: Record<string, string | undefined>, run: () => Promise<T> | T): Promise<T> {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]))
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  try {
    return await run()
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}

describe('order_journal', () => {
  test('a directory whose name reads like a keyword/value string is refused saying to start it with ./, and is accepted so', () => {
    const [issue] = validateConfig(provider.attributes, { order_journal: 'service=prod-journal' })
    assert.match(issue?.detail ?? '', /start it with \.\//)
    assert.deepEqual(validateConfig(provider.attributes, { order_journal: './service=prod-journal' }), [])
  })

  for (const [what, value] of Object.entries(NOT_A_DIRECTORY)) {
    test(`with ${what} is refused by validation, naming order_journal and not showing the value`, () => {
      const issues = validateConfig(provider.attributes, { order_journal: value })
      assert.equal(issues.length, 1, JSON.stringify(issues))
      const [issue] = issues
      // No path: Terraform would quote the configuration line that holds the value.
      assert.equal(issue?.path, undefined)
      assert.equal(issue?.severity, 'error')
      const text = `${issue?.summary} ${issue?.detail}`
      assert.match(text, /order_journal/)
      assert.ok(!text.includes(PASSWORD), `the message shows the password: ${text}`)
      assert.ok(!text.includes('db.internal'), `the message shows the value: ${text}`)
    })

    test(`with ${what}, given as PROVIDER_ORDER_JOURNAL, stops configure naming it, and makes no directory`, async () => {
      const cwd = await mkdtemp(join(tmpdir(), 'provider-journal-setting-'))
      const before = process.cwd()
      try {
        process.chdir(cwd)
        const thrown = await withEnv(
          { PROVIDER_ORDER_JOURNAL: value, PROVIDER_API_KEY: 'test-key', PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1' },
          () => {
            try {
              configure({})
              return undefined
            } catch (error) {
              return error
            }
          },
        )
        assert.ok(thrown instanceof InputError, `configure accepted it: ${String(thrown)}`)
        assert.deepEqual(thrown.path, ['order_journal'])
        assert.match(thrown.message, /PROVIDER_ORDER_JOURNAL/)
        assert.ok(!thrown.message.includes(PASSWORD), `the message shows the password: ${thrown.message}`)
        assert.ok(!thrown.message.includes('db.internal'), `the message shows the value: ${thrown.message}`)
        assert.deepEqual(await readdir(cwd), [], 'configure made a directory')
      } finally {
        process.chdir(before)
        await rm(cwd, { recursive: true, force: true })
      }
    })
  }

  test('the database as messages name it shows neither the password nor a part of one that spilled past the host', () => {
    assert.equal(
      describeDatabase(`postgresql://ci:${PASSWORD}@db.internal:5432/terraform`),
      'postgresql://ci@db.internal:5432/terraform (table provider_order_journal)',
    )
    for (const spilled of ['/', '?', '#']) {
      const text = describeDatabase(`postgresql://ci:2024${spilled}${PASSWORD}@db.internal:5432/terraform`)
      assert.ok(!text.includes(PASSWORD), `${spilled}: ${text}`)
    }
  })

  test('a directory, relative or absolute, and a postgresql:// or postgres:// connection string are accepted', () => {
    for (const value of [
      'journal',
      './ci/journal dir',
      '/var/lib/provider-orders',
      '../shared/orders',
      `postgresql://ci:${PASSWORD}@db.internal:5432/terraform`,
      `postgres://ci@db.internal/terraform?sslmode=require`,
    ]) {
      assert.deepEqual(validateConfig(provider.attributes, { order_journal: value }), [], value)
    }
  })

  test('an empty PROVIDER_ORDER_JOURNAL is unset: the default journal is used', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'provider-journal-setting-'))
    const before = process.cwd()
    try {
      process.chdir(cwd)
      await withEnv({ PROVIDER_ORDER_JOURNAL: '', PROVIDER_API_KEY: 'test-key', PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1' }, () =>
        configure({}),
      )
      assert.equal(existsSync(join(cwd, 'journal')), false)
    } finally {
      process.chdir(before)
      await rm(cwd, { recursive: true, force: true })
    }
  })
})

describe('base_url', () => {
  test('a password in it is refused with no attribute path, so no front end shows the value beside the message; other problems keep theirs', () => {
    const [issue, ...rest] = validateConfig(provider.attributes, { base_url: 'http://bob:pw123secret@127.0.0.1:18399/v1' })
    assert.deepEqual(rest, [])
    assert.match(issue?.detail ?? '', /base_url must not contain a user name or password/)
    assert.equal(issue?.path, undefined, 'Pulumi prints a property value beside a problem with a path')
    assert.ok(!JSON.stringify(issue).includes('pw123secret'))
    // A password with an unencoded '/', '?' or '#' makes the URL unparsable: that problem has no path either.
    for (const password of ['pw/123secret', 'pw#123secret', 'pw?123secret']) {
      const [unparsable] = validateConfig(provider.attributes, { base_url: `http://bob:${password}@127.0.0.1:18399/v1` })
      assert.equal(unparsable?.path, undefined, password)
    }
    const [unversioned] = validateConfig(provider.attributes, { base_url: 'http://127.0.0.1:18399/' })
    assert.deepEqual(unversioned?.path, ['base_url'])
  })

  test('a query string or fragment (a token in it) is refused at validation and at configure, never showing the value', async () => {
    // The API paths are appended to base_url, so no call works with one; and a message that names the
    // URL (nothing answered at it) would show the token.
    for (const value of [
      'http://127.0.0.1:18399/v1?token=Qu3rySecretTok',
      'https://api.example.invalid/v1#Qu3rySecretTok',
      '127.0.0.1:18399/v1?token=Qu3rySecretTok',
    ]) {
      const [issue, ...rest] = validateConfig(provider.attributes, { base_url: value })
      assert.deepEqual(rest, [], value)
      assert.ok(issue, `${value} was accepted`)
      assert.equal(issue.path, undefined, value)
      assert.ok(!JSON.stringify(issue).includes('Qu3rySecretTok'), JSON.stringify(issue))
      const thrown = await withEnv({ PROVIDER_API_KEY: 'test-key', PROVIDER_BASE_URL: value }, () => {
        try {
          configure({})
          return undefined
        } catch (error) {
          return error
        }
      })
      assert.ok(thrown instanceof InputError, `PROVIDER_BASE_URL=${value} was accepted`)
      assert.ok(!thrown.message.includes('Qu3rySecretTok'), thrown.message)
    }
    const [query] = validateConfig(provider.attributes, { base_url: 'http://127.0.0.1:18399/v1?token=Qu3rySecretTok' })
    assert.match(query?.detail ?? '', /base_url must not contain a query string or fragment/)
  })

  test('a host written without its scheme is refused saying so, with the URL it likely means', () => {
    for (const written of ['127.0.0.1:18088/v1', 'api.example.invalid/v1']) {
      const [issue] = validateConfig(provider.attributes, { base_url: written })
      assert.equal(
        issue?.detail,
        `base_url must start with http:// or https:// (got ${JSON.stringify(written)}; e.g. ${JSON.stringify(`http://${written}`)}).`,
      )
    }
    assert.match(validateConfig(provider.attributes, { base_url: 'ftp://host/v1' })[0]?.detail ?? '', /\(got ftp:\)/)
  })
})

describe('request_timeout and poll_interval', () => {
  test('below the least that works is refused at validation, naming the setting and the least', () => {
    const issues = validateConfig(provider.attributes, { request_timeout: '1ns', poll_interval: '5ms' }).map((d) => d.detail)
    assert.deepEqual(issues, ['request_timeout must be at least 1s (got "1ns").', 'poll_interval must be at least 10ms (got "5ms").'])
    assert.deepEqual(validateConfig(provider.attributes, { request_timeout: '1s', poll_interval: '10ms' }), [])
  })

  test('PROVIDER_REQUEST_TIMEOUT and PROVIDER_POLL_INTERVAL stand in for unset settings, checked as the settings are', async () => {
    const env = { PROVIDER_API_KEY: 'test-key', PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1' }
    for (const [variable, value, rule] of [
      ['PROVIDER_REQUEST_TIMEOUT', '500ms', /PROVIDER_REQUEST_TIMEOUT must be at least 1s \(got "500ms"\)/],
      ['PROVIDER_POLL_INTERVAL', 'soon', /PROVIDER_POLL_INTERVAL must be a duration/],
    ] as const) {
      const thrown = await withEnv({ ...env, [variable]: value }, () => {
        try {
          configure({})
          return undefined
        } catch (error) {
          return error
        }
      })
      assert.ok(thrown instanceof InputError, `${variable}=${value} was accepted`)
      assert.match(thrown.message, rule)
    }
    await withEnv({ ...env, PROVIDER_REQUEST_TIMEOUT: '2m', PROVIDER_POLL_INTERVAL: '250ms' }, () => configure({}))
    // The setting wins over the variable, which is then not read.
    await withEnv({ ...env, PROVIDER_REQUEST_TIMEOUT: 'soon' }, () => configure({ request_timeout: '10s' }))
  })
})
