/**
 * The attributes of a Lite or Lite Pro VM (provider_lite_vm, provider_lite_pro_vm), built per family,
 * and the console user and password rules and attributes the VM restored from a snapshot shares.
 */
import { int64, length, oneOf, pattern, type State, string } from '../core/index.js'
import { accountIdAttribute, cycleAttribute, LITE_CYCLES, lastInvoiceAttribute, rawAttribute, rules, textRules } from './billing.js'
import type { LiteFamily } from './lite-family.js'
import { orderDescriptionAttribute, orderIdAttribute, orderInputs } from './ordered-account.js'

/** The rules of the console user and password (the Lite VM create body), shared with the restored VM. */
export const consoleUserRules = [length({ min: 6, max: 32 }), pattern(/^[A-Za-z0-9.-]*$/, 'letters, digits, hyphens and periods only')]
// The password states no maximum, so the service's cap of every other string applies (the API's
// request-body rules: 255 characters); a longer one was refused only by the order.
const consolePasswordRules = [
  length({ min: 8, max: 255 }),
  pattern(/^[A-Za-z0-9]*$/, 'letters and digits only'),
  pattern(
    /^(?=.*[a-z])(?=.*[A-Z])(?=.*[0-9])/,
    'at least one upper-case letter, one lower-case letter and one digit',
    'must contain at least one upper-case letter, one lower-case letter and one digit',
  ),
]

/**
 * The console password in its two forms, shared with the restored VM: `console_password`, kept in
 * state (sensitive), and `console_password_wo`, write-only, with the version that stands for it in
 * plans. The service has no call to change a password, so both are create-only: a change of
 * `console_password`, or of the version, replaces the VM. `echoes` are the read-only attributes
 * holding the password as the service reports it.
 */
export function consolePasswordAttributes(what: string, echoes: readonly string[] = []) {
  const rule = '8 to 255 letters and digits, with an upper-case letter, a lower-case letter and a digit'
  return {
    console_password: string({
      optional: true,
      sensitive: true,
      createOnly: true,
      validate: consolePasswordRules,
      description: `The console password: ${rule}.`,
    }),
    console_password_wo: string({
      optional: true,
      sensitive: true,
      validate: consolePasswordRules,
      writeOnly: { alternative: 'console_password', version: 'console_password_wo_version', echoes, required: true },
      description: `The console password, ${rule}, sent with the order of the ${what} and never stored. Changing it alone does nothing: change \`console_password_wo_version\` too.`,
    }),
    console_password_wo_version: int64({
      optional: true,
      createOnly: true,
      description:
        `The version of \`console_password_wo\`, e.g. \`1\`, kept in state in its place. The service cannot change a password, so changing the version replaces the ${what} (a new order, with the new password). ` +
        'Setting it on an existing object that was created with `console_password` only records the switch, when `console_password_wo` holds the same password; a different password replaces it.',
    }),
  }
}

export const POWER_STATES = ['start', 'stop', 'suspend', 'resume', 'shutdown'] as const
/** What vm-details reports once each power action is in effect. */
export const POWER_EFFECT: Record<string, string> = {
  start: 'running',
  resume: 'running',
  stop: 'stopped',
  shutdown: 'stopped',
  suspend: 'paused',
}
/** The reverse, for import (the import rules). */
export const POWER_FROM_STATUS: Record<string, string> = { running: 'start', stopped: 'stop', paused: 'suspend' }

