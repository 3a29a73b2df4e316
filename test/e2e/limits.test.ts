// Real terraform against the emulator launcher: every Limit of the interface spec, on every resource it
// applies to, and the shrink of every grow-only field are refused at plan time, naming the attribute, before
// any mutating API call and without any order. The boundary values the spec allows are accepted.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { emulatorKeypair, emulatorLiteVm, emulatorBaremetalServer, ordered, vmBody } from '../support/fixtures.js'
import { block, describeRun, diagnostics, type HclValue, PROVIDER_BLOCKS, ref, Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const USER = 'deployer'
const PASSWORD = 'S3cretPass9'

/**
 * A valid configuration of each resource type a Limit applies to (literal ids: nothing is created; a
 * plan that gets past validation is given ids that exist).
 */
const VALID: Record<string, Record<string, HclValue>> = {
  provider_lite_vm: {
    ssh_and_console_user: USER,
    console_password: PASSWORD,
    product_id: 101,
    select_os: 'Ubuntu-22.04',
    keypair_id: 1,
    cycle: 'm',
  },
  provider_lite_pro_vm: {
    ssh_and_console_user: USER,
    console_password: PASSWORD,
    product_id: 201,
    select_os: 'Ubuntu-22.04',
    keypair_id: 1,
    cycle: 'm',
  },
  provider_lite_vm_from_snapshot: {
    snapshot_id: 1,
    product_id: 101,
    cycle: 'm',
    keypair_id: 1,
    name: 'restored-vm',
    ssh_and_console_user: USER,
    console_password: PASSWORD,
  },
  provider_lite_snapshot: { lite_account_id: 1, cycle: 'm' },
  provider_lite_pro_snapshot: { lite_account_id: 1, cycle: 'm' },
  provider_lite_disk: { product_id: 60, cycle: 'm', lite_account_id: 1 },
  provider_lite_pro_disk: { product_id: 61, cycle: 'm', lite_account_id: 1 },
  provider_baremetal: { product_id: 301, cycle: 'm', keypair_id: 1, label: 'limits' },
  provider_baremetal_additional_ip: { product_id: 401, cycle: 'm' },
  provider_baremetal_elastic_storage: { product_id: 501, cycle: 'm', storage_name: 'limits', metal_account_id: 1 },
}

/** One broken value: `type.name` sets `attribute` to `value`, every other input valid. */
interface Case {
  type: string
  name: string
  attribute: string
  value: HclValue
}

const c = (type: string, name: string, attribute: string, value: HclValue): Case => ({ type, name, attribute, value })
const VMS = ['provider_lite_vm', 'provider_lite_pro_vm'] as const
const LITE_TYPES = [
  ...VMS,
  'provider_lite_vm_from_snapshot',
  'provider_lite_snapshot',
  'provider_lite_pro_snapshot',
  'provider_lite_disk',
  'provider_lite_pro_disk',
]
const METAL_TYPES = ['provider_baremetal', 'provider_baremetal_additional_ip', 'provider_baremetal_elastic_storage']

// Each row of the spec's Limits table, on every resource it applies to.
const CASES: Case[] = [
  // ssh_and_console_user: 6-32 characters from letters, digits, hyphen, period.
  ...[...VMS, 'provider_lite_vm_from_snapshot'].flatMap((type) => [
    c(type, 'user_5_chars', 'ssh_and_console_user', 'user5'),
    c(type, 'user_33_chars', 'ssh_and_console_user', 'u'.repeat(33)),
    c(type, 'user_underscore', 'ssh_and_console_user', 'bad_user'),
    c(type, 'user_space', 'ssh_and_console_user', 'with space'),
  ]),
  // console_password: at least 8, alphanumeric, an upper-case letter, a lower-case letter and a digit.
  ...[...VMS, 'provider_lite_vm_from_snapshot'].flatMap((type) => [
    c(type, 'password_7_chars', 'console_password', 'Abcdef1'),
    c(type, 'password_no_upper', 'console_password', 'nouppercase1'),
    c(type, 'password_no_lower', 'console_password', 'NOLOWERCASE1'),
    c(type, 'password_no_digit', 'console_password', 'NoDigitsHere'),
    c(type, 'password_symbol', 'console_password', 'Symbols!9a'),
  ]),
  // vm_name, snapshot name, restored-VM name, disk service_name: 6-16 characters.
  ...VMS.flatMap((type) => [c(type, 'name_5_chars', 'vm_name', 'five5'), c(type, 'name_17_chars', 'vm_name', 'seventeen-chars17')]),
  ...['provider_lite_snapshot', 'provider_lite_pro_snapshot', 'provider_lite_vm_from_snapshot'].flatMap((type) => [
    c(type, 'name_5_chars', 'name', 'five5'),
    c(type, 'name_17_chars', 'name', 'seventeen-chars17'),
  ]),
  ...['provider_lite_disk', 'provider_lite_pro_disk'].flatMap((type) => [
    c(type, 'name_5_chars', 'service_name', 'five5'),
    c(type, 'name_17_chars', 'service_name', 'seventeen-chars17'),
  ]),
  // Lite disk size: minimum 60; Lite Pro disk size: minimum 30.
  c('provider_lite_disk', 'size_59', 'size', 59),
  c('provider_lite_disk', 'size_30', 'size', 30),
  c('provider_lite_pro_disk', 'size_29', 'size', 29),
  // cycle for Metal resources: m or a.
  ...METAL_TYPES.flatMap((type) => [c(type, 'cycle_q', 'cycle', 'q'), c(type, 'cycle_monthly', 'cycle', 'monthly')]),
  // cycle for Lite and Lite Pro resources: m a q s b t p4 p5.
  ...LITE_TYPES.flatMap((type) => [c(type, 'cycle_p6', 'cycle', 'p6'), c(type, 'cycle_x', 'cycle', 'x')]),
  // Lite power_state: start stop suspend resume shutdown (reset is an API action, not a power_state value).
  ...VMS.flatMap((type) => [
    c(type, 'power_reboot', 'power_state', 'reboot'),
    c(type, 'power_reset', 'power_state', 'reset'),
    c(type, 'power_on', 'power_state', 'on'),
  ]),
  // Metal power_state: on or off.
  c('provider_baremetal', 'power_reset', 'power_state', 'reset'),
  c('provider_baremetal', 'power_start', 'power_state', 'start'),
  c('provider_baremetal', 'power_stop', 'power_state', 'stop'),
  // console_password states no maximum, so the service's cap of free text applies: 255 characters (the
  // API's request-body rules). A 10 KB password was refused only at apply, with the VM's order.
  ...[...VMS, 'provider_lite_vm_from_snapshot'].flatMap((type) => [
    c(type, 'password_256_chars', 'console_password', `Ab1${'c'.repeat(253)}`),
    c(type, 'password_10_kb', 'console_password', `Ab1${'c'.repeat(10_237)}`),
  ]),
  // No control character (a line break, a NUL, a tab, DEL) in a name, a label or a description: such a
  // name was ordered as it was.
  ...VMS.flatMap((type) => [
    c(type, 'name_newline', 'vm_name', 'bad\nname1'),
    c(type, 'name_nul', 'vm_name', 'bad\u0000name'),
    c(type, 'description_cr', 'description', 'one\rtwo'),
  ]),
  ...['provider_lite_snapshot', 'provider_lite_pro_snapshot', 'provider_lite_vm_from_snapshot'].flatMap((type) => [
    c(type, 'name_newline', 'name', 'snap\nshot1'),
    c(type, 'description_del', 'description', 'before\u007fafter'),
  ]),
  ...['provider_lite_disk', 'provider_lite_pro_disk'].flatMap((type) => [c(type, 'name_tab', 'service_name', 'disk\tname')]),
  c('provider_baremetal', 'label_newline', 'label', 'web\nserver'),
  c('provider_baremetal_elastic_storage', 'name_nul', 'storage_name', 'vol\u0000ume'),
]

const caseConfig = (cases: Case[]) =>
  [PROVIDER_BLOCKS, ...cases.map((k) => block('resource', k.type, k.name, { ...VALID[k.type], [k.attribute]: k.value }))].join('\n')

/** The boundary values of every Limit, each accepted. */
const BOUNDARIES: [string, string, Record<string, HclValue>][] = [
  ['provider_lite_vm', 'min', { ssh_and_console_user: 'a.b-c1', console_password: 'Abcdefg1', vm_name: 'six666', power_state: 'start' }],
  [
    'provider_lite_vm',
    'max',
    {
      ssh_and_console_user: 'u'.repeat(32),
      console_password: `Ab1${'c'.repeat(252)}`,
      vm_name: 'sixteen-chars-16',
      power_state: 'shutdown',
    },
  ],
  // Letters beyond ASCII are not control characters.
  ['provider_lite_vm', 'accents', { vm_name: 'café-über', description: 'Größe: 20 GB — ok' }],
  ['provider_lite_pro_vm', 'stop', { power_state: 'stop', vm_name: 'six666' }],
  ['provider_lite_pro_vm', 'suspend', { power_state: 'suspend', vm_name: 'sixteen-chars-16' }],
  ['provider_lite_vm', 'resume', { power_state: 'resume' }],
  ['provider_lite_vm_from_snapshot', 'min', { name: 'six666', ssh_and_console_user: 'abcdef', console_password: '1aaaaaaA' }],
  ['provider_lite_vm_from_snapshot', 'max', { name: 'sixteen-chars-16', ssh_and_console_user: 'U'.repeat(32) }],
  ['provider_lite_snapshot', 'min', { name: 'six666' }],
  ['provider_lite_pro_snapshot', 'max', { name: 'sixteen-chars-16' }],
  ['provider_lite_disk', 'min', { size: 60, service_name: 'six666' }],
  ['provider_lite_pro_disk', 'min', { size: 30, service_name: 'sixteen-chars-16' }],
  ...['m', 'a', 'q', 's', 'b', 't', 'p4', 'p5'].map((cycle): [string, string, Record<string, HclValue>] => [
    'provider_lite_snapshot',
    `cycle_${cycle}`,
    { cycle },
  ]),
  ['provider_baremetal', 'on', { cycle: 'm', power_state: 'on' }],
  ['provider_baremetal', 'off', { cycle: 'a', power_state: 'off' }],
  ['provider_baremetal_additional_ip', 'annual', { cycle: 'a' }],
  ['provider_baremetal_elastic_storage', 'annual', { cycle: 'a' }],
]

/** Metal names are camelCase in the shared definitions and snake_case in Terraform's messages. */
const camelCaseInMessage = (k: Case) => k.type.startsWith('provider_baremetal') && k.attribute.includes('_')

/** Sensitive inputs: their issues point at the resource, never at the line that holds the value (Terraform would quote it). */
const SENSITIVE = new Set(['console_password', 'console_password_wo'])

/**
 * The cases with no error on `type.name` whose quoted line is the attribute's own (the diagnostic carries
 * the attribute path; a sensitive attribute's quotes no line of it) and, when `byName`, whose summary
 * names the attribute.
 */
function missingErrors(stderr: string, cases: Case[], byName: (k: Case) => boolean): string[] {
  const errors = diagnostics(stderr)
  return cases
    .filter(
      (k) =>
        !errors.some(
          (error) =>
            error.includes(`with ${k.type}.${k.name},`) &&
            new RegExp(`^\\s*\\d+:\\s+${k.attribute} = `, 'm').test(error) !== SENSITIVE.has(k.attribute) &&
            (!byName(k) || new RegExp(`^Error: .*${k.attribute}`).test(error)),
        ),
    )
    .map((k) => `${k.type}.${k.name} (${k.attribute} = ${JSON.stringify(k.value)})`)
}

// One emulator for the file, reset before each group.
const e2e = useEmulatorWorkspace({ workspace: false })

describe('every spec Limit is refused at plan, on every resource it applies to', () => {
  let ws: Workspace
  before(async () => {
    await e2e.emulator.reset()
    ws = await Workspace.create(e2e.emulator)
  })
  after(async () => {
    await ws?.cleanup()
  })

  test('each broken value is reported on its own attribute; nothing is called and no order is placed', async () => {
    await ws.write(caseConfig(CASES))
    const counters = await e2e.emulator.orders()
    const { value: runs, log, mutations, orders } = await e2e.emulator.effectsOf(async () => [await ws.plan(), await ws.apply()])
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
    assert.deepEqual(await e2e.emulator.orders(), counters)
    assert.deepEqual(
      log.map((e) => `${e.method} ${e.path}`),
      [],
      'a configuration that breaks a Limit is refused before the provider calls the service at all',
    )
    for (const run of runs) {
      assert.equal(run.code, 1, describeRun(run))
      assert.doesNotMatch(run.stdout, /Plan:|Creating|Apply complete/)
      // The summary names the attribute too, in Terraform's spelling.
      assert.deepEqual(
        missingErrors(run.stderr, CASES, () => true),
        [],
        run.stderr,
      )
      // Exactly one error per broken value: a valid attribute is never blamed.
      assert.equal(diagnostics(run.stderr).length, CASES.length, run.stderr)
    }
  })

  test('the Metal power_state errors name power_state in their text, not the Pulumi name powerState', async () => {
    const cases = CASES.filter(camelCaseInMessage)
    await ws.write(caseConfig(cases))
    const planned = await ws.plan()
    assert.equal(planned.code, 1, describeRun(planned))
    assert.deepEqual(
      missingErrors(planned.stderr, cases, () => true),
      [],
      planned.stderr,
    )
    assert.doesNotMatch(planned.stderr, /powerState/)
  })

  test('the boundary values the spec allows are accepted: the plan creates every resource, with no mutating call', async () => {
    // The accounts the resources are ordered on or from exist (the plan checks that they do).
    // So do the keypairs the VMs and the server take, each in its own pool.
    const lite = await emulatorLiteVm(e2e.emulator)
    const proKey = await emulatorKeypair(e2e.emulator, '/lite-pros', 'limits-pro-key')
    const pro = await ordered(e2e.emulator, '/lite-pros', vmBody(proKey, 201, 'limits-pro'))
    const snapshot = await ordered(e2e.emulator, `/lites/accounts/${lite.vm}/snapshot`, { cycle: 'm', name: 'limits-snap' })
    const metal = await emulatorBaremetalServer(e2e.emulator)
    const existing: Record<string, Record<string, HclValue>> = {
      provider_lite_vm: { keypair_id: lite.kp },
      provider_lite_pro_vm: { keypair_id: proKey },
      provider_baremetal: { keypair_id: metal.kp },
      provider_lite_vm_from_snapshot: { snapshot_id: snapshot, keypair_id: lite.kp },
      provider_lite_snapshot: { lite_account_id: lite.vm },
      provider_lite_pro_snapshot: { lite_account_id: pro },
      provider_lite_disk: { lite_account_id: lite.vm },
      provider_lite_pro_disk: { lite_account_id: pro },
      provider_baremetal_elastic_storage: { metal_account_id: metal.server },
    }
    const blocks = BOUNDARIES.map(([type, name, values]) => block('resource', type, name, { ...VALID[type], ...existing[type], ...values }))
    await ws.write([PROVIDER_BLOCKS, ...blocks].join('\n'))
    const { value: planned, mutations, orders } = await e2e.emulator.effectsOf(() => ws.plan())
    assert.equal(planned.code, 2, describeRun(planned))
    assert.match(planned.stdout, new RegExp(`Plan: ${BOUNDARIES.length} to add, 0 to change, 0 to destroy\\.`))
    assert.deepEqual(diagnostics(planned.stderr), [])
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
  })
})

describe('an integer beyond 2^53 is refused at plan, shown exactly as written', () => {
  let ws: Workspace
  before(async () => {
    await e2e.emulator.reset()
    ws = await Workspace.create(e2e.emulator)
  })
  after(async () => {
    await ws?.cleanup()
  })

  // Terraform's numbers are exact; 9223372036854775807 read as a double is 9223372036854776000.
  const BIG = '9223372036854775807'
  test(`${BIG} in a resource's and a data source's whole-number input: one error each, naming it and the value as written`, async () => {
    await ws.write(
      [
        PROVIDER_BLOCKS,
        block('resource', 'provider_lite_vm', 'big', { ...VALID.provider_lite_vm, disk_size: ref(BIG) }),
        block('data', 'provider_lite_os_list', 'big', { product_id: ref(BIG) }),
      ].join('\n'),
    )
    const { value: planned, mutations, orders } = await e2e.emulator.effectsOf(() => ws.plan())
    assert.equal(planned.code, 1, describeRun(planned))
    const errors = diagnostics(planned.stderr).map((e) => e.replace(/\s+/g, ' '))
    assert.equal(errors.length, 2, planned.stderr)
    for (const [address, attribute] of [
      ['provider_lite_vm.big', 'disk_size'],
      ['data.provider_lite_os_list.big', 'product_id'],
    ]) {
      const error = errors.find((e) => e.includes(`with ${address},`)) ?? ''
      assert.match(
        error,
        new RegExp(`^Error: Invalid ${attribute} .*${attribute} must be a whole number no larger than 9007199254740991 \\(got ${BIG}\\)`),
        planned.stderr,
      )
    }
    assert.doesNotMatch(planned.stderr, /9223372036854776000/)
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
  })
})

describe("a new VM's disk_size where the service states no maximum yet", () => {
  let ws: Workspace
  before(async () => {
    await e2e.emulator.reset()
    ws = await Workspace.create(e2e.emulator)
  })
  after(async () => {
    await ws?.cleanup()
  })

  // The API states the maximum only in an existing VM's storage options: in an account with no VM of
  // the family, nothing can be asked before the VM itself is ordered, so the plan says so.
  test('in an account with no VM, the plan warns on disk_size that its maximum is checked only after the VM is ordered', async () => {
    const keypair_id = await emulatorKeypair(e2e.emulator, '/lites', 'limits-no-vm-key')
    await ws.write(
      [PROVIDER_BLOCKS, block('resource', 'provider_lite_vm', 'big_disk', { ...VALID.provider_lite_vm, keypair_id, disk_size: 9999 })].join(
        '\n',
      ),
    )
    const { value: planned, mutations, orders } = await e2e.emulator.effectsOf(() => ws.plan())
    assert.equal(planned.code, 2, describeRun(planned))
    const warnings = diagnostics(planned.stdout + planned.stderr, 'Warning').map((w) => w.replace(/\s+/g, ' '))
    // On the attribute: Terraform quotes its line.
    const warned = warnings.find((w) => w.includes('with provider_lite_vm.big_disk,') && w.includes(' disk_size = 9999 ')) ?? ''
    assert.match(warned, /^Warning: Cannot check disk_size .*no Lite VM\. .*above the maximum/, describeRun(planned))
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
  })
})

describe('shrinking a grow-only field is refused at plan', () => {
  let ws: Workspace
  const resources: Record<string, [string, Record<string, HclValue>]> = {
    'provider_lite_keypair.k': ['provider_lite_keypair', { name: 'e2e-limits' }],
    'provider_lite_pro_keypair.k': ['provider_lite_pro_keypair', { name: 'e2e-limits-pro' }],
    'provider_baremetal_keypair.k': ['provider_baremetal_keypair', { name: 'e2e-limits-metal' }],
    'provider_lite_vm.vm': [
      'provider_lite_vm',
      { ...VALID.provider_lite_vm, keypair_id: ref('provider_lite_keypair.k.keypair_id'), disk_size: 20 },
    ],
    'provider_lite_pro_vm.vm': [
      'provider_lite_pro_vm',
      { ...VALID.provider_lite_pro_vm, keypair_id: ref('provider_lite_pro_keypair.k.keypair_id'), disk_size: 50 },
    ],
    'provider_lite_disk.d': [
      'provider_lite_disk',
      { ...VALID.provider_lite_disk, lite_account_id: ref('provider_lite_vm.vm.id'), size: 70 },
    ],
    'provider_lite_pro_disk.d': [
      'provider_lite_pro_disk',
      { ...VALID.provider_lite_pro_disk, lite_account_id: ref('provider_lite_pro_vm.vm.id'), size: 40 },
    ],
    'provider_baremetal.m': [
      'provider_baremetal',
      { ...VALID.provider_baremetal, keypair_id: ref('provider_baremetal_keypair.k.keypair_id') },
    ],
    'provider_baremetal_elastic_storage.vol': [
      'provider_baremetal_elastic_storage',
      { ...VALID.provider_baremetal_elastic_storage, metal_account_id: ref('provider_baremetal.m.id'), size: 100 },
    ],
  }
  const config = (changes: Record<string, Record<string, HclValue>> = {}) =>
    [
      PROVIDER_BLOCKS,
      ...Object.entries(resources).map(([address, [type, values]]) =>
        block('resource', type, address.split('.')[1] ?? '', { ...values, ...changes[address] }),
      ),
    ].join('\n')

  /** Each grow-only field, the value it was created with (the product's base for the VMs), and a smaller one. */
  const SHRINKS: [address: string, attribute: string, created: number, smaller: number][] = [
    ['provider_lite_vm.vm', 'disk_size', 20, 19],
    ['provider_lite_pro_vm.vm', 'disk_size', 50, 49],
    ['provider_lite_disk.d', 'size', 70, 65],
    ['provider_lite_pro_disk.d', 'size', 40, 35],
    ['provider_baremetal_elastic_storage.vol', 'size', 100, 99],
  ]
  /** What the service holds for each grow-only field. */
  async function serviceSizes(): Promise<Record<string, string>> {
    const sizes: Record<string, string> = {}
    for (const [address, attribute] of SHRINKS) {
      const account = await e2e.emulator.account(String((await ws.stateOf(address)).id))
      const extra = account?.extra_details ?? {}
      sizes[address] = String(attribute === 'disk_size' ? extra.disk_size : extra.size)
    }
    return sizes
  }
  let created: Record<string, string> = {}

  before(async () => {
    await e2e.emulator.reset()
    ws = await Workspace.create(e2e.emulator)
    await ws.write(config())
    const applied = await ws.apply()
    if (applied.code !== 0) throw new Error(describeRun(applied))
    created = await serviceSizes()
  })
  after(async () => {
    await ws?.cleanup()
  })

  test('the resources were created at the sizes asked, and the plan is empty', async () => {
    assert.deepEqual(created, Object.fromEntries(SHRINKS.map(([address, , size]) => [address, String(size)])))
    const next = await ws.plan()
    assert.equal(next.code, 0, describeRun(next))
  })

  for (const [address, attribute, size, smaller] of SHRINKS) {
    test(`${address}.${attribute} ${size} -> ${smaller} fails at plan naming ${attribute}, with no mutating call and no order`, async () => {
      await ws.write(config({ [address]: { [attribute]: smaller } }))
      const counters = await e2e.emulator.orders()
      const { value: planned, mutations, orders } = await e2e.emulator.effectsOf(() => ws.plan())
      assert.equal(planned.code, 1, describeRun(planned))
      const errors = diagnostics(planned.stderr)
      assert.equal(errors.length, 1, planned.stderr)
      assert.match(errors[0] ?? '', new RegExp(`^Error: .*${attribute}`))
      assert.match(errors[0] ?? '', new RegExp(`with ${address.replace('.', '\\.')},`))
      assert.match(errors[0] ?? '', new RegExp(`^\\s*\\d+:\\s+${attribute} = ${smaller}$`, 'm'))
      assert.doesNotMatch(planned.stdout, /Plan:/)
      assert.deepEqual(mutations, [])
      assert.deepEqual(orders, [])
      assert.deepEqual(await e2e.emulator.orders(), counters)
    })
  }

  test('an apply shrinking all five at once fails, calls nothing, and the service keeps every size', async () => {
    const changes = Object.fromEntries(SHRINKS.map(([address, attribute, , smaller]) => [address, { [attribute]: smaller }]))
    await ws.write(config(changes))
    const counters = await e2e.emulator.orders()
    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 1, describeRun(applied))
    assert.doesNotMatch(applied.stdout, /Apply complete|Modifying/)
    const errors = diagnostics(applied.stderr)
    // Terraform does not plan a resource whose dependency failed to plan: the disks (attached to the VMs
    // by reference) are not reached, so one error each for the two VMs and the storage.
    const reached = SHRINKS.filter(([address]) => !address.includes('_disk.'))
    assert.equal(errors.length, reached.length, applied.stderr)
    for (const [address, attribute] of reached) {
      assert.ok(
        errors.some((e) => e.includes(`with ${address},`) && new RegExp(`^Error: .*${attribute}`).test(e)),
        `no error for ${address}.${attribute}: ${applied.stderr}`,
      )
    }
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
    assert.deepEqual(await e2e.emulator.orders(), counters)
    assert.deepEqual(await serviceSizes(), created)
  })
})
