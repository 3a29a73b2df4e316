/** provider_lite_vm_from_snapshot: a new VM restored from a snapshot (S4); deleting it never touches the snapshot. */
import type { Client, LiteVmAccount } from '../api/index.js'
import { defineResource, InputError, ownCall, string } from '../core/index.js'
import { accountIds, cycleAttribute, cycleCode, digitsId, idInput, LITE_CYCLES, textRules } from './billing.js'
import type { LiteFamily } from './lite-family.js'
import { accountListing, isTerminated, orderDescriptionAttribute, orderedAccount, orderedOutputs, orderInputs } from './ordered-account.js'
import { accountCheck } from './catalog-rules.js'
import { newVmChecks, newVmPrice } from './lite-vm.js'
import { vmKind } from './lite-vm-account.js'
import { consolePasswordAttributes, consoleUserRules } from './lite-vm-attributes.js'

export function liteVmFromSnapshot(family: LiteFamily) {
  const what = `${family.title} VM`
  const attributes = {
    snapshot_id: idInput('The snapshot to restore (its account id).'),
    product_id: idInput(`The product of the new VM, from \`provider_${family.prefix}_products\`.`),
    cycle: cycleAttribute(LITE_CYCLES, 'The billing cycle of the new VM: `m a q s b t p4 p5`.'),
    keypair_id: idInput(`A keypair of the ${family.title} pool.`),
    name: string({
      required: true,
      createOnly: true,
      validate: textRules.shortName,
      description: 'The VM name, 6-16 characters.',
    }),
    ssh_and_console_user: string({
      required: true,
      createOnly: true,
      validate: consoleUserRules,
      description: 'The SSH and console user.',
    }),
    ...consolePasswordAttributes('VM'),
    description: orderDescriptionAttribute,
    ...orderInputs('the order'),
    ...orderedOutputs('VM'),
  }
  const observe = (account: LiteVmAccount) => ({
    ...accountIds(account),
    snapshot_id: account.extra_details.snapshot_id === null ? undefined : Number(account.extra_details.snapshot_id),
    product_id: account.product_id,
    cycle: cycleCode(account.billingcycle) ?? undefined,
    keypair_id: account.extra_details.keypair_id ?? undefined,
    name: account.extra_details.name,
    ssh_and_console_user: account.extra_details.ciuser,
    console_password: account.extra_details.cipassword,
    description: account.description,
    status: account.status,
    order_id: account.order_id,
  })
  return defineResource<Client, typeof attributes>({
    name: `${family.prefix}_vm_from_snapshot`,
    description:
      `A new ${what} restored from a snapshot. Creating it places an order and waits until the VM is Active. ` +
      'Every input except the payment flag is create-only. Deleting it deletes the VM, never the snapshot.',
    importId: digitsId('account id'),
    timeouts: { create: '60m', delete: '10m' },
    attributes,
    updates: [],
    createChecks: [
      accountCheck<typeof attributes>('snapshot_id', `a ${family.title} snapshot`, (client, id, signal) =>
        family.api(client).getSnapshot(id, { signal }),
      ),
      ...newVmChecks<typeof attributes>(family, { os: false, ipAvailability: false }),
    ],
    priceCreate: newVmPrice<typeof attributes>(family),
    ...orderedAccount<typeof attributes, LiteVmAccount>({
      type: `${family.prefix}_vm_from_snapshot`,
      kind: vmKind(family),
      what,
      calls: {
        get: (client, id, signal) => family.api(client).getVm(id, { signal }),
        delete: (client, id, signal) => family.api(client).deleteVm(id, { signal }),
      },
      observe,
      order: ({ input, client, signal }, terms) =>
        family.api(client).createVmFromSnapshot(
          input.snapshot_id ?? 0,
          {
            product_id: input.product_id ?? 0,
            cycle: input.cycle ?? '',
            keypair_id: input.keypair_id ?? 0,
            name: input.name ?? '',
            ssh_and_console_user: input.ssh_and_console_user ?? '',
            console_password: input.console_password ?? '',
            description: input.description ?? undefined,
            ...terms,
          },
          { signal },
        ),
      recordsOrder: true,
    }),
    // An import of a VM that was not restored from a snapshot is refused: it is a lite_vm.
    async read({ client, id, importing, signal }) {
      const account = await ownCall(family.api(client).getVm(id, { signal }))
      if (isTerminated(account)) return null
      if (importing && account.extra_details.snapshot_id === null) {
        throw new InputError([], `VM ${id} was not restored from a snapshot: import it as ${family.prefix}_vm.`)
      }
      return observe(account)
    },
    list: accountListing<typeof attributes>({
      accounts: async (client, signal) =>
        (await family.api(client).listVms({ signal })).filter((vm) => vm.extra_details.snapshot_id !== null),
      filters: { name_prefix: { attribute: 'name', match: 'prefix', description: 'Only VMs whose name starts with this.' } },
      plural: 'VMs',
      displayName: 'name',
    }),
  })
}
