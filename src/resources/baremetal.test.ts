// The Metal resources in process against the emulator: the server's create, in-place steps, actions and
// import, the keypair, additional IPs and their assignment, elastic storage, and the Metal lookups.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { vmBody } from '../../test/support/fixtures.js'
import { Harness } from '../../test/support/harness.js'
import { checkPlanOnline, pricePlan, readResource, type ValueMap, validateConfig } from '../core/index.js'
import { baremetal } from './baremetal.js'
import { baremetalAdditionalIp } from './baremetal-additional-ip.js'
import { baremetalAdditionalIpAssignment } from './baremetal-additional-ip-assignment.js'
import { baremetalElasticStorage } from './baremetal-elastic-storage.js'
import { baremetalKeypair } from './baremetal-keypair.js'
import { baremetalElasticStorageProducts, baremetalOpenvpn, baremetalProducts, baremetalRebuildOsList } from './baremetal-lookups.js'
import { lite } from './lite-family.js'
import { liteVm } from './lite-vm.js'

const server = baremetal
const keypair = baremetalKeypair
const ip = baremetalAdditionalIp
const assignment = baremetalAdditionalIpAssignment
const storage = baremetalElasticStorage

async function withServer(extra: ValueMap = {}) {
  const h = new Harness()
  const key = await h.create(keypair, { name: 'metal-key' })
  const config: ValueMap = { product_id: 301, cycle: 'm', keypair_id: key.keypair_id ?? null, label: 'db-primary', ...extra }
  const state = await h.create(server, config)
  await h.requests()
  return { h, key, config, state }
}

/** An OpenSSH public key line: `type`, then the base64 of its blob (length-prefixed `fields` after the type name). */
function keyLine(type: string, fields: readonly Buffer[], comment = 'me@host', named = type): string {
  const field = (bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, 0].map((_, i) => (bytes.length >>> (24 - 8 * i)) & 255)), bytes])
  return `${type} ${Buffer.concat([field(Buffer.from(named)), ...fields.map(field)]).toString('base64')} ${comment}`
}

describe('provider_baremetal_keypair validation', () => {
  const problems = (publicKey: string) =>
    validateConfig(keypair.attributes, { name: 'metal-key', public_key: publicKey }).map((d) => d.detail)

  test('a public key line above the 16384 characters the service takes is refused naming the cap', () => {
    const base = keyLine('ssh-ed25519', [Buffer.alloc(32, 7)], '')
    const line = (length: number) => `${base}${'c'.repeat(length - base.length)}`
    assert.deepEqual(problems(line(16_384)), [])
    assert.deepEqual(problems(line(16_385)), ['public_key must be 1 to 16384 characters long (got 16385).'])
  })

  test('the key body must be a key of the type the line names, as the service decodes it: a mismatch or a cut body is refused at plan', () => {
    const ed25519 = [Buffer.alloc(32, 7)]
    const rsa = [Buffer.from([1, 0, 1]), Buffer.alloc(257, 9)]
    for (const valid of [
      keyLine('ssh-ed25519', ed25519),
      keyLine('ssh-rsa', rsa),
      keyLine('ecdsa-sha2-nistp256', [Buffer.from('nistp256'), Buffer.alloc(65, 4)]),
      keyLine('ecdsa-sha2-nistp521', [Buffer.from('nistp521'), Buffer.alloc(133, 4)], ''),
    ]) {
      assert.deepEqual(problems(valid), [], valid)
    }
    const ed25519Body = keyLine('ssh-ed25519', ed25519).split(' ')[1]
    assert.deepEqual(problems(`ssh-rsa ${ed25519Body}`), [
      'public_key must be one OpenSSH public key line: its body holds a ssh-ed25519 key, not ssh-rsa.',
    ])
    assert.match(problems('ssh-ed25519 AAAA').join(), /its body is not the base64 of an SSH public key/)
    assert.match(problems(keyLine('ssh-ed25519', [Buffer.alloc(31, 7)])).join(), /its ssh-ed25519 key body is cut short or malformed/)
    assert.match(problems(keyLine('ecdsa-sha2-nistp256', [Buffer.from('nistp384'), Buffer.alloc(65, 4)])).join(), /cut short or malformed/)
    assert.match(problems('ssh-dss AAAAB3NzaC1kc3MAAACBAP').join(), /must be one OpenSSH public key line such as/)
  })
})

