/** A small in-memory resource that exercises every core rule; used by the unit tests of core and server. */
import { bool, int64, string } from '../../src/core/attributes.js'
import { ownCall } from '../../src/core/apply.js'
import { defineMethod, defineResource, recordOnly } from '../../src/core/definition.js'
import { length, oneOf } from '../../src/core/validators.js'

export interface Box {
  id: string
  name: string
  size: number
  label: string
  power: string
  status: string
}

/** A fake service: calls are recorded so tests can assert exactly what an apply did. */
export class BoxService {
  readonly boxes = new Map<string, Box>()
  readonly calls: string[] = []
  next = 1
  /** Makes the next call of this name throw once. */
  failOnce = new Set<string>()
  /** A create takes over a box of the same name that exists (as a keypair create takes over the same key). */
  takeOverByName = false
  /** Resolved before a delete removes its box, when set: lets a test hold a delete in flight. */
  deleteGate: Promise<void> | undefined

  call(name: string): void {
    this.calls.push(name)
    if (this.failOnce.delete(name)) throw new Error(`${name} failed on purpose`)
  }
}

export class NotFound extends Error {
  readonly notFound = true
}

const boxAttributes = {
  name: string({ required: true, createOnly: true, validate: [length({ min: 3, max: 8 })], description: 'Name.' }),
  coupon: string({
    optional: true,
    orderTime: true,
    description: 'A coupon the service reads only when it is ordered, and never reports back.',
  }),
  size: int64({ optional: true, computed: true, growOnly: true, description: 'Size in GB.' }),
  label: string({ optional: true, default: 'box-label', description: 'Label.' }),
  power: string({ optional: true, action: true, validate: [oneOf(['on', 'off'])], description: 'Power action.' }),
  paid: bool({ optional: true, default: true, description: 'Payment flag.' }),
  status: string({ computed: true, description: 'Status.' }),
  serial: string({ computed: true, stable: true, description: 'Serial number, fixed at create.' }),
}

export const boxDefinition = defineResource<BoxService, typeof boxAttributes>({
  name: 'box',
  description: 'A test box.',
  importId: {
    format: '<id>',
    example: '1',
    parse: (text) => (/^\d+$/.test(text) ? { id: text } : { error: 'expected digits' }),
  },
  timeouts: { create: '5m', update: '5m', delete: '1m' },
  attributes: boxAttributes,
  updates: [
    {
      attributes: ['label'],
      affects: ['status'],
      async apply({ client, id, input }) {
        client.call('relabel')
        const box = client.boxes.get(id)
        if (box) box.label = input.label ?? ''
        return undefined
      },
    },
    {
      attributes: ['size'],
      affects: ['status'],
      async apply({ client, id, input, checkpoint }) {
        client.call('grow-order')
        checkpoint()
        client.call('grow-wait')
        const box = client.boxes.get(id)
        if (box) box.size = input.size ?? box.size
        return undefined
      },
    },
    {
      attributes: ['power'],
      affects: ['status'],
      async apply({ client, id, input }) {
        client.call(`power:${input.power}`)
        const box = client.boxes.get(id)
        if (box) box.power = input.power ?? box.power
        return undefined
      },
    },
    { attributes: ['paid'], apply: recordOnly },
  ],
  async create({ client, input, checkpoint, takeOver }) {
    const same = client.takeOverByName ? [...client.boxes.values()].find((b) => b.name === input.name) : undefined
    if (same !== undefined && (await takeOver(same.id))) {
      client.call('take-over')
      return { id: same.id, status: same.status, serial: `S-${same.id}` }
    }
    client.call('order')
    const id = String(client.next++)
    client.boxes.set(id, {
      id,
      name: input.name ?? '',
      size: input.size ?? 10,
      label: input.label ?? '',
      power: 'on',
      status: 'Pending',
    })
    checkpoint({ id, status: 'Pending' })
    client.call('wait')
    const box = client.boxes.get(id)
    if (box) box.status = 'Active'
    return { id, status: 'Active', serial: `S-${id}` }
  },
  async resume({ client, id }) {
    client.call('wait')
    const box = client.boxes.get(id)
    if (box) box.status = 'Active'
    return { status: 'Active' }
  },
  async read({ client, id }) {
    const box = await ownCall(find(client, id, 'read'))
    if (box.status === 'Terminated') return null
    return { name: box.name, size: box.size, label: box.label, status: box.status, serial: `S-${id}` }
  },
  unrecoverable: ['coupon'],
  methods: [
    defineMethod<BoxService, { mode: ReturnType<typeof string> }>({
      name: 'restart',
      description: 'Restarts the box.',
      inputs: { mode: string({ required: true, validate: [oneOf(['soft', 'hard'])], description: 'How: `soft` or `hard`.' }) },
      timeout: '2m',
      async run({ client, id, input, progress }) {
        progress(`restarting box ${id}`)
        client.call(`restart:${input.mode}`)
        const box = client.boxes.get(id)
        if (!box) throw new NotFound(`box ${id} not found`)
        box.power = 'on'
        progress(`box ${id} restarted`)
      },
    }),
  ],
  async delete({ client, id }) {
    await ownCall(find(client, id, 'delete'))
    await client.deleteGate
    client.boxes.delete(id)
  },
})

/** The service's call `name` on box `id` (its GET or DELETE): the box, or a 404. */
async function find(client: BoxService, id: string, name: string): Promise<Box> {
  client.call(name)
  const box = client.boxes.get(id)
  if (!box) throw new NotFound(`box ${id} not found`)
  return box
}
