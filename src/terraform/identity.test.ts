// The identity handlers of the Terraform front end, driven over gRPC in-process with the test box (whose
// identity is derived from its import id `<id>`): what Terraform 1.12+ sends and what it must get back.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { decode, encode } from '@msgpack/msgpack'
import { BoxService } from '../../test/support/box-resource.js'
import { boxState, serveBox } from '../../test/support/terraform/box-server.js'
import type { GrpcTestClient } from '../../test/support/terraform/grpc-client.js'
import { Diagnostic_Severity, Provider } from './gen/tfplugin6.10_pb.js'

const TYPE = 'provider_box'
const msgpack = (value: unknown) => ({ msgpack: encode(value) })
const identity = (value: unknown) => ({ identityData: msgpack(value) })
const unpack = (data: { identityData?: { msgpack: Uint8Array } } | undefined) =>
  data?.identityData ? decode(data.identityData.msgpack) : undefined
const errors = (diagnostics: readonly { severity: Diagnostic_Severity; summary: string; detail: string }[]) =>
  diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR).map((d) => `${d.summary}: ${d.detail}`)

describe('Terraform resource identity', () => {
  const service = new BoxService()
  let grpc: GrpcTestClient
  let close: () => Promise<void>
  before(async () => {
    service.boxes.set('7', { id: '7', name: 'alpha', size: 20, label: 'box-label', power: 'on', status: 'Active' })
    ;({ grpc, close } = await serveBox(service))
  })
  after(() => close())

  test('GetResourceIdentitySchemas: every resource type, version 0, each part required for import', async () => {
    const { identitySchemas, diagnostics } = await grpc.call(Provider.method.getResourceIdentitySchemas, {})
    assert.deepEqual(diagnostics, [])
    const schema = identitySchemas[TYPE]
    assert.ok(schema)
    assert.equal(schema.version, 0n)
    assert.deepEqual(
      schema.identityAttributes.map((a) => [a.name, new TextDecoder().decode(a.type), a.requiredForImport, a.optionalForImport]),
      [['id', '"string"', true, false]],
    )
  })

  test('ImportResourceState by identity imports the object it names and returns its identity; a missing part is refused', async () => {
    const imported = await grpc.call(Provider.method.importResourceState, { typeName: TYPE, id: '', identity: identity({ id: '7' }) })
    assert.deepEqual(errors(imported.diagnostics), [])
    assert.equal(imported.importedResources.length, 1)
    assert.deepEqual(unpack(imported.importedResources[0]?.identity), { id: '7' })
    assert.equal((decode(imported.importedResources[0]?.state?.msgpack ?? new Uint8Array()) as { id: string }).id, '7')

    const byId = await grpc.call(Provider.method.importResourceState, { typeName: TYPE, id: '7' })
    assert.deepEqual(unpack(byId.importedResources[0]?.identity), { id: '7' }, 'an import by id returns the identity too')

    const refused = await grpc.call(Provider.method.importResourceState, { typeName: TYPE, id: '', identity: identity({ id: null }) })
    assert.equal(refused.importedResources.length, 0)
    assert.deepEqual(errors(refused.diagnostics), [
      'Invalid import identity: The identity of provider_box is id (the parts of its import id <id>): id is required.',
    ])
    const missing = await grpc.call(Provider.method.importResourceState, { typeName: TYPE, id: '', identity: identity({ id: '8' }) })
    assert.match(errors(missing.diagnostics).join('\n'), /Cannot import a missing object/)
  })

  test('ReadResource gives the identity of the id, fills one in for a state that had none, and refuses one that differs', async () => {
    const kept = await grpc.call(Provider.method.readResource, {
      typeName: TYPE,
      currentState: msgpack(boxState('7')),
      currentIdentity: identity({ id: '7' }),
    })
    assert.deepEqual(errors(kept.diagnostics), [])
    assert.deepEqual(unpack(kept.newIdentity), { id: '7' })

    // A state written by a provider version without identity (or a client that keeps none).
    const filled = await grpc.call(Provider.method.readResource, { typeName: TYPE, currentState: msgpack(boxState('7')) })
    assert.deepEqual(unpack(filled.newIdentity), { id: '7' })

    const reads = service.calls.filter((c) => c === 'read').length
    const changed = await grpc.call(Provider.method.readResource, {
      typeName: TYPE,
      currentState: msgpack(boxState('7')),
      currentIdentity: identity({ id: '9' }),
    })
    assert.deepEqual(
      errors(changed.diagnostics).map((e) => e.split(':')[0]),
      ['Resource identity changed'],
    )
    assert.match(
      errors(changed.diagnostics)[0] ?? '',
      /has id 7, whose identity is \{"id":"7"\}, but Terraform kept the identity \{"id":"9"\}/,
    )
    assert.deepEqual(decode(changed.newState?.msgpack ?? new Uint8Array()), boxState('7'), 'the state is left as it was')
    assert.deepEqual(unpack(changed.newIdentity), { id: '9' }, 'and so is the identity')
    assert.equal(service.calls.filter((c) => c === 'read').length, reads, 'nothing was read')

    service.boxes.set('6', { id: '6', name: 'gone', size: 1, label: '', power: 'on', status: 'Terminated' })
    const gone = await grpc.call(Provider.method.readResource, { typeName: TYPE, currentState: msgpack(boxState('6')) })
    assert.equal(decode(gone.newState?.msgpack ?? new Uint8Array()), null)
    assert.equal(gone.newIdentity, undefined, 'a gone object has no identity')
  })

  test('PlanResourceChange keeps the identity of an object changed in place; a create or a replacement plans none', async () => {
    const prior = boxState('7')
    const inPlace = { ...prior, label: 'relabelled' }
    const config = { ...inPlace, id: null, status: null, serial: null, size: 20, paid: null }
    const update = await grpc.call(Provider.method.planResourceChange, {
      typeName: TYPE,
      priorState: msgpack(prior),
      proposedNewState: msgpack(inPlace),
      config: msgpack(config),
      priorIdentity: identity({ id: '7' }),
    })
    assert.deepEqual(errors(update.diagnostics), [])
    assert.equal(update.requiresReplace.length, 0)
    assert.deepEqual(unpack(update.plannedIdentity), { id: '7' })

    const replaced = { ...inPlace, name: 'other' }
    const replace = await grpc.call(Provider.method.planResourceChange, {
      typeName: TYPE,
      priorState: msgpack(prior),
      proposedNewState: msgpack(replaced),
      config: msgpack({ ...config, name: 'other' }),
      priorIdentity: identity({ id: '7' }),
    })
    assert.deepEqual(errors(replace.diagnostics), [])
    assert.ok(replace.requiresReplace.length > 0)
    assert.equal(replace.plannedIdentity, undefined)

    const create = await grpc.call(Provider.method.planResourceChange, {
      typeName: TYPE,
      priorState: msgpack(null),
      proposedNewState: msgpack({ ...config, name: 'other' }),
      config: msgpack({ ...config, name: 'other' }),
    })
    assert.deepEqual(errors(create.diagnostics), [])
    assert.equal(create.plannedIdentity, undefined)
  })

  test('ApplyResourceChange gives a created object its identity, and none to a deleted one', async () => {
    const planned = { ...boxState('x'), id: null, name: 'fresh', status: null, serial: null }
    const plan = await grpc.call(Provider.method.planResourceChange, {
      typeName: TYPE,
      priorState: msgpack(null),
      proposedNewState: msgpack(planned),
      config: msgpack(planned),
    })
    const created = await grpc.call(Provider.method.applyResourceChange, {
      typeName: TYPE,
      priorState: msgpack(null),
      plannedState: plan.plannedState,
      config: msgpack(planned),
      plannedPrivate: plan.plannedPrivate,
    })
    assert.deepEqual(errors(created.diagnostics), [])
    const state = decode(created.newState?.msgpack ?? new Uint8Array()) as { id: string }
    assert.deepEqual(unpack(created.newIdentity), { id: state.id })

    const deleted = await grpc.call(Provider.method.applyResourceChange, {
      typeName: TYPE,
      priorState: created.newState,
      plannedState: msgpack(null),
      config: msgpack(null),
    })
    assert.deepEqual(errors(deleted.diagnostics), [])
    assert.equal(deleted.newIdentity, undefined)
  })

  test('UpgradeResourceIdentity re-encodes an identity of the current version and refuses another', async () => {
    const json = new TextEncoder().encode(JSON.stringify({ id: '7' }))
    const same = await grpc.call(Provider.method.upgradeResourceIdentity, { typeName: TYPE, version: 0n, rawIdentity: { json } })
    assert.deepEqual(errors(same.diagnostics), [])
    assert.deepEqual(unpack(same.upgradedIdentity), { id: '7' })
    const newer = await grpc.call(Provider.method.upgradeResourceIdentity, { typeName: TYPE, version: 3n, rawIdentity: { json } })
    assert.deepEqual(
      errors(newer.diagnostics).map((e) => e.split(':')[0]),
      ['Unknown resource identity version'],
    )
  })
})