export function vmAttributes(family: LiteFamily) {
  return {
    ssh_and_console_user: string({
      required: true,
      createOnly: true,
      validate: consoleUserRules,
      description: 'The SSH and console user (the cloud-init user).',
    }),
    ...consolePasswordAttributes('VM', ['cipassword']),
    product_id: int64({
      required: true,
      validate: [rules.id],
      description: `The product, from \`provider_${family.prefix}_products\`. A change runs change-package (a paid order) and waits for Active.`,
    }),
    select_os: string({
      required: true,
      createOnly: true,
      validate: textRules.free,
      description: `The OS to install, a \`name\` from \`provider_${family.prefix}_os_list\`. To change the OS of an existing VM use \`rebuild_os\`.`,
    }),
    keypair_id: int64({
      required: true,
      validate: [rules.id],
      description: `The keypair, from \`provider_${family.prefix}_keypair\`. A change installs the new key (change-keypair).`,
    }),
    cycle: cycleAttribute(LITE_CYCLES, 'The billing cycle: `m` monthly, `a` annually, or `q s b t p4 p5`.'),
    vm_name: string({
      optional: true,
      default: 'server-name',
      validate: textRules.shortName,
      description: 'The VM name, 6-16 characters. Changed in place.',
    }),
    description: orderDescriptionAttribute,
    ...orderInputs(
      {
        description:
          'Charge the card on file for every order. With `false` the order is placed and its invoice stays unpaid: the VM stays `Pending` until it is paid in the portal.',
      },
      'pay_with_credit_card',
    ),
    power_state: string({
      optional: true,
      computed: true,
      action: true,
      validate: [oneOf(POWER_STATES)],
      description:
        'A power action, applied when the value changes: `start`, `stop` (hard), `shutdown` (graceful), `suspend`, `resume`. Given at create, it is applied once the VM is Active. Removing it calls nothing. A refresh that finds the power other than the value says (the VM stopped in the portal, or started by a rebuild or migration) warns, and plans nothing: run the `power` action (Terraform 1.14 or later, or the Pulumi method), or set the value to the power the VM has and back, applying each.',
    }),
    rebuild_os: string({
      optional: true,
      action: true,
      validate: textRules.trigger,
      description:
        'Destructive: reinstall the VM with this OS (a `name` from the OS list) whenever the value changes to a non-empty one (an empty one fires nothing). The disk is wiped, and the VM is running afterwards whatever `power_state` says (the rebuild does not send it again; the apply and later refreshes warn). Given at create, it is only recorded.',
    }),
    ...(family.migratesToPro
      ? {
          migrate_to_pro: string({
            optional: true,
            action: true,
            validate: [rules.digitsTrigger],
            description:
              'One-shot migration to Lite Pro: the value is a product id from `provider_lite_pro_products` (an empty one fires nothing). The VM keeps being managed by this resource after it moves, and is running afterwards whatever `power_state` says (the migration does not send it again; the apply and later refreshes warn). Given at create, it is only recorded.',
          }),
        }
      : {}),
    disk_size: int64({
      optional: true,
      computed: true,
      follows: true,
      growOnly: true,
      validate: [rules.id],
      description:
        'The disk size in GB, an absolute target. Grow-only: raising it orders a storage upgrade (a paid order); lowering it is refused at plan time. Unset, it reports the size the VM has after each apply (a growth outside is no drift: a refresh keeps it). Set, it is a floor: a disk larger than the value (grown in the portal, or a larger base disk of the product) is no drift and the state keeps the value, while a smaller one is planned to grow back. A new VM has at least the base disk of its product; a smaller value orders nothing, and the plan warns. ' +
        "The maximum is checked at plan time, from the VM's storage options (for a new VM, those of another VM of the family in the account; with none, the plan warns that the service checks it only at the storage order, after the VM is ordered).",
    }),
    account_id: accountIdAttribute,
    status: string({ computed: true, description: '`Active`, `Pending`, `Suspended` or `Terminated`.' }),
    order_id: orderIdAttribute('VM'),
    uptime: int64({
      computed: true,
      live: true,
      description:
        'Seconds since the last start; 0 when not running. A live figure: recorded by each apply, and by a refresh only when it finds another change, so a refresh that finds nothing else changed leaves the state as it was.',
    }),
    maxdisk: int64({ computed: true, description: 'Disk capacity in bytes.' }),
    maxmem: int64({ computed: true, description: 'Memory capacity in bytes.' }),
    mem: int64({
      computed: true,
      live: true,
      description: 'Memory in use in bytes. A live figure, recorded as `uptime` is.',
    }),
    cpus: int64({ computed: true, description: 'Number of vCPUs.' }),
    ciuser: string({ computed: true, stable: true, description: 'The cloud-init user.' }),
    cipassword: string({ computed: true, sensitive: true, stable: true, description: 'The cloud-init password.' }),
    osname: string({ computed: true, description: 'The installed OS.' }),
    region: string({ computed: true, stable: true, description: 'Region code.' }),
    region_label: string({ computed: true, stable: true, description: 'Region name.' }),
    next_due: string({ computed: true, description: 'Next billing date.' }),
    recurring_amount: int64({ computed: true, description: 'Renewal price of one cycle, in the smallest currency unit.' }),
    billingcycle: string({ computed: true, stable: true, description: 'The billing cycle as the service names it.' }),
    product_name: string({ computed: true, description: 'Name of the current product.' }),
    last_invoice: lastInvoiceAttribute,
    raw: rawAttribute,
  }
}

export type VmAttributes = ReturnType<typeof vmAttributes>
/** The VM as state holds it. */
export type Vm = State<VmAttributes>
