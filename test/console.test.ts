// The emulator's web console in a real browser (issue 28): headless Chromium from Debian's package
// (/usr/bin/chromium, installed by scripts/system-packages.mjs) driven by playwright-core, against the
// emulator launcher, after orders placed by the real terraform. As a user would: the account, the order and
// the request are seen in the console; an invoice is paid there (and the control API sees it paid); a VM is
// renamed out of band there (and the next plan sees the drift), and resized (an unpaid change of package,
// paid there); a fault rule added there is met by the next apply, with its text, and once removed there
// the apply goes through; the clock, a quirk, a snapshot and the reset are worked there. Every wait is
// bounded (10 s a browser step, 15 s the browser's launch, 5 minutes the file). A second suite, on an
// emulator of its own filled by curl-like calls, checks what the page keeps while it polls (a selection,
// the rows that did not change, the focus after a Pay, an unchanged view revalidated and not downloaded
// again), the request log past the rows it shows, narrow windows, a stopped emulator, the fault rules'
// order, keypairs' fingerprints and Metal links. With
// CONSOLE_SCREENSHOT=<path>, the accounts view is saved there as a PNG (docs/guides/images/emulator-console.png
// is made so).
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import { block, describeRun, PROVIDER_BLOCKS, ref } from './support/e2e/harness.js'
import { useEmulatorWorkspace } from './support/e2e/suite.js'
import { ownCustomer } from '../src/emulator/index.js'

