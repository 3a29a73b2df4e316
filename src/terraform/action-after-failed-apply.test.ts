// An action triggered after a change that failed. Terraform 1.14+ runs the actions of an
// `after_create`/`after_update` trigger whenever the object is not tainted, so after a failed update
// too (seen with Terraform 1.16.4: a failed rename, then the trigger's power action sent anyway). The
// provider process saw the update fail: InvokeAction on that object in the same process is refused,
// and the next successful change of it lets the action run again.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { encode } from '@msgpack/msgpack'
import { BoxService } from '../../test/support/box-resource.js'
import { boxState, serveBox } from '../../test/support/terraform/box-server.js'
import type { GrpcTestClient } from '../../test/support/terraform/grpc-client.js'
import { type Diagnostic, Diagnostic_Severity, type InvokeAction_Event, Provider } from './gen/tfplugin6.10_pb.js'

const TYPE = 'provider_box'
const msgpack = (value: unknown) => ({ msgpack: encode(value) })
const errors = (diagnostics: readonly Diagnostic[]) =>
  diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR).map((d) => `${d.summary}: ${d.detail}`)
const completed = (events: readonly InvokeAction_Event[]) => {
  const last = events.at(-1)
  assert.equal(last?.type.case, 'completed')
  return last.type.value.diagnostics
}

describe('Terraform: an action on an object whose change failed in this apply', () => {
  const service = new BoxService()
  let grpc: GrpcTestClient
  let close: () => Promise<void>
  before(async () => {
    service.boxes.set('7', { id: '7', name: 'alpha', size: 20, label: 'box-label', power: 'on', status: 'Active' })
    service.boxes.set('8', { id: '8', name: 'beta', size: 20, label: 'box-label', power: 'on', status: 'Active' })
    ;({ grpc, close } = await serveBox(service))
  })
  after(() => close())

  const relabel = async (id: string, label: string) => {
    const prior = msgpack(boxState(id))
    const proposed = boxState(id, { label })
    const config = { ...proposed, id: null, size: null, status: null, serial: null }
    const plan = await grpc.call(Provider.method.planResourceChange, {
      typeName: TYPE,
      priorState: prior,
      proposedNewState: msgpack(proposed),
      config: msgpack(config),
    })
    assert.deepEqual(errors(plan.diagnostics), [])
    return grpc.call(Provider.method.applyResourceChange, {
      typeName: TYPE,
      priorState: prior,
      plannedState: plan.plannedState,
      config: msgpack(config),
      plannedPrivate: plan.plannedPrivate,
    })
  }
  const restart = (id: string) =>
    grpc.stream(Provider.method.invokeAction, { actionType: 'provider_box_restart', config: msgpack({ id, mode: 'soft' }) })

  test('a failed update: the action it triggers is refused, naming the object and the failure, and nothing is called', async () => {
    service.failOnce.add('relabel')
    const failed = await relabel('7', 'renamed')
    assert.match(errors(failed.diagnostics).join('\n'), /relabel failed on purpose/)

    service.calls.length = 0
    const events = await restart('7')
    const refused = errors(completed(events))
    assert.equal(refused.length, 1)
    assert.match(refused[0] ?? '', /^provider_box_restart not run: The change of provider_box 7 failed earlier in this apply/)
    assert.match(refused[0] ?? '', /apply again/)
    assert.deepEqual(service.calls, [], 'the restart was not sent')

    // Another object of the same type is not concerned.
    assert.deepEqual(errors(completed(await restart('8'))), [])
    assert.deepEqual(service.calls, ['restart:soft'])
  })

  test('the next update of that object that succeeds lets its actions run again', async () => {
    const done = await relabel('7', 'renamed')
    assert.deepEqual(errors(done.diagnostics), [])
    service.calls.length = 0
    assert.deepEqual(errors(completed(await restart('7'))), [])
    assert.deepEqual(service.calls, ['restart:soft'])
  })

  test('a process Terraform reattaches to serves one command after another: a later command (terraform apply -invoke) runs the action', async () => {
    service.failOnce.add('relabel')
    assert.match(errors((await relabel('8', 'renamed')).diagnostics).join('\n'), /relabel failed on purpose/)
    // The next command configures the provider anew; the object's failed update is that earlier command's.
    const configured = await grpc.call(Provider.method.configureProvider, { terraformVersion: '1.16.4', config: msgpack({}) })
    assert.deepEqual(errors(configured.diagnostics), [])
    service.calls.length = 0
    assert.deepEqual(errors(completed(await restart('8'))), [], 'refused as "failed earlier in this apply"')
    assert.deepEqual(service.calls, ['restart:soft'])
  })
})