describe('provider_baremetal', () => {
  test('a refresh that finds the server powered off outside while power_state is on warns; without power_state it reads no power', async () => {
    const { h, state } = await withServer({ power_state: 'on' })
    assert.deepEqual((await readResource(server, state, String(state.id), {}, h.session)).diagnostics, [])
    await h.control('POST', '/portal', { method: 'PUT', path: `/baremetals/accounts/${String(state.id)}/state/off` })
    const read = await readResource(server, state, String(state.id), {}, h.session)
    assert.deepEqual(
      read.diagnostics.map((d) => d.summary),
      [`Metal server ${String(state.id)} is powered off, though power_state is "on"`],
    )
    await h.requests()
    const unset = await readResource(server, { ...state, power_state: null }, String(state.id), {}, h.session)
    assert.deepEqual(unset.diagnostics, [])
    assert.deepEqual(
      (await h.requests()).map((r) => `${r.method} ${r.path}`),
      [`GET /v1/baremetals/accounts/${String(state.id)}`],
      'one read per server when no power state is asked',
    )
    for (const status of [404, 410]) {
      await h.control('POST', '/faults', { method: 'GET', path: '/baremetals/accounts/*/state', mode: 'error', status, count: 1 })
      const kept = await readResource(server, state, String(state.id), {}, h.session)
      assert.equal(kept.state?.id, state.id, `a ${status} of the power state keeps the server in state`)
      assert.deepEqual(kept.diagnostics, [], 'the power is unknown, not changed')
    }
  })

  test('create waits for Active; label, rebuild, reset and power run in order with exactly their calls', async () => {
    const { h, config, state } = await withServer()
    assert.equal(state.status, 'Active')
    assert.equal(state.ip_address, '203.0.113.10')
    assert.equal(state.select_os, 'ubuntu-22')
    const outcome = await h.update(server, state, {
      ...config,
      label: 'db-renamed',
      rebuild_os: 'debian-12',
      reset_trigger: 'r1',
      power_state: 'off',
    })
    assert.deepEqual(outcome.diagnostics, [])
    assert.deepEqual(await h.mutations(), [
      'PUT /v1/baremetals/100001',
      'PUT /v1/baremetals/100001/rebuild',
      'PUT /v1/baremetals/accounts/100001/state/reset',
      'PUT /v1/baremetals/accounts/100001/state/off',
    ])
    const after = outcome.state as ValueMap
    const again = await h.update(server, after, {
      ...config,
      label: 'db-renamed',
      rebuild_os: 'debian-12',
      reset_trigger: 'r2',
      power_state: 'off',
    })
    assert.deepEqual(await h.mutations(), ['PUT /v1/baremetals/accounts/100001/state/reset'], 'a new trigger value re-fires only the reset')
    const cleared = await h.update(server, again.state as ValueMap, { ...config, label: 'db-renamed' })
    assert.deepEqual(await h.mutations(), [], 'clearing the actions calls nothing')
    assert.equal(cleared.state?.rebuild_os, 'debian-12', 'a removed action keeps its last value: nothing changed')
    const empty = { ...config, label: 'db-renamed', rebuild_os: '', reset_trigger: '' }
    assert.deepEqual(validateConfig(server.attributes, empty), [], 'an empty trigger is valid')
    const emptied = await h.update(server, cleared.state as ValueMap, empty)
    assert.deepEqual(emptied.diagnostics, [])
    assert.deepEqual(await h.mutations(), [], 'an empty trigger fires nothing: only a new non-empty value does')
  })

  test('product_id, cycle and the other create-only inputs replace; the payment flag replaces nothing and calls nothing', async () => {
    const { h, config, state } = await withServer()
    for (const [name, value] of Object.entries({ product_id: 302, cycle: 'a', select_os: 'rocky-9', keypair_id: 99, public_ip: 1 })) {
      const plan = h.plan(server, state, { ...config, [name]: value })
      assert.deepEqual(plan.replace, name === 'public_ip' ? [] : [name], name)
    }
    // The API never returns the promocode: one added later (or after an import) is only recorded.
    assert.deepEqual(h.plan(server, state, { ...config, promocode: 'PROMO10' }).replace, [])
    const paid = await h.update(server, state, { ...config, pay_with_credit_card: false })
    assert.equal(paid.state?.pay_with_credit_card, false)
    assert.deepEqual(await h.mutations(), [])
  })

  test('a rebuild with power_state off leaves the server on: the apply and the refreshes after it say the rebuild did it and how to power it off', async () => {
    const { h, config, state } = await withServer({ power_state: 'off' })
    const id = String(state.id)
    const rebuilt = await h.update(server, state, { ...config, power_state: 'off', rebuild_os: 'debian-12' })
    assert.deepEqual(await h.mutations(), [`PUT /v1/baremetals/${id}/rebuild`], 'power_state did not change: no power call')
    const summary = `Metal server ${id} is powered on, though power_state is "off"`
    assert.deepEqual(
      rebuilt.diagnostics.map((d) => `${d.severity}: ${d.summary}`),
      [`warning: ${summary}`],
    )
    const told = rebuilt.diagnostics[0]?.detail ?? ''
    assert.match(told, /The OS rebuild \(rebuild_os\) that this configuration ran left Metal server \d+ powered on/)
    assert.doesNotMatch(told, /outside/)
    // What works on each client: actions only from Terraform 1.14 on.
    assert.match(told, /with Terraform 1\.14 or later, invoke the action provider_baremetal_power with state "off"/)
    assert.match(told, /in Pulumi, call the resource's power method/)
    assert.match(told, /with OpenTofu or an earlier Terraform, which have no actions, set power_state to "on" .* then back to "off"/)
    const refreshed = await readResource(server, rebuilt.state as ValueMap, id, rebuilt.private, h.session)
    assert.deepEqual(
      refreshed.diagnostics.map((d) => d.summary),
      [summary],
    )
    assert.match(refreshed.diagnostics[0]?.detail ?? '', /OS rebuild \(rebuild_os\) that this configuration ran/)
    // Powered off as asked: no warning, and the rebuild is no longer what a later change is told as.
    await h.control('POST', '/portal', { method: 'PUT', path: `/baremetals/accounts/${id}/state/off` })
    const off = await readResource(server, rebuilt.state as ValueMap, id, refreshed.private, h.session)
    assert.deepEqual(off.diagnostics, [])
    await h.control('POST', '/portal', { method: 'PUT', path: `/baremetals/accounts/${id}/state/on` })
    const outside = await readResource(server, rebuilt.state as ValueMap, id, off.private, h.session)
    assert.match(outside.diagnostics[0]?.detail ?? '', /changed outside this configuration/)
  })

  test('a reset with power_state off says the reset powered the server on; a power change in the same apply leaves it off, unwarned', async () => {
    const { h, config, state } = await withServer({ power_state: 'off' })
    const reset = await h.update(server, state, { ...config, power_state: 'off', reset_trigger: 'r1' })
    assert.match(
      reset.diagnostics[0]?.detail ?? '',
      /The reset \(reset_trigger\) that this configuration ran left Metal server \d+ powered on/,
    )
    const on = await h.update(server, reset.state as ValueMap, { ...config, power_state: 'on', reset_trigger: 'r1' }, reset.private)
    const both = await h.update(
      server,
      on.state as ValueMap,
      { ...config, power_state: 'off', rebuild_os: 'rocky-9', reset_trigger: 'r2' },
      on.private,
    )
    assert.deepEqual(both.diagnostics, [], 'the power step runs last: the server is off as asked')
    assert.equal(both.private.notes, undefined)
  })

  test('a create whose own power call failed says the next apply sets it, and that apply does', async () => {
    const h = new Harness()
    const key = await h.create(keypair, { name: 'metal-key' })
    const config: ValueMap = { product_id: 301, cycle: 'm', keypair_id: key.keypair_id ?? null, label: 'db-primary', power_state: 'off' }
    await h.control('POST', '/faults', { method: 'PUT', path: '/baremetals/accounts/*/state/*', mode: 'error', status: 400, count: 1 })
    const created = await h.tryCreate(server, config)
    const id = String(created.state?.id)
    const warned = created.diagnostics.filter((d) => d.severity === 'warning')
    assert.deepEqual(
      warned.map((d) => d.summary),
      [`Metal server ${id} is powered on, though power_state is "off"`],
    )
    for (const told of [warned[0]?.detail ?? '']) {
      assert.doesNotMatch(told, /outside|no plan changes the power back/)
      assert.match(told, /the next apply finishes it and sets it/)
    }
    const refreshed = await readResource(server, created.state as ValueMap, id, created.private, h.session)
    assert.doesNotMatch(refreshed.diagnostics[0]?.detail ?? '', /outside|no plan changes the power back/)
    assert.match(refreshed.diagnostics[0]?.detail ?? '', /the next apply finishes it and sets it/)
    await h.mutations()
    const resumed = await h.update(server, refreshed.state as ValueMap, config, refreshed.private)
    assert.deepEqual(await h.mutations(), [`PUT /v1/baremetals/accounts/${id}/state/off`], 'the next apply powers it off')
    assert.deepEqual(resumed.diagnostics, [])
  })

  test('power_state given at create is applied once Active; import recovers the inputs for an empty plan', async () => {
    const { h, config, state } = await withServer({ power_state: 'off' })
    assert.equal(state.power_state, 'off')
    const imported = await h.import(server, String(state.id))
    assert.equal(imported?.power_state, 'off')
    assert.equal(imported?.select_os, 'ubuntu-22')
    assert.deepEqual(h.plan(server, imported, { ...config, power_state: 'off' }).changed, [])
  })

  test('a replacement with a keypair_id the Metal pool does not have is refused at plan, before the server is deleted', async () => {
    const { h, config, state } = await withServer()
    const plan = h.plan(server, state, { ...config, keypair_id: 99 })
    assert.deepEqual(plan.replace, ['keypair_id'])
    const issues = await checkPlanOnline(server, state, plan, h.session)
    assert.deepEqual(
      issues.map((d) => [d.severity, d.path, d.detail]),
      [['error', ['keypair_id'], "keypair_id must be a keypair of baremetal_keypair's pool, which has no keypair 99."]],
    )
    const other = await h.create(keypair, { name: 'other-key' })
    assert.deepEqual(
      await checkPlanOnline(server, state, h.plan(server, state, { ...config, keypair_id: other.keypair_id ?? 0 }), h.session),
      [],
    )
  })

  test("rebuild_os is checked against the server's rebuild OS list at plan time, before any call", async () => {
    const { h, config, state } = await withServer()
    const bad = h.plan(server, state, { ...config, rebuild_os: 'windows-2022' })
    const issues = await checkPlanOnline(server, state, bad, h.session)
    assert.deepEqual(
      issues.map((d) => d.path),
      [['rebuild_os']],
    )
    assert.match(issues[0]?.detail ?? '', /"ubuntu-22", "ubuntu-24", "debian-12", "rocky-9"/)
    const good = h.plan(server, state, { ...config, rebuild_os: 'rocky-9' })
    assert.deepEqual(await checkPlanOnline(server, state, good, h.session), [])
    assert.deepEqual(await h.mutations(), [])
  })

  test('the cycle and power state are checked at plan time', async () => {
    const { h, config } = await withServer()
    const plan = h.plan(server, null, { ...config, cycle: 'q', power_state: 'reboot', public_ip: 2 })
    assert.deepEqual(
      plan.diagnostics.map((d) => d.path),
      [['cycle'], ['public_ip'], ['power_state']],
    )
  })
})

describe('provider_baremetal_keypair', () => {
  test('a generated key keeps its private key; an imported key is compared without whitespace', async () => {
    const h = new Harness()
    const generated = await h.create(keypair, { name: 'generated' })
    assert.match(String(generated.private_key), /BEGIN OPENSSH PRIVATE KEY/)
    assert.equal((await h.read(keypair, generated))?.private_key, generated.private_key)
    const publicKey = String((await h.read(keypair, generated))?.raw).match(/ssh-ed25519 [A-Za-z0-9+/=]+/)?.[0]
    assert.ok(publicKey)
    const imported = await h.create(keypair, { name: 'imported', public_key: `  ${publicKey} me@host \n` })
    assert.equal(imported.private_key, null)
    const refreshed = await h.read(keypair, imported)
    assert.equal(refreshed?.public_key, `  ${publicKey} me@host \n`, 'no drift for whitespace')
    const byId = await h.import(keypair, String(imported.id))
    assert.equal(byId?.public_key, `${publicKey} me@host`)
    assert.equal((await h.import(keypair, String(generated.id)))?.public_key, null, 'a generated key has no public_key input')
  })

  test('a service that leaves out origin (K1: clients tolerate it): refreshes keep either kind as it is, so nothing is replaced', async () => {
    const h = new Harness()
    const generated = await h.create(keypair, { name: 'generated' })
    const publicKey = String((await h.read(keypair, generated))?.raw).match(/ssh-ed25519 [A-Za-z0-9+/=]+/)?.[0]
    const config = { name: 'imported', public_key: ` ${String(publicKey)} me@host` }
    const imported = await h.create(keypair, config)
    h.answers = async (response, request) => {
      if (!new URL(request.url).pathname.includes('/keypairs')) return response
      const text = (await response.text()).replace(/,?"origin":"(generated|imported)"/g, '')
      return new Response(text, { status: response.status, headers: response.headers })
    }
    assert.doesNotMatch(String((await h.read(keypair, imported))?.raw), /origin/)
    const refreshed = await h.read(keypair, imported)
    assert.equal(refreshed?.public_key, config.public_key)
    assert.deepEqual(h.plan(keypair, refreshed ?? null, config).replace, [])
    const stillGenerated = await h.read(keypair, generated)
    assert.equal(stillGenerated?.public_key, null)
    assert.deepEqual(h.plan(keypair, stillGenerated ?? null, { name: 'generated' }).replace, [])
    assert.equal(
      (await h.import(keypair, String(imported.id)))?.public_key,
      null,
      'an import cannot tell, and the spec fills it only for imported',
    )
  })
})

describe('provider_baremetal_keypair with an empty public_key', () => {
  test('empty or blank asks for a generated key, as unset does: accepted at plan, generated, no drift, and unset <-> empty replaces nothing', async () => {
    for (const empty of ['', '   ']) {
      assert.deepEqual(validateConfig(keypair.attributes, { name: 'metal-key', public_key: empty }), [], JSON.stringify(empty))
    }
    const h = new Harness()
    const config = { name: 'empty-key', public_key: '' }
    const created = await h.create(keypair, config)
    assert.match(String(created.private_key), /BEGIN OPENSSH PRIVATE KEY/, 'the service generated the key pair')
    const refreshed = await h.read(keypair, created)
    assert.equal(refreshed?.public_key, '', 'a refresh keeps the empty value')
    const again = h.plan(keypair, refreshed ?? null, config)
    assert.deepEqual([again.changed, again.replace], [[], []], 'the plan after the apply is empty')
    // The same keypair written without public_key, or with it empty again: recorded, never a new keypair.
    assert.deepEqual(h.plan(keypair, refreshed ?? null, { name: 'empty-key' }).replace, [])
    const unset = await h.create(keypair, { name: 'unset-key' })
    assert.deepEqual(h.plan(keypair, unset, { name: 'unset-key', public_key: '' }).replace, [])
    const imported = await h.import(keypair, String(unset.id))
    assert.deepEqual(h.plan(keypair, imported, { name: 'unset-key', public_key: ' ' }).replace, [])
  })
})

describe('additional IPs and assignments', () => {
  test('moving an assignment to a second server deletes the old one first; import by composite id', async () => {
    const { h, key, state } = await withServer()
    const second = await h.create(server, { product_id: 301, cycle: 'm', keypair_id: key.keypair_id ?? null, label: 'db-replica' })
    const address = await h.create(ip, { product_id: 401, cycle: 'm' })
    assert.equal(address.ip_address, '198.51.100.2')
    const first = await h.create(assignment, { additional_ip_id: Number(address.id), metal_account_id: Number(state.id) })
    assert.equal(first.id, `${String(state.id)}:${String(address.id)}`)
    assert.equal(assignment.deleteBeforeReplace, true)
    const moved = { additional_ip_id: Number(address.id), metal_account_id: Number(second.id) }
    const plan = h.plan(assignment, first, moved)
    assert.deepEqual(plan.replace, ['metal_account_id'])
    // The IP is the replaced assignment's, deleted first: a move passes, in the plan with the prior
    // state and in the plan of the new object that names what it replaces (Terraform's second plan, Pulumi's Create).
    assert.deepEqual(await checkPlanOnline(assignment, first, plan, h.session), [])
    const fresh = h.plan(assignment, null, moved)
    assert.deepEqual(await checkPlanOnline(assignment, null, fresh, h.session, String(first.id)), [])
    // Another resource routing the same IP to the second server: the service would refuse it (409).
    const taken = await checkPlanOnline(assignment, null, fresh, h.session)
    assert.deepEqual(
      taken.map((d) => [d.severity, d.path]),
      [['error', ['additional_ip_id']]],
    )
    assert.match(taken[0]?.detail ?? '', new RegExp(`routed to server ${String(state.id)}: an IP serves one server at a time`))
    // The same server again is the same assignment, which the service answers with the same object.
    const again = h.plan(assignment, null, { ...moved, metal_account_id: Number(state.id) })
    assert.deepEqual(await checkPlanOnline(assignment, null, again, h.session), [])
    await h.requests()
    await h.delete(assignment, first)
    const next = await h.create(assignment, moved)
    assert.deepEqual(await h.mutations(), [
      `DELETE /v1/baremetal-additional-ips/${String(address.id)}/assigns/${String(state.id)}`,
      `PUT /v1/baremetal-additional-ips/${String(address.id)}/assigns`,
    ])
    const imported = await h.import(assignment, String(next.id))
    assert.deepEqual(h.plan(assignment, imported, moved).changed, [])
    assert.equal(await h.read(assignment, first), null, 'the old assignment is gone')
    await assert.rejects(h.import(assignment, '12'), /<metal_account_id>:<additional_ip_id>/)
  })

  test('a change of region replaces an additional IP; its payment flag and promocode are only recorded, keeping its address', async () => {
    const h = new Harness()
    const address = await h.create(ip, { product_id: 401, cycle: 'm' })
    assert.deepEqual(h.plan(ip, address, { product_id: 401, cycle: 'm', region: 'cjv-1' }).replace, ['region'])
    const changed = { product_id: 401, cycle: 'm', pay_with_credit_card: false, promocode: 'NO-SUCH-CODE' }
    const recorded = h.plan(ip, address, changed)
    assert.deepEqual(recorded.replace, [])
    // An IP is never ordered again after its create: the warning says so, rather than promise a next order.
    const details = recorded.diagnostics.map((d) => d.detail)
    assert.equal(details.length, 2)
    for (const detail of details) assert.match(detail, /baremetal_additional_ip places no order after its create/)
    // Neither is a Metal server (its changes in place are free); a Lite VM is (a package, a bigger disk).
    const { state: serverState, config: serverConfig } = await withServer()
    const free = h.plan(server, serverState, { ...serverConfig, promocode: 'PROMO10' }).diagnostics.map((d) => d.detail)
    assert.match(free[0] ?? '', /baremetal places no order after its create/)
    const vm = liteVm(lite)
    const vmConfig = vmBody(1, 101, 'order-time-vm')
    const vmPrior = { ...h.plan(vm, null, vmConfig).planned, id: '100009' }
    const vmPlan = h.plan(vm, vmPrior, { ...vmConfig, promocode: 'PROMO10' })
    const paid = vmPlan.diagnostics.map((d) => d.detail)
    assert.match(paid.join('\n'), /promocode .*takes effect at the next paid change of it/)
    await h.requests()
    const outcome = await h.update(ip, address, changed)
    assert.deepEqual(await h.mutations(), [], 'nothing is deleted or ordered')
    assert.equal(outcome.state?.id, address.id)
    assert.equal(outcome.state?.ip_address, address.ip_address, 'the address is kept')
    assert.equal(outcome.state?.pay_with_credit_card, false)
  })
})

test('an empty promocode is no code, as unset: writing it on an existing IP warns of no order to come and replaces nothing', async () => {
  const h = new Harness()
  const config = { product_id: 401, cycle: 'm' }
  const address = await h.create(ip, config)
  for (const [prior, given] of [
    [address, { ...config, promocode: '' }],
    [{ ...address, promocode: '' }, config],
  ] as const) {
    const plan = h.plan(ip, prior, given)
    assert.deepEqual([plan.replace, plan.diagnostics], [[], []], JSON.stringify(given))
  }
})

test('a replacement whose order carries a promocode warns at plan that the code is checked only after the delete; without one, no warning', async () => {
  const { h, state, config } = await withServer({ promocode: 'PROMO10' })
  const replaced = h.plan(server, state, { ...config, cycle: 'a', promocode: 'EXPIRED2025' })
  assert.ok(replaced.replace.length > 0, 'a change of cycle replaces the server')
  const issues = await checkPlanOnline(server, state, replaced, h.session)
  const warned = issues.filter((d) => d.summary.includes('checks only when it is placed'))
  assert.equal(warned.length, 1, JSON.stringify(issues))
  assert.deepEqual(warned[0]?.path, ['promocode'])
  assert.match(warned[0]?.detail ?? '', /deletes baremetal \d+ before then.*create_before_destroy/s)
  const without = { ...config, promocode: null, cycle: 'a' }
  const plain = await checkPlanOnline(server, state, h.plan(server, state, without), h.session)
  assert.deepEqual(
    plain.filter((d) => d.summary.includes('checks only when it is placed')),
    [],
  )
})

test('a create whose wait runs out records account_id with the id: what references it is planned, not refused as missing', async () => {
  const { h, state, config } = await withServer()
  await h.control('PATCH', '/config', { provisioning_delay_ms: 120_000 })
  const unfinished = await h.tryCreate(server, { ...config, label: 'db-replica', timeouts: { create: '30s' } })
  assert.ok(unfinished.diagnostics.some((d) => d.severity === 'error' || d.severity === 'warning'))
  assert.equal(unfinished.state?.status, 'Pending')
  assert.equal(unfinished.state?.account_id, Number(unfinished.state?.id), 'the account id of the server kept in state')
  const volume = await h.tryCreate(storage, {
    product_id: 501,
    cycle: 'm',
    storage_name: 'db-volume',
    metal_account_id: Number(state.id),
    timeouts: { create: '30s' },
  })
  assert.equal(volume.state?.account_id, Number(volume.state?.id), "the storage's too (every ordered account)")
})

describe('provider_baremetal_elastic_storage', () => {
  test('a volume grown outside is no drift, even with size unset; a product change is priced on the size it has', async () => {
    const { h, state } = await withServer()
    const config: ValueMap = { product_id: 501, cycle: 'm', storage_name: 'db-volume', metal_account_id: Number(state.id) }
    const volume = await h.create(storage, config)
    await h.control('PATCH', `/accounts/${String(volume.id)}`, { extra_details: { size: 300 } })
    const refreshed = (await h.read(storage, volume)) as ValueMap
    assert.equal(refreshed.size, 100, 'the state keeps the floor')
    const same = h.plan(storage, refreshed, config)
    assert.deepEqual([same.diagnostics, same.changed], [[], []])
    const price = await pricePlan(storage, refreshed, h.plan(storage, refreshed, { ...config, size: 350, product_id: 502 }), h.session)
    assert.deepEqual(
      price.orders.map((o) => o.what),
      ['upgrade from 300 to 350 GB', price.orders[1]?.what],
    )
    assert.match(price.orders[1]?.what ?? '', / for 350 GB$/)
    const productOnly = await pricePlan(storage, refreshed, h.plan(storage, refreshed, { ...config, product_id: 502 }), h.session)
    assert.match(productOnly.orders[0]?.what ?? '', / for 300 GB$/, 'billed on the 300 GB the volume has')
  })

  test('growth then change-package: two orders, waiting for Active between them', async () => {
    const { h, state } = await withServer()
    const config: ValueMap = { product_id: 501, cycle: 'm', storage_name: 'db-volume', metal_account_id: Number(state.id) }
    const volume = await h.create(storage, config)
    assert.equal(volume.size, 100)
    await h.requests()
    const outcome = await h.update(storage, volume, { ...config, size: 200, product_id: 502 })
    assert.deepEqual(outcome.diagnostics, [])
    const log = await h.requests()
    const mutations = log.filter((e) => e.method !== 'GET').map((e) => `${e.method} ${e.path}`)
    assert.deepEqual(mutations, [
      `PUT /v1/baremetal-elastic-storages/${String(volume.id)}`,
      `POST /v1/baremetal-elastic-storages/${String(volume.id)}`,
    ])
    const resize = log.findIndex((e) => e.method === 'PUT')
    const change = log.findIndex((e) => e.method === 'POST')
    assert.ok(
      log.slice(resize + 1, change).some((e) => e.method === 'GET'),
      'the change-package waits for the resize',
    )
    assert.equal(outcome.state?.size, 200)
    assert.deepEqual((await h.orders()).by_kind, {
      'baremetal.create': 1,
      'elastic_storage.create': 1,
      'elastic_storage.resize': 1,
      'elastic_storage.change_package': 1,
    })
    assert.deepEqual(
      h.plan(storage, outcome.state, { ...config, size: 150, product_id: 502 }).diagnostics.map((d) => d.path),
      [['size']],
    )
    const imported = await h.import(storage, String(volume.id))
    assert.deepEqual(h.plan(storage, imported, { ...config, size: 200, product_id: 502 }).changed, [])
  })

  test("the size's bounds are the product's min_size and max_size (E1), not the seed catalog's", async () => {
    const { h, state } = await withServer()
    const config: ValueMap = { product_id: 501, cycle: 'm', storage_name: 'big', metal_account_id: Number(state.id), size: 15_000 }
    const above = await checkPlanOnline(storage, null, h.plan(storage, null, config), h.session)
    assert.deepEqual(
      above.map((d) => [d.path, d.detail]),
      [[['size'], 'size must be at most 10240 GB for product 501 (got 15000).']],
    )
    h.answers = async (response, request) => {
      if (!new URL(request.url).pathname.includes('/baremetal-elastic-storages/products')) return response
      const text = (await response.text()).replaceAll('"max_size":10240', '"max_size":20480')
      return new Response(text, { status: response.status, headers: response.headers })
    }
    const plan = h.plan(storage, null, config)
    assert.deepEqual(plan.diagnostics, [])
    assert.deepEqual(await checkPlanOnline(storage, null, plan, h.session), [])
  })
})

describe('Metal lookups', () => {
  test('products, the rebuild OS list and the OpenVPN profile (secret, redacted in raw)', async () => {
    const { h, state } = await withServer()
    const products = await h.data(baremetalProducts, {})
    assert.deepEqual(
      (products.products as ValueMap[]).map((p) => p.product_id),
      [301, 302, 303],
    )
    const oss = await h.data(baremetalRebuildOsList, { account_id: Number(state.id) })
    assert.deepEqual(oss.oss, ['ubuntu-22', 'ubuntu-24', 'debian-12', 'rocky-9'])
    const vpn = await h.data(baremetalOpenvpn, {})
    assert.match(String(vpn.config), /client/)
    assert.deepEqual(JSON.parse(String(vpn.raw)), { config: '***' })
  })

  test('the elastic storage products: ids, size limits and the price of a GB per cycle, as the catalog lists them', async () => {
    const { h } = await withServer()
    const found = await h.data(baremetalElasticStorageProducts, {})
    assert.deepEqual(found.products, [
      {
        product_id: 501,
        name: 'Elastic Storage Standard',
        description: '5,000 IOPS',
        iops: 5000,
        min_size: 1,
        max_size: 10240,
        billing: [
          { label: 'Monthly', cycle: 'm', price: 1000 },
          { label: 'Annually', cycle: 'a', price: 12000 },
        ],
      },
      {
        product_id: 502,
        name: 'Elastic Storage UltraFast',
        description: '10,000 IOPS',
        iops: 10000,
        min_size: 1,
        max_size: 10240,
        billing: [
          { label: 'Monthly', cycle: 'm', price: 2000 },
          { label: 'Annually', cycle: 'a', price: 24000 },
        ],
      },
    ])
  })
})

describe('an unpaid (Pending) Metal server at plan', () => {
  test('a new label (a cosmetic update the service takes while Pending), or emptying rebuild_os ("an empty one fires nothing"), is not refused at plan', async () => {
    const h = new Harness()
    const key = await h.create(keypair, { name: 'metal-key' })
    const config: ValueMap = {
      product_id: 301,
      cycle: 'm',
      keypair_id: key.keypair_id ?? null,
      label: 'db-primary',
      rebuild_os: 'ubuntu-22',
      pay_with_credit_card: false,
    }
    const created = await h.tryCreate(server, config)
    const state = created.state as ValueMap
    assert.equal(state.status, 'Pending')
    const refused: string[] = []
    for (const change of [{ label: 'db-renamed' }, { rebuild_os: '' }] as ValueMap[]) {
      const plan = h.plan(server, state, { ...config, ...change }, created.private)
      const online = await checkPlanOnline(server, state, plan, h.session)
      for (const d of online.filter((d) => d.severity === 'error')) refused.push(`${JSON.stringify(change)}: ${d.summary}: ${d.detail}`)
    }
    assert.deepEqual(refused, [], 'refused at plan though the service takes it (label) or nothing is sent (a cleared trigger)')
    // The service does take the label while Pending.
    const relabelled = await h.update(server, state, { ...config, label: 'db-renamed' }, created.private)
    assert.deepEqual(
      relabelled.diagnostics.filter((d) => d.severity === 'error'),
      [],
    )
  })

  test('a paid change refused while the invoice is unpaid names what the service still takes: the label of a server, nothing of a volume (which has no rename)', async () => {
    const h = new Harness()
    const key = await h.create(keypair, { name: 'metal-key' })
    const config: ValueMap = { product_id: 301, cycle: 'm', keypair_id: key.keypair_id ?? null, label: 'db-primary' }
    const active = await h.create(server, config)
    const unpaid = { ...config, label: 'db-unpaid', pay_with_credit_card: false }
    const pending = (await h.tryCreate(server, unpaid)).state as ValueMap
    const rebuilt = h.plan(server, pending, { ...unpaid, rebuild_os: 'ubuntu-22' })
    const serverRefusal = (await checkPlanOnline(server, pending, rebuilt, h.session)).map((d) => d.detail).join('\n')
    assert.match(serverRefusal, /Pending until invoice \d+ is paid, and the service takes no change of it other than label until then/)

    const volumeConfig: ValueMap = {
      product_id: 501,
      cycle: 'm',
      storage_name: 'data-a',
      metal_account_id: Number(active.id),
      size: 100,
      pay_with_credit_card: false,
    }
    const volume = (await h.tryCreate(storage, volumeConfig)).state as ValueMap
    const grown = h.plan(storage, volume, { ...volumeConfig, size: 200 })
    const volumeRefusal = (await checkPlanOnline(storage, volume, grown, h.session)).map((d) => d.detail).join('\n')
    assert.match(volumeRefusal, /Pending until invoice \d+ is paid, and the service takes no change of it until then: pay the invoice/)
    assert.doesNotMatch(volumeRefusal, /rename/)
  })
})

test('an order the service refuses for one field (an unknown promocode, 422) is one error, on that field, in the service words', async () => {
  const h = new Harness()
  const key = await h.create(keypair, { name: 'metal-key' })
  const outcome = await h.tryCreate(server, {
    product_id: 301,
    cycle: 'm',
    keypair_id: key.keypair_id ?? null,
    label: 'db',
    promocode: 'NOPE',
  })
  assert.equal(outcome.state, null)
  const errors = outcome.diagnostics.filter((d) => d.severity === 'error')
  assert.equal(errors.length, 1, `one error, not the failure and the field apart: ${JSON.stringify(errors)}`)
  assert.deepEqual(errors[0]?.path, ['promocode'])
  assert.match(errors[0]?.detail ?? '', /HTTP 422 on POST \/baremetals.*promocode: /)
})

// The `remote` profile answers 1 % of calls 502 after processing them; these calls are safe to send again.
describe('Metal calls whose answer is lost (502 after processing) are sent again, so the run goes on', () => {
  const lost = (method: string, path: string) => ({ method, path, mode: 'error_after', status: 502, count: 1 })

  for (const ignoresKeys of [false, true]) {
    const service = ignoresKeys ? 'a service that ignores Idempotency-Key' : 'a service that honours Idempotency-Key'
    test(`a power change (power_state off), ${service}: the update succeeds and the server is off`, async () => {
      const { h, config, state } = await withServer()
      await h.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: ignoresKeys } })
      await h.control('POST', '/faults', lost('PUT', '/baremetals/accounts/*/state/*'))
      const outcome = await h.update(server, state, { ...config, power_state: 'off' })
      assert.deepEqual(
        outcome.diagnostics.filter((d) => d.severity === 'error').map((d) => d.detail),
        [],
        'the power change was made, yet the update failed',
      )
      assert.equal(outcome.state?.power_state, 'off')
      assert.equal((await h.client.baremetals.getPowerState(String(state.id))).state, 'off')
    })
  }

  test('an IP assignment: created, the IP routed to the server', async () => {
    const { h, state } = await withServer()
    const theIp = await h.create(ip, { product_id: 401, cycle: 'm' })
    await h.control('POST', '/faults', lost('PUT', '/baremetal-additional-ips/*/assigns'))
    const outcome = await h.tryCreate(assignment, { additional_ip_id: Number(theIp.id), metal_account_id: Number(state.id) })
    assert.deepEqual(
      outcome.diagnostics.filter((d) => d.severity === 'error').map((d) => d.detail),
      [],
      'the IP was routed, yet the create failed',
    )
    assert.equal(outcome.state?.id, `${String(state.id)}:${String(theIp.id)}`)
  })

  test('a generated keypair, a service that honours Idempotency-Key: created once, with its private key in state', async () => {
    const h = new Harness()
    await h.control('POST', '/faults', lost('POST', '/baremetals/keypairs/'))
    const outcome = await h.tryCreate(keypair, { name: 'lost-answer' })
    assert.deepEqual(
      outcome.diagnostics.filter((d) => d.severity === 'error').map((d) => d.detail),
      [],
      'the keypair was made, yet the create failed (and its private key, returned once, was lost)',
    )
    assert.match(String(outcome.state?.private_key), /PRIVATE KEY/)
    assert.equal((await h.client.baremetals.listKeypairs()).length, 1)
  })
})
