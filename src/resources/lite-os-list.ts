/** provider_lite_os_list and provider_lite_pro_os_list: the OS templates of a product (C3). */
import type { Client } from '../api/index.js'
import { defineDataSource, int64, list, objectType, string } from '../core/index.js'
import { rules } from './billing.js'
import type { LiteFamily } from './lite-family.js'

/** The attributes, whose descriptions name the family's VM inputs. */
const attributesOf = (family: LiteFamily) => ({
  product_id: int64({ required: true, validate: [rules.id], description: 'The product whose OS templates to list.' }),
  oss: list(
    objectType({
      vmid: int64({ computed: true, description: 'Template number.' }),
      node: string({ computed: true, description: 'Hypervisor node.' }),
      name: string({
        computed: true,
        description: `The value for a VM's \`provider_${family.prefix}_vm.select_os\` or \`provider_${family.prefix}_vm.rebuild_os\`.`,
      }),
      maxmem: int64({ computed: true, description: 'Memory in bytes.' }),
      maxcpu: int64({ computed: true, description: 'vCPUs.' }),
    }),
    { computed: true, description: 'The OS templates available for the product.' },
  ),
})

export function liteOsList(family: LiteFamily) {
  const attributes = attributesOf(family)
  return defineDataSource<Client, ReturnType<typeof attributesOf>>({
    name: `${family.prefix}_os_list`,
    description: `The OS templates a ${family.title} product can be installed with; \`name\` is the value of \`provider_${family.prefix}_vm.select_os\`.`,
    attributes,
    notFound: { attribute: 'product_id', what: `a product of ${family.prefix}_products` },
    async read({ client, input, signal }) {
      const oss = await family.api(client).listOss(input.product_id ?? 0, { signal })
      return { oss: oss.map(({ vmid, node, name, maxmem, maxcpu }) => ({ vmid, node, name, maxmem, maxcpu })) }
    },
  })
}
