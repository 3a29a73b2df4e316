// An import of an id that this type does not have, but another does (a keypair of another pool, a
// snapshot or disk of the other Lite family, an assignment id with its parts swapped), names where it
// is; an id nobody has stays "missing"; a composite id written with leading zeros is the service's id.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ValueMap } from '../core/index.js'
import { fixtures } from '../../test/fixtures/index.js'
import { Harness } from '../../test/support/harness.js'
import { resources } from './index.js'

const definition = (name: string) => {
  const found = resources.find((r) => r.name === name)
  assert.ok(found, name)
  return found
}

/** Creates one object of `name` the way its lifecycle fixture does. */
async function created(h: Harness, name: string): Promise<ValueMap> {
  const lifecycle = fixtures.find((f) => f.name === name)?.lifecycle
  assert.ok(lifecycle, `${name} has a lifecycle fixture`)
  return h.create(definition(name), lifecycle.create(await lifecycle.setup(h)) as ValueMap)
}

test('a keypair of another pool names that pool and the type to import it as', async () => {
  const h = new Harness()
  const pro = await h.create(definition('lite_pro_keypair'), { name: 'pro-key' })
  await assert.rejects(
    h.import(definition('lite_keypair'), String(pro.id)),
    /keypair \d+ is in the Lite Pro pool .*import it as lite_pro_keypair/,
  )
  await assert.rejects(h.import(definition('baremetal_keypair'), String(pro.id)), /import it as lite_pro_keypair/)
  const metal = await h.create(definition('baremetal_keypair'), { name: 'metal-key' })
  await assert.rejects(h.import(definition('lite_keypair'), String(metal.id)), /is in the Metal pool .*import it as baremetal_keypair/)
  await assert.rejects(h.import(definition('lite_keypair'), '999999'), /No lite_keypair with id 999999 exists/)
})

for (const kind of ['snapshot', 'disk']) {
  test(`a ${kind} of the other Lite family names its type; one of neither is missing`, async () => {
    const h = new Harness()
    const lite = await created(h, `lite_${kind}`)
    await assert.rejects(
      h.import(definition(`lite_pro_${kind}`), String(lite.id)),
      new RegExp(`account ${String(lite.id)} is a Lite ${kind}: import it as lite_${kind}`),
    )
    const pro = await created(h, `lite_pro_${kind}`)
    await assert.rejects(
      h.import(definition(`lite_${kind}`), String(pro.id)),
      new RegExp(`is a Lite Pro ${kind}: import it as lite_pro_${kind}`),
    )
    await assert.rejects(h.import(definition(`lite_${kind}`), '999999'), /No lite_\w+ with id 999999 exists/)
  })
}

test('an IP assignment id: leading zeros are dropped, and the parts swapped give the id to use', async () => {
  const h = new Harness()
  const assignment = await created(h, 'baremetal_additional_ip_assignment')
  const [server, ip] = String(assignment.id).split(':')
  const padded = await h.import(definition('baremetal_additional_ip_assignment'), `00${server}:0${ip}`)
  assert.equal(padded?.id, `${server}:${ip}`, 'the id the service knows')
  await assert.rejects(
    h.import(definition('baremetal_additional_ip_assignment'), `${ip}:${server}`),
    new RegExp(`the server first: the assignment of additional IP ${ip} to server ${server} is ${server}:${ip}`),
  )
})

test('a Lite VM imported as a Lite Pro VM names provider_lite_vm', async () => {
  const h = new Harness()
  const vm = await created(h, 'lite_vm')
  await assert.rejects(
    h.import(definition('lite_pro_vm'), String(vm.id)),
    new RegExp(`VM ${String(vm.id)} is a Lite VM, not a Lite Pro one: import it as lite_vm`),
  )
})

test('an account id of another kind (a Lite VM imported as a disk, a disk as a Metal server, a server as a VM) names its kind and type', async () => {
  // One emulator each: the fixtures' set-ups name their keypairs alike.
  const named = async (kind: string) => {
    const h = new Harness()
    return { h, id: String((await created(h, kind)).id) }
  }
  const vm = await named('lite_vm')
  await assert.rejects(vm.h.import(definition('lite_disk'), vm.id), new RegExp(`account ${vm.id} is a Lite VM: import it as lite_vm`))
  const disk = await named('lite_disk')
  await assert.rejects(
    disk.h.import(definition('baremetal'), disk.id),
    new RegExp(`account ${disk.id} is a Lite disk: import it as lite_disk`),
  )
  const server = await named('baremetal')
  await assert.rejects(
    server.h.import(definition('lite_vm'), server.id),
    new RegExp(`account ${server.id} is a Metal server: import it as baremetal`),
  )
  await assert.rejects(server.h.import(definition('lite_pro_vm'), server.id), /is a Metal server: import it as baremetal/)
  await assert.rejects(server.h.import(definition('lite_snapshot'), '999999'), /No lite_snapshot with id 999999 exists/)
  const ip = await named('baremetal_additional_ip')
  await assert.rejects(
    ip.h.import(definition('lite_disk'), ip.id),
    new RegExp(`account ${ip.id} is an additional IP: import it as baremetal_additional_ip`),
  )
})