const CHROMIUM = '/usr/bin/chromium'
/** A browser step's bound: a click, a wait for a row. */
const STEP_MS = 10_000
/**
 * Without the background-networking flags, Chromium's own connections (updates, sync, field trials) get
 * refused on a machine without the internet, and it stalls; a fresh profile each run keeps runs apart.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

function config(extraKeypair: boolean): string {
  return [
    PROVIDER_BLOCKS,
    block('resource', 'provider_lite_keypair', 'k', { name: 'console-key' }),
    block('resource', 'provider_lite_vm', 'vm', {
      ssh_and_console_user: 'deployer',
      console_password: 'S3cretPass9',
      product_id: 101,
      select_os: 'Ubuntu-22.04',
      keypair_id: ref('provider_lite_keypair.k.keypair_id'),
      cycle: 'm',
      vm_name: 'console-vm',
      pay_with_credit_card: false,
    }),
    extraKeypair ? block('resource', 'provider_lite_keypair', 'k2', { name: 'console-key-2' }) : '',
  ].join('\n')
}

/** Chromium with a fresh profile (removed by `close`), its one page bounded by STEP_MS. */
async function launch(viewport = { width: 1280, height: 720 }): Promise<{ page: Page; close(): Promise<void> }> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: scripts/system-packages.mjs installs Debian's chromium`)
  const profile = mkdtempSync(join(tmpdir(), 'provider-console-chromium-'))
  let context: BrowserContext | undefined
  try {
    // launchPersistentContext takes the profile directory; playwright adds its own flags to FLAGS.
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: FLAGS, timeout: 15_000, viewport })
  } catch (error) {
    rmSync(profile, { recursive: true, force: true })
    throw error
  }
  const page = context.pages()[0] ?? (await context.newPage())
  page.setDefaultTimeout(STEP_MS)
  page.setDefaultNavigationTimeout(STEP_MS)
  return {
    page,
    async close() {
      await context?.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

/** A suite's steps on its page (`page()`, once its before hook made it). */
function steps(page: () => Page) {
  return {
    /** Opens a view by its tab. */
    async open(view: string) {
      await page().click(`nav a[data-view="${view}"]`)
      await page().locator(`#view-${view}`).waitFor()
    },
    /** The status line's text once it says something. */
    async status() {
      await page().locator('#status:not(:empty)').waitFor()
      return (await page().locator('#status').textContent()) ?? ''
    },
    /** The row of `table` (a CSS selector) whose text contains every one of `texts`. */
    row: (table: string, ...texts: string[]) => texts.reduce((rows, text) => rows.filter({ hasText: text }), page().locator(`${table} tr`)),
    /** Resolves once `count` answers of the control API's `path` (e.g. `/_emulator/orders`) reached the page. */
    async polled(path: string, count = 2) {
      for (let answer = 0; answer < count; answer++) await page().waitForResponse((r) => new URL(r.url()).pathname === path)
    },
  }
}

interface OrderItem {
  order_id: string
  account_id: string
  invoice_id: number
  invoice_status: string
}

describe('the web console, in Chromium', { timeout: 300_000 }, () => {
  const e2e = useEmulatorWorkspace()
  let browser: Awaited<ReturnType<typeof launch>> | undefined
  let page: Page

  before(async () => {
    browser = await launch()
    page = browser.page
  })
  after(async () => {
    await browser?.close()
  })

  const { open, status, row } = steps(() => page)

  test('an order placed by terraform: the account, the order and its request are in the console; its invoice is paid there', async () => {
    await e2e.ws.write(config(false))
    const applied = await e2e.ws.apply()
    assert.equal(applied.code, 0, describeRun(applied))
    const [order] = (await e2e.emulator.orders()).orders as unknown as OrderItem[]
    assert.equal(order?.invoice_status, 'Unpaid')

    // Whatever the browser reports as an error while the page loads and works (a failed request: a 404
    // for an icon; a script error): none.
    const browserErrors: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') browserErrors.push(message.text())
    })
    page.on('pageerror', (error) => browserErrors.push(error.message))
    const response = await page.goto(`${e2e.emulator.origin}/`)
    assert.equal(response?.status(), 200)
    assert.equal(await page.title(), 'Emulator console')
    // The customer selector shows only where there is a choice: more than one customer. The suite's
    // emulator has one key, one customer, and the selector stays hidden through the first refreshes.
    const customers = await fetch(`${e2e.emulator.origin}/_emulator/customers`, { signal: AbortSignal.timeout(STEP_MS) })
    const choice = customers.ok && ((await customers.json()) as unknown[]).length > 1
    for (let answer = 0; answer < 2; answer++) await page.waitForResponse((r) => r.url().includes('/_emulator/customers'))
    assert.equal(await page.locator('header select[name="customer"]').isVisible(), choice)
    // The accounts view first: the VM, Pending on its unpaid invoice, in the Lite family's table.
    const account = row('#view-accounts table', String(order.account_id), 'console-vm')
    await account.waitFor()
    assert.match((await account.textContent()) ?? '', /lite\.vm.*Pending.*XS 1\.1 \(101\).*Monthly/)
    assert.match((await account.textContent()) ?? '', new RegExp(`#${order.invoice_id} Unpaid`))
    // One customer: no Customer column repeating the one name.
    assert.ok(!(await page.locator('#view-accounts table th').allTextContents()).includes('Customer'))
    // A keyboard user on the Pay button keeps it through the view's refresh every second.
    await account.locator(`button[data-invoice="${order.invoice_id}"]`).focus()
    // Two answers of the view's polling later, the table has been refreshed at least once. (CSS's :focus
    // and :invalid tell, with nothing evaluated in the page.)
    for (let answer = 0; answer < 2; answer++) await page.waitForResponse((r) => r.url().includes('/_emulator/accounts'))
    assert.equal(await page.locator(`#view-accounts button[data-invoice="${order.invoice_id}"]:focus`).count(), 1, 'the focus stayed')
    assert.deepEqual(browserErrors, [], 'the browser reported errors')

    await open('orders')
    const placed = row('#view-orders table', order.order_id, 'lite.vm.create')
    await placed.waitFor()
    await placed.locator(`button[data-invoice="${order.invoice_id}"]`).click()
    assert.equal(await status(), `invoice ${order.invoice_id} paid`)
    const paid = ((await e2e.emulator.orders()).orders as unknown as OrderItem[]).find((o) => o.order_id === order.order_id)
    assert.equal(paid?.invoice_status, 'Paid')
    await row('#view-orders table', order.order_id, 'Paid').waitFor()

    await open('requests')
    const post = row('#request-log', 'POST', '/v1/lites', '200')
    await post.first().waitFor()
    // Filters: by a part of the path, then a status no request had.
    await page.fill('#view-requests input[name="path"]', '/v1/lites/keypairs')
    await row('#request-log', 'POST', '/v1/lites/keypairs').first().waitFor()
    assert.equal(await row('#request-log', 'POST', '/v1/lites', '200').filter({ hasNotText: 'keypairs' }).count(), 0)
    await page.fill('#view-requests input[name="status"]', '5')
    await page.getByText('No request matches the filters.').waitFor()
    await page.fill('#view-requests input[name="path"]', '')
    await page.fill('#view-requests input[name="status"]', '')
  })

  test('a VM renamed out of band in the console: the control API shows it, and the next plan sees the drift', async () => {
    const vm = (await e2e.emulator.accounts('lite.vm'))[0]?.account
    assert.ok(vm)
    await open('accounts')
    await row('#view-accounts table', String(vm.account_id), 'Active').waitFor()
    const form = page.locator('form[aria-label="Out-of-band change"]')
    // And a rename the portal takes (to the name the configuration has): the status line says so.
    await form.locator('select[name="account"]').selectOption(String(vm.account_id))
    await form.locator('select[name="action"]').selectOption('rename')
    await form.locator('input[name="value"]').fill('console-vm')
    await form.locator('button[type="submit"]').click()
    await page.locator('#status.ok').waitFor()
    await form.locator('select[name="action"]').selectOption('rename')
    await form.locator('input[name="value"]').fill('renamed-vm')
    await form.locator('button[type="submit"]').click()
    assert.equal(await status(), `account ${vm.account_id}: rename done through the portal`)
    assert.equal((await e2e.emulator.account(vm.account_id))?.extra_details.name, 'renamed-vm')
    await row('#view-accounts table', String(vm.account_id), 'renamed-vm').waitFor()
    const plan = await e2e.ws.plan()
    assert.equal(plan.code, 2, describeRun(plan))
    assert.match(plan.stdout, /vm_name\s+= "renamed-vm" -> "console-vm"/)
  })

  test('a fault rule added in the console is met by the next apply; removed there, the apply goes through', async () => {
    await open('faults')
    // With no rule there is nothing to remove every one of.
    const removeAll = page.locator('#view-faults button:text("Remove every rule")')
    await page.getByText('No rules: every request is answered normally.').waitFor()
    assert.equal(await removeAll.isVisible(), false)
    const add = page.locator('form[aria-label="Add a fault rule"]')
    await add.locator('select[name="method"]').selectOption('POST')
    await add.locator('input[name="path"]').fill('/lites/keypairs')
    // A status that is no number is refused by the form, naming the field; nothing is added.
    await add.locator('input[name="status"]').fill('abc')
    await add.locator('button[type="submit"]').click()
    assert.equal(await status(), "Status must be a whole number, got 'abc'")
    assert.deepEqual(await e2e.emulator.control('GET', '/faults'), [])
    await add.locator('input[name="status"]').fill('400')
    await add.locator('input[name="detail"]').fill('refused by a rule from the console')
    await add.locator('input[name="count"]').fill('-1')
    await add.locator('button[type="submit"]').click()
    assert.match(await status(), /^rule \S+ added$/)
    const [rule] = await e2e.emulator.control<{ fault_id: string; path: string; status: number }[]>('GET', '/faults')
    assert.deepEqual([rule?.path, rule?.status], ['/lites/keypairs', 400])
    const listed = row('#fault-rules', rule?.fault_id ?? '?', '/lites/keypairs', 'refused by a rule from the console')
    await listed.waitFor()
    await removeAll.waitFor({ state: 'visible' })

    await e2e.ws.write(config(true))
    const refused = await e2e.ws.apply()
    assert.notEqual(refused.code, 0, describeRun(refused))
    assert.match(refused.stdout + refused.stderr, /refused by a rule from the console/)
    await open('requests')
    await row('#request-log', 'POST', '/v1/lites/keypairs', '400', rule?.fault_id ?? '?')
      .first()
      .waitFor()

    await open('faults')
    await listed.locator(`button[data-fault="${rule?.fault_id}"]`).click()
    assert.equal(await status(), `rule ${rule?.fault_id} removed`)
    assert.deepEqual(await e2e.emulator.control('GET', '/faults'), [])
    await page.getByText('No rules: every request is answered normally.').waitFor()
    await removeAll.waitFor({ state: 'hidden' })
    const applied = await e2e.ws.apply()
    assert.equal(applied.code, 0, describeRun(applied))
  })

  test('clock, quirks, a snapshot saved, the reset, the snapshot restored and deleted: all from the console', async () => {
    await open('state')
    const before = await e2e.emulator.control<{ now: string; mode: string }>('GET', '/clock')
    assert.equal(before.mode, 'real')
    await page.locator('#clock-now', { hasText: '(real:' }).waitFor()
    await page.fill('form[aria-label="Advance the clock"] input[name="seconds"]', '86400')
    await page.click('form[aria-label="Advance the clock"] button[type="submit"]')
    assert.match(await status(), /^clock now \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
    const after = await e2e.emulator.control<{ now: string }>('GET', '/clock')
    assert.ok(Date.parse(`${after.now}Z`) - Date.parse(`${before.now}Z`) >= 86_400_000, `${before.now} -> ${after.now}`)

    await page.check('input[name="ignore_idempotency_keys"]')
    await page.locator('#status', { hasText: 'ignore_idempotency_keys on' }).waitFor()
    assert.equal((await e2e.emulator.control<{ quirks: Record<string, boolean> }>('GET', '/config')).quirks.ignore_idempotency_keys, true)
    await page.uncheck('input[name="ignore_idempotency_keys"]')
    await page.locator('#status', { hasText: 'ignore_idempotency_keys off' }).waitFor()
    assert.equal((await e2e.emulator.control<{ quirks: Record<string, boolean> }>('GET', '/config')).quirks.ignore_idempotency_keys, false)

    const accounts = (await e2e.emulator.accounts()).length
    // A name the control API refuses is refused by the form itself (its pattern is valid in this browser).
    await page.fill('form[aria-label="Save a snapshot"] input[name="name"]', 'base line')
    assert.equal(await page.locator('form[aria-label="Save a snapshot"] input[name="name"]:invalid').count(), 1)
    await page.fill('form[aria-label="Save a snapshot"] input[name="name"]', 'console-baseline')
    await page.click('form[aria-label="Save a snapshot"] button[type="submit"]')
    assert.equal(await status(), 'snapshot console-baseline saved')
    const saved = row('#view-state table', 'console-baseline')
    await saved.waitFor()
    // The reset asks first: dismissed, nothing happens; accepted, the state is empty.
    page.once('dialog', (dialog) => void dialog.dismiss())
    await page.click('button.danger')
    assert.equal((await e2e.emulator.accounts()).length, accounts)
    page.once('dialog', (dialog) => void dialog.accept())
    await page.click('button.danger')
    await page.locator('#status', { hasText: 'emulator reset' }).waitFor()
    assert.equal((await e2e.emulator.accounts()).length, 0)
    // Restore and Delete ask too, each naming the snapshot: dismissed, nothing happens.
    const asked: string[] = []
    page.once('dialog', (dialog) => {
      asked.push(dialog.message())
      void dialog.dismiss()
    })
    await saved.getByRole('button', { name: 'Restore snapshot console-baseline' }).click()
    assert.match(asked[0] ?? '', /Replace the whole state with snapshot console-baseline\?/)
    assert.equal((await e2e.emulator.accounts()).length, 0)
    page.once('dialog', (dialog) => void dialog.accept())
    await saved.getByRole('button', { name: 'Restore snapshot console-baseline' }).click()
    await page.locator('#status', { hasText: 'snapshot console-baseline: restore done' }).waitFor()
    assert.equal((await e2e.emulator.accounts()).length, accounts)
    page.once('dialog', (dialog) => void dialog.accept())
    await saved.getByRole('button', { name: 'Delete snapshot console-baseline' }).click()
    await page.locator('#status', { hasText: 'snapshot console-baseline: delete done' }).waitFor()
    assert.deepEqual(await e2e.emulator.control('GET', '/snapshots'), [])
    await page.getByText('No snapshots saved.').waitFor()
  })

  test('a VM resized through the portal in the console: an unpaid change of package, paid there, then Active on the new product', async () => {
    const vm = (await e2e.emulator.accounts('lite.vm'))[0]?.account
    assert.ok(vm)
    await open('accounts')
    const form = page.locator('form[aria-label="Out-of-band change"]')
    await form.locator('select[name="account"]').selectOption(String(vm.account_id))
    await form.locator('select[name="action"]').selectOption('resize')
    // Without a value, the console asks for the product instead of ordering product 0.
    await form.locator('input[name="value"]').fill('')
    await form.locator('button[type="submit"]').click()
    await page.locator('#status.error', { hasText: 'is needed: give it as the value' }).waitFor()
    await form.locator('input[name="value"]').fill('102')
    await form.locator('button[type="submit"]').click()
    assert.equal(await status(), `account ${vm.account_id}: resize done through the portal`)
    const [change] = ((await e2e.emulator.orders()).orders as unknown as (OrderItem & { kind: string })[]).filter(
      (o) => o.kind === 'lite.vm.change_package',
    )
    assert.equal(change?.invoice_status, 'Unpaid')
    const resized = row('#view-accounts table', String(vm.account_id))
    await resized.locator(`button[data-invoice="${change?.invoice_id}"]`).click()
    assert.equal(await status(), `invoice ${change?.invoice_id} paid`)
    await row('#view-accounts table', String(vm.account_id), 'Active', '(102)').waitFor()
    assert.equal((await e2e.emulator.account(vm.account_id))?.product_id, 102)
  })

  test('the page writes what it shows as text: markup put in by drift stays text', async () => {
    const vm = (await e2e.emulator.accounts('lite.vm'))[0]?.account
    assert.ok(vm)
    const dialogs: string[] = []
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    const markup = '<img src=x onerror=alert(1)><b>bold</b>'
    await e2e.emulator.control('PATCH', `/accounts/${vm.account_id}`, { extra_details: { name: markup } })
    await open('accounts')
    await row('#view-accounts table', markup).waitFor()
    assert.equal(await page.locator('#view-accounts img, #view-accounts b').count(), 0)
    assert.deepEqual(dialogs, [])
    await e2e.emulator.control('PATCH', `/accounts/${vm.account_id}`, { extra_details: { name: 'console-vm' } })
    await row('#view-accounts table', String(vm.account_id), 'console-vm').waitFor()

    // A disk and an additional IP ordered with curl: each row shows the name, the size and the address the API gives.
    const disk = await e2e.emulator.api<{ account_id: string }>('POST', '/lites/disks', {
      product_id: 60,
      cycle: 'm',
      lite_account_id: Number(vm.account_id),
      service_name: 'console-disk',
      size: 80,
    })
    await row('#view-accounts table', disk.account_id, 'lite.disk', 'console-disk', '80 GB').waitFor()
    const ip = await e2e.emulator.api<{ account_id: string }>('POST', '/baremetal-additional-ips', { product_id: 401, cycle: 'm' })
    await e2e.emulator.control('POST', '/clock', { advance_ms: 3_600_000 }) // past its provisioning: Active, with an address
    const address = (await e2e.emulator.account(ip.account_id))?.extra_details?.ip_address
    assert.equal(typeof address, 'string', 'the IP is Active with its address')
    await row('#view-accounts table', ip.account_id, String(address)).waitFor()

    // A Metal server ordered with curl and left unpaid: its family's table, power off, a Pay button.
    const key = await e2e.emulator.api<{ keypair_id: number }>('POST', '/baremetals/keypairs', { name: 'metal-key' })
    const metal = await e2e.emulator.api<{ account_id: string }>('POST', '/baremetals', {
      product_id: 301,
      cycle: 'm',
      keypair_id: key.keypair_id,
      label: 'db-primary',
      pay_invoice_with_cc: false,
    })
    const server = row('#view-accounts table', metal.account_id, 'db-primary')
    await server.waitFor()
    // Pending, the server has no power the API reads (its power-state read answers 409): the Power cell says none.
    assert.match((await server.textContent()) ?? '', /baremetal.*Pending.*Monthly.*2\d{3}-\d\d-\d\d–.*Unpaid.*Pay/)
    // The portal refuses to start a server that is not Active yet: the console says why, in red.
    const form = page.locator('form[aria-label="Out-of-band change"]')
    await form.locator('select[name="account"]').selectOption(metal.account_id)
    await form.locator('select[name="action"]').selectOption('start')
    await form.locator('button[type="submit"]').click()
    await page.locator('#status.error').waitFor()
    assert.match((await page.locator('#status').textContent()) ?? '', /Pending/)
    // And a rename the portal takes (to the name the configuration has): the status line says so.
    await form.locator('select[name="account"]').selectOption(String(vm.account_id))
    await form.locator('select[name="action"]').selectOption('rename')
    await form.locator('input[name="value"]').fill('console-vm')
    await form.locator('button[type="submit"]').click()
    await page.locator('#status.ok').waitFor()
    const shot = process.env.CONSOLE_SCREENSHOT
    // The part with content: the header, both families' tables and the out-of-band form.
    if (shot) await page.screenshot({ path: shot, clip: { x: 0, y: 0, width: 1280, height: 460 } })
  })

  test('two API keys, two customers: each workspace orders with its own key; the console shows both, and each alone', async () => {
    const BOB = 'bob-console-key-0002'
    await e2e.emulator.control('PATCH', '/config', {
      api_keys: [
        // The suite's key stays its own customer (named from it, the default), who owns what came before.
        { key: e2e.emulator.apiKey, scope: 'rw' },
        { key: BOB, scope: 'rw', customer: 'bob' },
      ],
    })
    const alice = ownCustomer(e2e.emulator.apiKey)
    const bob = await e2e.workspace()
    await bob.write([PROVIDER_BLOCKS, block('resource', 'provider_lite_keypair', 'k', { name: 'bob-only-key' })].join('\n'))
    const applied = await bob.apply([], { env: { PROVIDER_API_KEY: BOB } })
    assert.equal(applied.code, 0, describeRun(applied))

    await page.goto(`${e2e.emulator.origin}/`)
    const selector = page.locator('header select[name="customer"]')
    await page.locator('header label.customer:not([hidden])').waitFor()
    assert.deepEqual(
      (await selector.locator('option').allTextContents()).map((text) => text.split(' ')[0]),
      ['All', alice, 'bob'],
    )
    await open('keypairs')
    const keypair = (name: string) => row('#view-keypairs table', name)
    await keypair('bob-only-key').waitFor()
    await keypair('console-key').first().waitFor()
    // Both customers' keypairs: a Customer column says whose each is.
    const headers = () => page.locator('#view-keypairs table th').allTextContents()
    assert.equal((await headers())[0], 'Customer')
    assert.match((await keypair('bob-only-key').locator('td').first().textContent()) ?? '', /^bob$/)
    // Alice alone: her keypairs, none of Bob's; Bob alone: his only.
    await selector.selectOption(alice)
    await keypair('bob-only-key').waitFor({ state: 'detached' })
    assert.ok((await keypair('console-key').count()) >= 1)
    await selector.selectOption('bob')
    await keypair('console-key').first().waitFor({ state: 'detached' })
    assert.equal(await keypair('bob-only-key').count(), 1)
    // One customer's rows: the column would repeat one name, so it is gone (the selector names him).
    await page.locator('#view-keypairs table th', { hasText: 'Customer' }).waitFor({ state: 'detached' })
    assert.ok(!(await headers()).includes('Customer'))
    // A key added while the page is open: its customer is offered at the next refresh, without a reload.
    await e2e.emulator.control('PATCH', '/config', {
      api_keys: [
        { key: e2e.emulator.apiKey, scope: 'rw' },
        { key: BOB, scope: 'rw', customer: 'bob' },
        { key: 'carol-console-key-0003', scope: 'rw', customer: 'carol' },
      ],
    })
    await selector.locator('option[value="carol"]').waitFor({ state: 'attached' })
    assert.equal(await selector.inputValue(), 'bob', 'the choice is kept')
    // The request log too: Bob's apply, and none of Alice's calls.
    await open('requests')
    await row('#view-requests table', 'POST', '/lites/keypairs').first().waitFor()
    const paths = await page.locator('#view-requests table tr').allTextContents()
    // Each row names Bob's key, masked to its last four characters.
    assert.ok(paths.slice(1).length > 0 && paths.slice(1).every((text) => text.includes('…0002')), paths.join('\n'))
    // Clearing the log Bob's view shows removes his requests only: the others' stay in the emulator's log.
    const others = (await e2e.emulator.requests()).filter((e) => e.customer !== 'bob').length
    assert.ok(others > 0)
    await page.click('#view-requests button:text("Clear the log")')
    await page.getByText('requests of bob removed from the log').waitFor()
    await page.getByText('No requests yet.').waitFor()
    const left = await e2e.emulator.requests()
    assert.equal(left.filter((e) => e.customer === 'bob').length, 0)
    assert.equal(left.length, others, "no other customer's request is removed")
  })
})

// The same console, on an emulator of its own filled by curl-like calls (no terraform): what the page keeps
// while it polls, the request log past the rows it shows, narrow windows, a stopped emulator, the fault
// rules' order, keypairs and the Metal resources' links.
describe('the web console, in Chromium: live tables, the whole log, narrow windows, a stopped emulator', { timeout: 300_000 }, () => {
  const e2e = useEmulatorWorkspace({ workspace: false })
  let browser: Awaited<ReturnType<typeof launch>> | undefined
  let page: Page
  const { open, row, polled } = steps(() => page)
  /**
   * What the page has selected, as text. (Evaluated through the DevTools protocol, which the page's
   * Content-Security-Policy does not bind: the page itself still runs no eval.)
   */
  const selected = () => page.evaluate<string>('String(getSelection())')
  /** An additional IP ordered unpaid with `key` as its Idempotency-Key: the order's id. */
  const orderIp = async (key: string) => {
    const response = await fetch(`${e2e.emulator.baseUrl}/baremetal-additional-ips`, {
      method: 'POST',
      headers: { 'x-token': e2e.emulator.apiKey, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ product_id: 401, cycle: 'm', pay_invoice_with_cc: false }),
      signal: AbortSignal.timeout(STEP_MS),
    })
    assert.equal(response.status, 200, await response.clone().text())
    return ((await response.json()) as { data: { order_id: string | number } }).data.order_id
  }

  before(async () => {
    browser = await launch()
    page = browser.page
  })
  after(async () => {
    await browser?.close()
  })

  test('text selected in a table stays selected through the polls, and while other rows change', async () => {
    const first = String(await orderIp('keep-me-selected-0001'))
    await page.goto(`${e2e.emulator.origin}/#orders`)
    const cell = row('#view-orders table', first).locator('td', { hasText: 'keep-me-selected-0001' })
    await cell.click({ clickCount: 3 })
    assert.match(await selected(), /keep-me-selected-0001/)
    const kept = await row('#view-orders table', first).elementHandle()
    await polled('/_emulator/orders', 3)
    assert.match(await selected(), /keep-me-selected-0001/, 'the selection survives the polls')
    // Another order: a new row above, and the selected one is left alone.
    const second = String(await orderIp('another-order-0002'))
    await row('#view-orders table', second).waitFor()
    assert.match(await selected(), /keep-me-selected-0001/, 'the selection survives a change elsewhere')
    assert.equal(await kept?.evaluate((node) => node.isConnected), true, 'the unchanged row is the same element')
  })

  test('an unchanged view is not downloaded again: each poll revalidates it (a 304 of a few hundred bytes), and a change still shows', async () => {
    let last = ''
    for (let n = 0; n < 40; n++) last = String(await orderIp(`revalidated-${String(n).padStart(4, '0')}`))
    await page.goto(`${e2e.emulator.origin}/#orders`)
    await row('#view-orders table', last).waitFor()
    // The page holds the whole view now: from here on, what each poll brings is the page's own record of
    // its fetches (what came over the wire, and the size of the body it read).
    await page.evaluate('performance.clearResourceTimings()')
    await polled('/_emulator/orders', 3)
    const sizes = await page.evaluate<{ transfer: number; body: number }[]>(
      `performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname === '/_emulator/orders')
        .map((e) => ({ transfer: e.transferSize, body: e.encodedBodySize }))`,
    )
    assert.ok(sizes.length >= 2, JSON.stringify(sizes))
    for (const poll of sizes) assert.ok(poll.body > 5_000 && poll.transfer < 1_000, JSON.stringify(sizes))
    const added = String(await orderIp('revalidated-new-0001'))
    await row('#view-orders table', added).waitFor()
  })

  test('narrow windows: the tabs wrap, wide tables scroll in their box and the page does not; the header label is readable', async () => {
    await page.goto(`${e2e.emulator.origin}/#accounts`)
    await page.locator('#view-accounts table').first().waitFor()
    const measure = (expression: string) => page.evaluate<number>(expression)
    try {
      for (const width of [375, 768]) {
        await page.setViewportSize({ width, height: 800 })
        for (const view of ['accounts', 'orders', 'requests', 'faults', 'keypairs', 'state']) {
          await open(view)
          await page.locator(`#view-${view} .table-box`).first().waitFor()
          const where = `${view} at ${width} px`
          assert.ok(
            (await measure('document.documentElement.scrollWidth')) <= width,
            `${where}: the page scrolls sideways (${await measure('document.documentElement.scrollWidth')} px)`,
          )
          const header = await page.locator('header').boundingBox()
          assert.equal(header?.width, width, `${where}: the header spans the window`)
          for (const tab of await page.locator('nav a').all()) {
            const box = await tab.boundingBox()
            assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${where}: tab ${await tab.textContent()} is off-screen`)
          }
        }
      }
      // The accounts table is wider than a phone: it scrolls in its box.
      await open('accounts')
      const box = page.locator('#view-accounts .table-box').first()
      assert.ok(
        (await box.evaluate((node) => node.scrollWidth > node.clientWidth)) === true,
        'at 768 px the accounts table is wider than its box, which scrolls',
      )
      assert.equal(await page.evaluate<string>("getComputedStyle(document.querySelector('#view-accounts .table-box')).overflowX"), 'auto')
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 })
    }
    // The Customer label on the dark header: WCAG AA's 4.5:1 at least.
    const colours = await page.evaluate<string[]>(
      "[getComputedStyle(document.querySelector('header label.customer')).color, getComputedStyle(document.querySelector('header')).backgroundColor]",
    )
    const luminance = (css: string) => {
      const [r, g, b] = (css.match(/\d+/g) ?? []).slice(0, 3).map((v) => {
        const c = Number(v) / 255
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
      }) as [number, number, number]
      return 0.2126 * r + 0.7152 * g + 0.0722 * b
    }
    const [text, background] = colours.map(luminance) as [number, number]
    const ratio = (Math.max(text, background) + 0.05) / (Math.min(text, background) + 0.05)
    assert.ok(ratio >= 4.5, `the Customer label's contrast is ${ratio.toFixed(2)}:1 (${colours.join(' on ')})`)
  })

  test('a Pay button pressed with the keyboard: the invoice is paid and the focus stays in its row; the tab on show is marked as the current page', async () => {
    const next = String(await orderIp('paid-with-the-keyboard-next'))
    const ordered = String(await orderIp('paid-with-the-keyboard'))
    const placed = (await e2e.emulator.orders()).orders.find((o) => String(o.order_id) === ordered) as unknown as OrderItem
    await page.goto(`${e2e.emulator.origin}/#orders`)
    assert.deepEqual(await page.locator('nav a[aria-current="page"]').allTextContents(), ['Orders'])
    const pay = row('#view-orders table', ordered).locator(`button[data-invoice="${placed.invoice_id}"]`)
    // The table is drawn once its first poll has answered: counted before that, there is no button at all.
    await pay.waitFor()
    // A screen reader names the invoice, not just "Pay", among the row's neighbours.
    assert.equal(await page.getByRole('button', { name: `Pay invoice ${placed.invoice_id}`, exact: true }).count(), 1)
    await pay.focus()
    await page.keyboard.press('Enter')
    await row('#view-orders table', ordered, 'Paid').waitFor()
    // The focus is where the button was: the row's invoice status cell, which now says Paid.
    const focused = row('#view-orders table', ordered).locator('td:focus')
    await focused.waitFor()
    assert.equal(await focused.textContent(), 'Paid')
    assert.notEqual(await page.evaluate<string>('document.activeElement.tagName'), 'BODY')
    // Tab goes on from there, not from the page's start: to the next row's Pay button.
    await page.keyboard.press('Tab')
    assert.equal(await row('#view-orders table', next).locator('button:focus').textContent(), 'Pay')
    await open('accounts')
    assert.deepEqual(await page.locator('nav a[aria-current="page"]').allTextContents(), ['Accounts'])
  })

  test('a stopped emulator: the page says it is not answering, at which address, and marks what it shows as stale until it answers again', async () => {
    await page.goto(`${e2e.emulator.origin}/#orders`)
    await page.locator('#view-orders table').waitFor()
    // As when the emulator stops: every connection to it refused (the launcher stops no sooner for the next tests).
    await page.route('**/_emulator/**', (route) => route.abort('connectionrefused'))
    try {
      const line = page.locator('#status.error.stale')
      await line.waitFor()
      const origin = e2e.emulator.origin.replace(/[.]/g, '\\.')
      assert.match(
        (await line.textContent()) ?? '',
        new RegExp(
          `^the emulator is not answering at ${origin}: what the page shows was read at \\d\\d:\\d\\d:\\d\\d and is stale until it answers again\\.$`,
        ),
      )
      await page.locator('main.stale').waitFor()
      assert.equal(await page.locator('#view-orders table').count(), 1, 'what was read is still shown, as stale')
    } finally {
      await page.unroute('**/_emulator/**')
    }
    await page.locator('main:not(.stale)').waitFor()
    await page.locator('#status:empty').waitFor()
  })

  test('fault rules are listed in the order they are tried, with their priority and Retry-After; the form sets both', async () => {
    await e2e.emulator.control('POST', '/profiles/remote')
    await e2e.emulator.control('POST', '/faults', { method: 'GET', path: '/lites/products', status: 503 })
    try {
      await page.goto(`${e2e.emulator.origin}/#faults`)
      const add = page.locator('form[aria-label="Add a fault rule"]')
      await add.locator('input[name="path"]').fill('/lites/**')
      await add.locator('input[name="status"]').fill('429')
      await add.locator('input[name="retry_after_s"]').fill('7')
      await add.locator('input[name="priority"]').fill('5')
      await add.locator('button[type="submit"]').click()
      await page.locator('#status', { hasText: /^rule \S+ added$/ }).waitFor()
      const rules = await e2e.emulator.control<{ fault_id: string; priority?: number; retry_after_s: number | null }[]>('GET', '/faults')
      const added = rules.at(-1)
      assert.deepEqual([added?.priority, added?.retry_after_s], [5, 7])
      const table = page.locator('#fault-rules')
      await table.locator('tbody tr').nth(3).waitFor()
      const headings = await table.locator('th').allTextContents()
      const column = (title: string) => headings.indexOf(title)
      assert.ok(column('Priority') >= 0 && column('Retry-After s') >= 0, headings.join(', '))
      const cells = async (title: string) => table.locator(`tbody tr td:nth-child(${column(title) + 1})`).allTextContents()
      // The rule added last, at priority 5, is tried first; the profile's, installed first, last.
      const [profile1, profile2, byHand] = rules.map((r) => r.fault_id)
      assert.deepEqual(await cells('ID'), [added?.fault_id, byHand, profile1, profile2])
      assert.deepEqual(await cells('Priority'), ['5', '0', '-1', '-1'])
      assert.deepEqual(await cells('Retry-After s'), ['7', '–', '–', '–'])
    } finally {
      await e2e.emulator.control('DELETE', '/faults')
    }
  })

  test("the fault rules' Remove buttons name their rule, as a Pay button names its invoice", async () => {
    await e2e.emulator.control('DELETE', '/faults')
    const first = await e2e.emulator.control<{ fault_id: string }>('POST', '/faults', { path: '/lites/products/one', status: 503 })
    const second = await e2e.emulator.control<{ fault_id: string }>('POST', '/faults', { path: '/lites/products/two', status: 503 })
    try {
      await page.goto(`${e2e.emulator.origin}/#faults`)
      await row('#fault-rules', second.fault_id).waitFor()
      // A screen reader tells the buttons apart by the rule each removes, not "Remove", "Remove".
      for (const rule of [first, second]) {
        assert.equal(await page.getByRole('button', { name: `Remove rule ${rule.fault_id}`, exact: true }).count(), 1, rule.fault_id)
      }
      await page.getByRole('button', { name: `Remove rule ${first.fault_id}`, exact: true }).click()
      await page.locator('#status', { hasText: `rule ${first.fault_id} removed` }).waitFor()
      assert.deepEqual(
        (await e2e.emulator.control<{ fault_id: string }[]>('GET', '/faults')).map((f) => f.fault_id),
        [second.fault_id],
      )
    } finally {
      await e2e.emulator.control('DELETE', '/faults')
    }
  })

  test('"Remove every rule" pressed with the keyboard: the button goes with the rules, and the focus is on the line that says so, not the page\'s start', async () => {
    await e2e.emulator.control('DELETE', '/faults')
    await e2e.emulator.control('POST', '/faults', { path: '/lites/products/one', status: 503 })
    await e2e.emulator.control('POST', '/faults', { path: '/lites/products/two', status: 503 })
    try {
      await page.goto(`${e2e.emulator.origin}/#faults`)
      await row('#fault-rules', '/lites/products/two').waitFor()
      await page.getByRole('button', { name: 'Remove every rule', exact: true }).focus()
      await page.keyboard.press('Enter')
      await page.locator('#status', { hasText: 'every rule removed' }).waitFor()
      await page.getByText('No rules: every request is answered normally.').waitFor()
      assert.equal(await page.getByRole('button', { name: 'Remove every rule' }).isVisible(), false)
      await page.locator('#view-faults .empty:focus').waitFor()
      assert.notEqual(await page.evaluate<string>('document.activeElement.tagName'), 'BODY')
      // Tab goes on from there: to the form that adds a rule.
      await page.keyboard.press('Tab')
      assert.equal(await page.locator('form[aria-label="Add a fault rule"] select[name="method"]:focus').count(), 1)
    } finally {
      await e2e.emulator.control('DELETE', '/faults')
    }
  })

  test('keypairs: each shows its SHA256 fingerprint as ssh-keygen prints it, its comment, and the whole key; never a private key', async () => {
    // Made by `ssh-keygen -t ed25519 -C 'ops@example host'`; `ssh-keygen -lf` printed the fingerprint.
    const line = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPWLG34WhmBgb2ns5dUOHg9QaGPYx5MqmSOszbapg8OY ops@example host'
    await e2e.emulator.api('POST', '/lite-pros/keypairs/import', { name: 'imported-key', public_key: line })
    const generated = await e2e.emulator.api<{ public_key: string; private_key: string }>('POST', '/lite-pros/keypairs', {
      name: 'made-key',
    })
    await page.goto(`${e2e.emulator.origin}/#keypairs`)
    const imported = row('#view-keypairs table', 'imported-key')
    await imported.waitFor()
    assert.equal(await imported.locator('code.fingerprint').textContent(), 'SHA256:AY6BqKS5c37D9qUEb0Daw6RPKz8ZydvuCN/QM/nKk1k')
    assert.match(
      (await imported.textContent()) ?? '',
      /ssh-ed25519.*SHA256:AY6BqKS5c37D9qUEb0Daw6RPKz8ZydvuCN\/QM\/nKk1k.*ops@example host/,
    )
    assert.equal(await imported.locator('code.fingerprint').getAttribute('title'), line)
    await imported.locator('summary').click()
    assert.equal(await imported.locator('code.key').textContent(), line)
    await imported.locator('code.key').waitFor()
    // Two ed25519 keys begin alike; their fingerprints tell them apart.
    const made = row('#view-keypairs table', 'made-key')
    const blob = Buffer.from(generated.public_key.split(' ')[1] ?? '', 'base64')
    const expected = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`
    assert.equal(await made.locator('code.fingerprint').textContent(), expected)
    assert.ok(!((await page.locator('body').textContent()) ?? '').includes('PRIVATE KEY'), 'a private key shows')
  })

  test("Metal resources: an additional IP and a volume name their server; the families' headings are the docs' names", async () => {
    const key = await e2e.emulator.api<{ keypair_id: number }>('POST', '/baremetals/keypairs', { name: 'linked-key' })
    const server = await e2e.emulator.api<{ account_id: string }>('POST', '/baremetals', {
      product_id: 301,
      cycle: 'm',
      keypair_id: key.keypair_id,
      label: 'db-linked',
    })
    const ip = await e2e.emulator.api<{ account_id: string }>('POST', '/baremetal-additional-ips', { product_id: 401, cycle: 'm' })
    await e2e.emulator.control('POST', '/clock', { advance_ms: 3_600_000 }) // past the provisioning: both Active
    await e2e.emulator.api('PUT', `/baremetal-additional-ips/${ip.account_id}/assigns`, { metal_account_id: Number(server.account_id) })
    const volume = await e2e.emulator.api<{ account_id: string }>('POST', '/baremetal-elastic-storages', {
      product_id: 501,
      cycle: 'm',
      storage_name: 'linked-volume',
      metal_account_id: Number(server.account_id),
      size: 100,
    })
    await page.goto(`${e2e.emulator.origin}/#accounts`)
    const cell = async (account: string, title: string) => {
      const target = row('#view-accounts table', account, account === volume.account_id ? 'linked-volume' : account)
      await target.waitFor()
      const table = target.locator('xpath=ancestor::table')
      const column = (await table.locator('th').allTextContents()).indexOf(title)
      assert.ok(column >= 0, `no ${title} column beside account ${account}`)
      return target.locator('td').nth(column).textContent()
    }
    assert.equal(await cell(ip.account_id, 'Server'), `${server.account_id} db-linked`)
    assert.equal(await cell(volume.account_id, 'Server'), `${server.account_id} db-linked`)
    // An IP assigned to no server says so.
    const spare = await e2e.emulator.api<{ account_id: string }>('POST', '/baremetal-additional-ips', { product_id: 401, cycle: 'm' })
    assert.equal(await cell(spare.account_id, 'Server'), 'not assigned')
    const headings = await page.locator('#view-accounts h3').allTextContents()
    for (const name of ['Metal servers', 'Additional IPs', 'Elastic storage']) assert.ok(headings.includes(name), headings.join(', '))
    assert.ok(!headings.some((h) => /Baremetal|Additional ip|Lite pro/.test(h)), headings.join(', '))
    // A server's own table has no Server column.
    const servers = page.locator('#view-accounts .family', { has: page.locator('h3', { hasText: /^Metal servers$/ }) })
    assert.ok(!(await servers.locator('th').allTextContents()).includes('Server'))
  })

  test('the request log: the filters search the whole log, the page says how many match and are shown, and each poll fetches only what is new', async () => {
    // One request to find later, then 600 more: the oldest falls out of the newest 500.
    await e2e.emulator.api('GET', '/lites/products/102')
    for (let batch = 0; batch < 30; batch++) await Promise.all(Array.from({ length: 20 }, () => e2e.emulator.api('GET', '/lites/products')))
    const log = await e2e.emulator.requests()
    const total = log.length
    const products = log.filter((e) => e.path.includes('/v1/lites/products')).length
    assert.ok(products > 600, String(products))
    await page.goto(`${e2e.emulator.origin}/#requests`)
    const summary = page.locator('#request-count')
    await summary.getByText(`Showing the newest 500 of ${total.toLocaleString('en-US')} requests.`).waitFor()
    assert.equal(await page.locator('#request-log tbody tr').count(), 500)
    // The old request is found although it is not among the newest 500.
    await page.fill('#view-requests input[name="path"]', '/products/102')
    await row('#request-log', '/v1/lites/products/102', '200').waitFor()
    await summary.getByText(`1 of ${total.toLocaleString('en-US')} requests match.`).waitFor()
    await page.fill('#view-requests input[name="path"]', '/v1/lites/products')
    await summary
      .getByText(
        `Showing the newest 500 of ${products.toLocaleString('en-US')} matching requests (${total.toLocaleString('en-US')} in the log).`,
      )
      .waitFor()
    await page.fill('#view-requests input[name="status"]', '5')
    await page.getByText('No request matches the filters.').waitFor()
    await page.fill('#view-requests input[name="status"]', '')
    await page.fill('#view-requests input[name="path"]', '')

    // A poll with nothing new asks for what came after its cursor and gets nothing back.
    const poll = await page.waitForResponse((r) => new URL(r.url()).pathname === '/_emulator/requests')
    assert.notEqual(new URL(poll.url()).searchParams.get('after') ?? '', '', poll.url())
    assert.deepEqual(((await poll.json()) as { data: { whole: boolean; entries: unknown[] } }).data.entries, [])
    // The rows already shown stay the same elements while the filter is typed and while new requests come.
    const newest = await page.locator('#request-log tbody tr').first().elementHandle()
    await page.locator('#view-requests input[name="path"]').pressSequentially('/v1/lites/p')
    await page.fill('#view-requests input[name="path"]', '')
    await e2e.emulator.api('GET', '/lite-pros/products')
    await row('#request-log', '/v1/lite-pros/products').waitFor()
    assert.equal(await newest?.evaluate((node) => node.isConnected), true, 'the row was not rebuilt')
    // A clear of the log: the page starts over with the emulator's (empty) log.
    await page.click('#view-requests button:text("Clear the log")')
    await page.getByText('No requests yet.').waitFor()
    await e2e.emulator.api('GET', '/lites/products/103')
    await row('#request-log', '/v1/lites/products/103').waitFor()
    assert.equal(await page.locator('#request-log tbody tr').count(), 1)
  })

  test('a request refused 401 (no key, or an unknown one) names no customer: with one customer, the log shows no Customer column', async () => {
    await e2e.emulator.api('GET', '/lites/products/101')
    const refused = await fetch(`${e2e.emulator.baseUrl}/lites/products/102`, { signal: AbortSignal.timeout(STEP_MS) })
    assert.equal(refused.status, 401)
    await page.goto(`${e2e.emulator.origin}/#requests`)
    await row('#request-log', '/v1/lites/products/102', '401').waitFor()
    await row('#request-log', '/v1/lites/products/101', '200').waitFor()
    const titles = await page.locator('#request-log th').allTextContents()
    assert.ok(!titles.includes('Customer'), titles.join(', '))
  })

  test('a Pay button clicked twice pays once: the second click, while the first is on its way, is not sent and refused', async () => {
    const ordered = String(await orderIp('paid-with-a-double-click'))
    const placed = (await e2e.emulator.orders()).orders.find((o) => String(o.order_id) === ordered) as unknown as OrderItem
    const calls: number[] = []
    const count = (response: { url(): string; request(): { method(): string }; status(): number }) => {
      if (response.request().method() === 'POST' && response.url().endsWith(`/_emulator/invoices/${placed.invoice_id}/pay`))
        calls.push(response.status())
    }
    page.on('response', count)
    try {
      await page.goto(`${e2e.emulator.origin}/#orders`)
      const pay = row('#view-orders table', ordered).locator(`button[data-invoice="${placed.invoice_id}"]`)
      await pay.dblclick()
      await row('#view-orders table', ordered, 'Paid').waitFor()
      await polled('/_emulator/orders', 2)
      assert.equal(await page.locator('#status').textContent(), `invoice ${placed.invoice_id} paid`)
      assert.deepEqual(calls, [200])
    } finally {
      page.off('response', count)
    }
  })

  test('"Add rule" clicked twice adds one rule: a submit while the last is on its way is not sent', async () => {
    await e2e.emulator.control('DELETE', '/faults')
    await page.goto(`${e2e.emulator.origin}/#faults`)
    const add = page.locator('form[aria-label="Add a fault rule"]')
    await add.locator('input[name="path"]').fill('/lites/products/double')
    await add.locator('input[name="status"]').fill('503')
    await add.locator('button[type="submit"]').dblclick()
    await page.locator('#status', { hasText: /^rule f\d+ added$/ }).waitFor()
    await row('#fault-rules', '/lites/products/double').first().waitFor()
    await polled('/_emulator/faults', 2)
    const rules = await e2e.emulator.control<{ path: string }[]>('GET', '/faults')
    assert.deepEqual(
      rules.map((r) => r.path),
      ['/lites/products/double'],
    )
    await e2e.emulator.control('DELETE', '/faults')
  })

  test('the line above the request log counts in words: "1 request.", not "1 requests."', async () => {
    await e2e.emulator.control('DELETE', '/requests')
    await e2e.emulator.api('GET', '/lites/products/101')
    await page.goto(`${e2e.emulator.origin}/#requests`)
    // The view shows what it held from its last visit until its first poll answers (the log cleared
    // since): wait for the line to read the emulator's log, which holds this one request.
    await page.locator('#request-count', { hasText: /^1 request\.$/ }).waitFor()
    await e2e.emulator.api('GET', '/lites/products/102')
    await row('#request-log', '/v1/lites/products/102').waitFor()
    await page.locator('#request-count', { hasText: /^2 requests\.$/ }).waitFor()
  })

  test('a VM or a server shows a power only while the API reads one (Active, Suspended): none while Pending or Terminated', async () => {
    await e2e.emulator.reset()
    const keypair = await e2e.emulator.api<{ keypair_id: number }>('POST', '/lites/keypairs/', { name: 'power-key' })
    const order = await e2e.emulator.api<{ account_id: string | number }>('POST', '/lites', {
      product_id: 101,
      cycle: 'm',
      select_os: 'Ubuntu-22.04',
      keypair_id: keypair.keypair_id,
      ssh_and_console_user: 'deployer',
      console_password: 'S3cretPass9',
      vm_name: 'power-vm',
      pay_invoice_with_cc: false,
    })
    const id = String(order.account_id)
    // Pending on its unpaid invoice: vm-details answers 409, so there is no power to show.
    await assert.rejects(e2e.emulator.api('GET', `/lites/accounts/${id}/vm-details`), /answered 409/)
    await page.goto(`${e2e.emulator.origin}/#accounts`)
    const vm = row('#view-accounts table', id, 'power-vm')
    await vm.filter({ hasText: 'Pending' }).waitFor()
    const power = async () => {
      const titles = await page.locator('#view-accounts table th').allTextContents()
      return (await vm.locator('td').nth(titles.indexOf('Power')).textContent()) ?? ''
    }
    assert.equal(await power(), '–')
    await e2e.emulator.control('POST', `/accounts/${id}/status`, { status: 'Active' })
    await vm.filter({ hasText: 'Active' }).waitFor()
    assert.equal(await power(), 'running')
    await e2e.emulator.control('POST', `/accounts/${id}/status`, { status: 'Suspended' })
    await vm.filter({ hasText: 'Suspended' }).waitFor()
    assert.equal(await power(), 'stopped')
    await e2e.emulator.api('DELETE', `/lites/${id}`)
    await vm.filter({ hasText: 'Terminated' }).waitFor()
    await assert.rejects(e2e.emulator.api('GET', `/lites/accounts/${id}/vm-details`), /answered 409/)
    assert.equal(await power(), '–')
  })

  test('a snapshot saved under a name already taken replaces it: the console asks first, naming it, and a no keeps the older one', async () => {
    await e2e.emulator.reset()
    await e2e.emulator.control('POST', '/snapshots', { name: 'taken' })
    await orderIp('after-the-first-save')
    await page.goto(`${e2e.emulator.origin}/#state`)
    await row('#view-state table', 'taken').waitFor()
    const asked: string[] = []
    page.once('dialog', (dialog) => {
      asked.push(dialog.message())
      void dialog.dismiss()
    })
    await page.fill('form[aria-label="Save a snapshot"] input[name="name"]', 'taken')
    await page.click('form[aria-label="Save a snapshot"] button[type="submit"]')
    assert.match(asked[0] ?? '', /^Replace snapshot taken, saved at /)
    const kept = await e2e.emulator.control<{ accounts: number }>('GET', '/snapshots/taken')
    assert.equal(kept.accounts, 0, 'a no kept the older snapshot')
    page.once('dialog', (dialog) => void dialog.accept())
    await page.click('form[aria-label="Save a snapshot"] button[type="submit"]')
    await page.locator('#status', { hasText: 'snapshot taken replaced' }).waitFor()
    assert.equal((await e2e.emulator.control<{ accounts: number }>('GET', '/snapshots/taken')).accounts, 1)
    // A new name asks nothing.
    await page.fill('form[aria-label="Save a snapshot"] input[name="name"]', 'fresh')
    await page.click('form[aria-label="Save a snapshot"] button[type="submit"]')
    await page.locator('#status', { hasText: 'snapshot fresh saved' }).waitFor()
    await e2e.emulator.control('DELETE', '/snapshots/taken')
    await e2e.emulator.control('DELETE', '/snapshots/fresh')
  })
})
