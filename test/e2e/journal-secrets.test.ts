// Real terraform against the emulator launcher and a real PostgreSQL: the order journal's connection
// string never reaches a saved plan, an output or a path on disk.
// - Every HCL example of the guides that sets `order_journal` (docs/guides/*.md), given the string the
//   way the example says, and `PROVIDER_ORDER_JOURNAL`: `terraform plan -out` writes a plan file in
//   which no entry of the zip holds the password or the string, nor does `terraform show -json`; the
//   saved plan then applies, and the order is journalled in the database.
// - A journal setting that is neither a directory nor a postgresql:// string (a leading space, another
//   scheme, the keyword/value form) stops the apply before any call, naming the setting, never showing the value, and making no
//   directory.
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { type PostgresServer, startPostgres } from '../support/postgres.js'
import { zipTexts } from '../support/zip.js'
import { block, describeRun, diagnostics, PROVIDER_BLOCKS, ROOT, type RunResult, ref, type Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const REQUIRED_PROVIDERS = 'terraform {\n  required_providers {\n    provider = { source = "provider/provider" }\n  }\n}\n'

/** Every ```hcl block of the guides that sets order_journal, with the guide it comes from. */
async function journalExamples(): Promise<{ guide: string; hcl: string }[]> {
  const dir = join(ROOT, 'docs', 'guides')
  const found: { guide: string; hcl: string }[] = []
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.md')).sort()) {
    const text = await readFile(join(dir, name), 'utf8')
    for (const match of text.matchAll(/```hcl\n([\s\S]*?)```/g)) {
      const hcl = match[1] ?? ''
      if (/^\s*order_journal\s*=/m.test(hcl)) found.push({ guide: name, hcl })
    }
  }
  return found
}

/** A paid order (the journal records those) and the keypair it needs. */
function order(name: string): string {
  return [
    block('resource', 'provider_lite_keypair', 'k', { name }),
    block('resource', 'provider_lite_vm', 'vm', {
      product_id: 101,
      select_os: 'Ubuntu-22.04',
      keypair_id: ref('provider_lite_keypair.k.keypair_id'),
      cycle: 'm',
      ssh_and_console_user: 'deployer',
      console_password: 'J0urnalVmPass',
      vm_name: name,
    }),
  ].join('\n')
}

/** The rows of the journal table: what the provider recorded there. */
async function journalRows(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const result = await client.query('SELECT count(*)::int AS n FROM provider_order_journal')
    return (result.rows[0] as { n: number }).n
  } finally {
    await client.end()
  }
}

/** Every file under `dir` (but the provider binaries), by path relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = relative(dir, join(entry.parentPath, entry.name))
    if (!path.startsWith(join('.terraform', 'providers'))) out.push(path)
  }
  return out
}

describe('the order journal connection string', () => {
  const e2e = useEmulatorWorkspace({ workspace: false })
  let server: PostgresServer
  before(async () => {
    server = await startPostgres()
  })
  after(async () => {
    await server?.stop()
  })
  async function workspace(config: string): Promise<Workspace> {
    const ws = await e2e.workspace()
    await ws.write(config)
    await ws.init()
    return ws
  }

  /** The places a saved plan keeps: every entry of the plan file, and `terraform show -json` of it. */
  async function planPlaces(ws: Workspace, env: Record<string, string>): Promise<[string, string][]> {
    const planned = await ws.plan(['-out=plan.bin'], { env })
    assert.equal(planned.code, 2, describeRun(planned))
    const entries = zipTexts(await readFile(join(ws.dir, 'plan.bin')))
    assert.ok(entries.has('tfplan'), `the plan file has a tfplan entry: ${[...entries.keys()].join(', ')}`)
    const shown = await ws.ok(['show', '-json', 'plan.bin'], { env })
    return [
      ...[...entries].map(([name, text]): [string, string] => [`plan file entry ${name}`, text]),
      ['terraform show -json of the plan', shown.stdout],
      ['the plan output', planned.stdout + planned.stderr],
    ]
  }

  function assertNoSecret(places: [string, string][], url: string, what: string): void {
    const leaks: string[] = []
    for (const [where, text] of places) {
      if (text.includes(server.password)) leaks.push(`the password appears in ${where}`)
      if (text.includes(url)) leaks.push(`the connection string appears in ${where}`)
    }
    assert.deepEqual(leaks, [], what)
  }

  /** Applies the saved plan with `env`; the VM is ordered and the journal in the database holds its entry. */
  async function applySaved(ws: Workspace, env: Record<string, string>, url: string): Promise<RunResult> {
    const rows = await journalRows(url)
    const applied = await ws.run(['apply', '-no-color', '-input=false', 'plan.bin'], { env })
    assert.equal(applied.code, 0, describeRun(applied))
    assert.ok(!(applied.stdout + applied.stderr).includes(server.password), 'the password appears in the apply output')
    assert.ok((await journalRows(url)) > rows, 'the order was journalled in the database')
    return applied
  }

  test('every example of the guides that sets order_journal keeps the string out of the saved plan, and works', async () => {
    const examples = await journalExamples()
    assert.ok(examples.length >= 2, `the guides show how to set order_journal: found ${examples.length} examples`)
    for (const [index, { guide, hcl }] of examples.entries()) {
      const url = await server.database()
      // The example as a user copies it, beside the provider's source and one thing to order.
      const ws = await workspace([REQUIRED_PROVIDERS, hcl, order(`e2e-doc-${index}`)].join('\n'))
      const env = { TF_VAR_order_journal: url }
      assertNoSecret(await planPlaces(ws, env), url, `the example of ${guide}:\n${hcl}`)
      await applySaved(ws, env, url)
    }
  })

  test('PROVIDER_ORDER_JOURNAL keeps the string out of the saved plan, and works', async () => {
    const url = await server.database()
    const ws = await workspace([PROVIDER_BLOCKS, order('e2e-env')].join('\n'))
    const env = { PROVIDER_ORDER_JOURNAL: url }
    assertNoSecret(await planPlaces(ws, env), url, 'PROVIDER_ORDER_JOURNAL')
    await applySaved(ws, env, url)
  })

  const refused: Record<string, (url: string) => string> = {
    'a leading space': (url) => ` ${url}`,
    'a mysql:// scheme': (url) => url.replace(/^postgresql:/, 'mysql:'),
    // PostgreSQL's keyword/value form of the same string.
    'a keyword/value string': (url) => {
      const { username, password, hostname, port, pathname } = new URL(url)
      return `host=${hostname} port=${port} user=${username} password=${password} dbname=${pathname.slice(1)}`
    },
  }
  for (const [what, spoil] of Object.entries(refused)) {
    for (const where of ['order_journal', 'PROVIDER_ORDER_JOURNAL'] as const) {
      test(`${where} with ${what} stops the apply before any call, naming ${where}, showing nothing of it, making no directory`, async () => {
        const value = spoil(await server.database())
        const inBlock = where === 'order_journal'
        const ws = await workspace(
          [
            inBlock
              ? PROVIDER_BLOCKS.replace('provider "provider" {\n', `provider "provider" {\n  order_journal = ${JSON.stringify(value)}\n`)
              : PROVIDER_BLOCKS,
            block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-journal-refused' }),
          ].join('\n'),
        )
        const { value: run, mutations } = await e2e.emulator.effectsOf(() =>
          ws.apply([], { env: inBlock ? {} : { PROVIDER_ORDER_JOURNAL: value } }),
        )
        assert.equal(run.code, 1, describeRun(run))
        assert.deepEqual(mutations, [], 'nothing is ordered')
        const errors = diagnostics(run.stdout + run.stderr).join('\n')
        assert.match(errors, new RegExp(`${where} must be a directory or a PostgreSQL connection string`), describeRun(run))
        const output = run.stdout + run.stderr
        assert.ok(!output.includes(server.password), `the password appears in the output:\n${output}`)
        assert.ok(!output.includes('127.0.0.1:'), `the value appears in the output:\n${output}`)
        const files = await filesUnder(ws.dir)
        const leaked = files.filter((path) => path.includes(server.password) || /mysql|postgres|dbname=/.test(path))
        assert.deepEqual(leaked, [], 'no path on disk is made of the setting')
      })
    }
  }
})
