// Terraform actions (ValidateActionConfig, PlanAction, InvokeAction) driven over gRPC as Terraform drives
// them, in-process against the emulator of a Harness (manual clock): the schema, the checks before a
// plan, a power action that changes the VM and no state, and a rebuild cut short by StopProvider or by
// Terraform cancelling the stream.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { encode, ExtData } from '@msgpack/msgpack'
import { type CallContext, createGrpcServer, GrpcError, type GrpcServer, GrpcStatus } from '../src/grpc/index.js'
import { dataSources, providerDefinition, resources } from '../src/resources/index.js'
import { type LogFields, silentLogger } from '../src/terraform/index.js'
import {
  type Diagnostic,
  Diagnostic_Severity,
  type InvokeAction_Event,
  type InvokeAction_Request,
  Provider,
} from '../src/terraform/gen/tfplugin6.10_pb.js'
import { providerService } from '../src/terraform/provider-service.js'
import { lite, litePro } from '../src/resources/lite-family.js'
import { liteVms } from './support/fixtures.js'
import { Harness } from './support/harness.js'
import { connectGrpcTestClient, type GrpcTestClient } from './support/terraform/grpc-client.js'

const UNKNOWN = new ExtData(0, new Uint8Array([0]))
const dynamic = (object: Record<string, unknown>) => ({ msgpack: encode(object) })
const text = (diagnostics: readonly Diagnostic[]) => diagnostics.map((d) => `${d.summary}: ${d.detail}`).join('\n')
const errors = (diagnostics: readonly Diagnostic[]) => diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR)

interface Running {
  readonly harness: Harness
  readonly grpc: GrpcTestClient
  /** The call signal of each InvokeAction the server received, and the handler's promise. */
  readonly invocations: { signal: AbortSignal; handled: Promise<void> }[]
  readonly logged: { message: string; fields?: LogFields }[]
  close(): Promise<void>
}

/** The Terraform provider service on a gRPC server, configured, its client on the harness's emulator. */
async function start(): Promise<Running> {
  const harness = new Harness()
  const logged: Running['logged'] = []
  const log = {
    ...silentLogger,
    info: (message: string, fields?: LogFields) => void logged.push({ message, ...(fields ? { fields } : {}) }),
  }
  const server: GrpcServer = createGrpcServer()
  const invocations: Running['invocations'] = []
  // Seen from inside the server: the call signal InvokeAction runs with, and when its handler ends.
  const register = server.register.bind(server)
  server.register = ((service, impl) => {
    const handlers = impl as Record<string, unknown>
    const invoke = handlers.invokeAction as (r: InvokeAction_Request, send: never, call: CallContext) => Promise<void>
    register(service, {
      ...impl,
      invokeAction: (request: InvokeAction_Request, send: never, call: CallContext) => {
        const handled = invoke(request, send, call)
        invocations.push({ signal: call.signal, handled })
        return handled
      },
    } as typeof impl)
  }) as GrpcServer['register']
  providerService(
    { provider: { ...providerDefinition, configure: () => harness.client }, resources, dataSources },
    { log: log as typeof silentLogger, userAgent: 'provider-terraform/actions-test' },
  ).attach(server)
  const grpc = connectGrpcTestClient({ address: `127.0.0.1:${await server.listen()}` })
  const schema = await grpc.call(Provider.method.getProviderSchema, {})
  const settings = Object.fromEntries((schema.provider?.block?.attributes ?? []).map((a) => [a.name, null]))
  const configured = await grpc.call(Provider.method.configureProvider, {
    terraformVersion: '1.16.4',
    config: dynamic({ ...settings, api_key: harness.emulator.apiKey, base_url: 'http://emulator.invalid/v1' }),
  })
  assert.deepEqual(errors(configured.diagnostics), [])
  return {
    harness,
    grpc,
    invocations,
    logged,
    async close() {
      await grpc.close()
      await server.close()
    },
  }
}

describe('Terraform actions: schema and checks', () => {
  let running: Running
  before(async () => {
    running = await start()
  })
  after(() => running.close())

  test('every method of a resource is an action named <resource type>_<method>, listed in the metadata', async () => {
    const metadata = await running.grpc.call(Provider.method.getMetadata, {})
    const listed = metadata.actions.map((a) => a.typeName)
    const expected = resources.flatMap((r) => (r.methods ?? []).map((m) => `provider_${r.name}_${m.name}`))
    assert.deepEqual(listed, expected)
    for (const name of ['provider_lite_vm_power', 'provider_lite_vm_rebuild', 'provider_lite_pro_vm_power', 'provider_baremetal_reset']) {
      assert.ok(listed.includes(name), `${name} in ${listed.join(', ')}`)
    }
  })

  test('an action schema is the object id plus the method arguments, required as declared', async () => {
    const schema = await running.grpc.call(Provider.method.getProviderSchema, {})
    assert.deepEqual(
      Object.keys(schema.actionSchemas),
      (await running.grpc.call(Provider.method.getMetadata, {})).actions.map((a) => a.typeName),
    )
    const power = schema.actionSchemas.provider_lite_vm_power?.schema?.block
    assert.ok(power)
    assert.deepEqual(
      power.attributes.map((a) => [a.name, a.required, a.optional, a.computed, new TextDecoder().decode(a.type)]),
      [
        ['id', true, false, false, '"string"'],
        ['state', true, false, false, '"string"'],
      ],
    )
    assert.match(power.attributes[0]?.description ?? '', /provider_lite_vm\.example\.id/)
    assert.match(schema.actionSchemas.provider_lite_vm_rebuild?.schema?.block?.description ?? '', /^Destructive.*cannot be undone\.$/)
  })

  test('ValidateActionConfig names the argument and the rule; unknown values wait for the invocation', async () => {
    const invalid = await running.grpc.call(Provider.method.validateActionConfig, {
      typeName: 'provider_lite_vm_power',
      config: dynamic({ id: '42', state: 'sideways' }),
    })
    assert.equal(errors(invalid.diagnostics).length, 1)
    assert.match(text(invalid.diagnostics), /state.*start.*stop/)
    const step = invalid.diagnostics[0]?.attribute?.steps[0]?.selector
    assert.deepEqual([step?.case, step?.value], ['attributeName', 'state'])
    const empty = await running.grpc.call(Provider.method.validateActionConfig, {
      typeName: 'provider_lite_vm_power',
      config: dynamic({ id: '', state: 'stop' }),
    })
    assert.match(text(errors(empty.diagnostics)), /id must be the id of the provider_lite_vm to act on/)
    const unknown = await running.grpc.call(Provider.method.validateActionConfig, {
      typeName: 'provider_lite_vm_power',
      config: dynamic({ id: UNKNOWN, state: UNKNOWN }),
    })
    assert.deepEqual(unknown.diagnostics, [])
    const stranger = await running.grpc.call(Provider.method.validateActionConfig, {
      typeName: 'provider_lite_vm_fly',
      config: dynamic({}),
    })
    assert.match(text(errors(stranger.diagnostics)), /no action provider_lite_vm_fly/)
  })

  test('an id that is not an account id (a name, a composite id) is an error naming id at validate, and invoked anyway, an error on id, never "Provider bug"', async () => {
    for (const id of ['abc', '100005:100004', '1e3']) {
      const validated = await running.grpc.call(Provider.method.validateActionConfig, {
        typeName: 'provider_baremetal_reset',
        config: dynamic({ id }),
      })
      assert.equal(errors(validated.diagnostics).length, 1, `${id}: ${text(validated.diagnostics)}`)
      const step = errors(validated.diagnostics)[0]?.attribute?.steps[0]?.selector
      assert.deepEqual([step?.case, step?.value], ['attributeName', 'id'])
      const events = await running.grpc.stream(Provider.method.invokeAction, {
        actionType: 'provider_lite_vm_power',
        config: dynamic({ id, state: 'stop' }),
      })
      const last = events.at(-1)
      assert.equal(last?.type.case, 'completed')
      const invoked = last.type.case === 'completed' ? last.type.value.diagnostics : []
      assert.doesNotMatch(text(invoked), /bug in the provider/)
      assert.deepEqual(
        errors(invoked).map((d) => d.summary),
        ['Invalid id'],
      )
    }
    // An id that resolved to an empty string at apply: the same rule, naming the id's format.
    const events = await running.grpc.stream(Provider.method.invokeAction, {
      actionType: 'provider_lite_vm_power',
      config: dynamic({ id: '', state: 'stop' }),
    })
    const last = events.at(-1)
    const invoked = last?.type.case === 'completed' ? last.type.value.diagnostics : []
    assert.deepEqual(
      errors(invoked).map((d) => d.summary),
      ['Invalid id'],
    )
    assert.match(text(invoked), /written <account_id> \(e\.g\. \d+\): it is empty/)
  })

  test('PlanAction accepts an id not known yet, and warns that a rebuild is destructive', async () => {
    const power = await running.grpc.call(Provider.method.planAction, {
      actionType: 'provider_lite_vm_power',
      config: dynamic({ id: UNKNOWN, state: 'stop' }),
    })
    assert.deepEqual(power.diagnostics, [])
    const rebuild = await running.grpc.call(Provider.method.planAction, {
      actionType: 'provider_lite_vm_rebuild',
      config: dynamic({ id: UNKNOWN, os: 'Debian-12' }),
    })
    assert.deepEqual(
      rebuild.diagnostics.map((d) => d.severity),
      [Diagnostic_Severity.WARNING],
    )
    assert.match(text(rebuild.diagnostics), /provider_lite_vm_rebuild is destructive: .*wipes its disk.*cannot be undone/)
  })
})

describe('Terraform actions: invocation', () => {
  let running: Running
  /** Two Active Lite VMs: the first for power, the second and third for a rebuild each. */
  const vms: string[] = []
  before(async () => {
    running = await start()
    for (const made of [await liteVms(lite)(running.harness), await liteVms(litePro)(running.harness)]) {
      vms.push(String(made.vm), String(made.vm2))
    }
  })
  after(() => running.close())

  const kinds = (events: readonly InvokeAction_Event[]) => events.map((e) => e.type.case)
  const completed = (events: readonly InvokeAction_Event[]) => {
    const last = events.at(-1)
    assert.equal(last?.type.case, 'completed')
    return last.type.value.diagnostics
  }

  test('power stop: progress, then completed without diagnostics; the VM is stopped, nothing else ordered', async () => {
    const vm = vms[0] as string
    await running.harness.requests()
    const events = await running.grpc.stream(Provider.method.invokeAction, {
      actionType: 'provider_lite_vm_power',
      config: dynamic({ id: vm, state: 'stop' }),
    })
    assert.deepEqual(kinds(events), ['progress', 'completed'])
    assert.equal(events[0]?.type.case === 'progress' && events[0].type.value.message, `power action stop sent to Lite VM ${vm}`)
    assert.deepEqual(completed(events), [])
    assert.deepEqual(await running.harness.mutations(), [`PUT /v1/lites/accounts/${vm}/vm-state/stop`])
    assert.equal((await running.harness.client.lites.getVmDetails(vm)).status, 'stopped')
  })

  test("PlanAction on an id no such object has (deleted, or another kind's account) is an error naming id", async () => {
    const snapshot = await running.harness.client.lites.createSnapshot(vms[0] as string, { cycle: 'm' })
    for (const id of ['999999', String(snapshot.account_id)]) {
      const planned = await running.grpc.call(Provider.method.planAction, {
        actionType: 'provider_lite_vm_power',
        config: dynamic({ id, state: 'stop' }),
      })
      assert.deepEqual(
        errors(planned.diagnostics).map((d) => d.summary),
        ['Invalid id'],
      )
      assert.match(
        text(planned.diagnostics),
        new RegExp(
          `No provider_lite_vm has id ${id}: it was deleted, or the id is another kind's\\. id must be the id of an existing provider_lite_vm\\.`,
        ),
      )
      const step = errors(planned.diagnostics)[0]?.attribute?.steps[0]?.selector
      assert.deepEqual([step?.case, step?.value], ['attributeName', 'id'])
    }
    const existing = await running.grpc.call(Provider.method.planAction, {
      actionType: 'provider_lite_vm_power',
      config: dynamic({ id: vms[0], state: 'stop' }),
    })
    assert.deepEqual(existing.diagnostics, [])
  })

  test('a failure is a completed event with the error naming the method and the object', async () => {
    const events = await running.grpc.stream(Provider.method.invokeAction, {
      actionType: 'provider_lite_vm_power',
      config: dynamic({ id: '999999', state: 'start' }),
    })
    assert.deepEqual(kinds(events), ['completed'])
    assert.match(text(errors(completed(events))), /lite_vm power of 999999 failed/)
  })

  test('an invalid argument is refused before any call', async () => {
    const vm = vms[0] as string
    await running.harness.requests()
    const events = await running.grpc.stream(Provider.method.invokeAction, {
      actionType: 'provider_lite_vm_power',
      config: dynamic({ id: vm, state: 'reboot' }),
    })
    assert.match(text(errors(completed(events))), /state/)
    assert.deepEqual(await running.harness.mutations(), [])
  })

  test("a rebuild's os is checked against the VM's OS list at plan and before the call: an error naming os and the list", async () => {
    const vm = vms[1] as string
    await running.harness.requests()
    const planned = await running.grpc.call(Provider.method.planAction, {
      actionType: 'provider_lite_vm_rebuild',
      config: dynamic({ id: vm, os: 'Windows-11' }),
    })
    assert.deepEqual(
      errors(planned.diagnostics).map((d) => [d.summary, d.detail]),
      [['Invalid os', 'os must be an OS of product 101: "Ubuntu-22.04", "Ubuntu-24.04", "Debian-12", "Rocky-9".']],
    )
    const step = errors(planned.diagnostics)[0]?.attribute?.steps[0]?.selector
    assert.deepEqual([step?.case, step?.value], ['attributeName', 'os'])
    // A Lite Pro VM's list is its product's, in its own group.
    const pro = await running.grpc.call(Provider.method.planAction, {
      actionType: 'provider_lite_pro_vm_rebuild',
      config: dynamic({ id: vms[2], os: 'Debian-12' }),
    })
    assert.deepEqual(errors(pro.diagnostics), [])
    // Invoked anyway (no plan), the rebuild is refused before it is sent.
    const events = await running.grpc.stream(Provider.method.invokeAction, {
      actionType: 'provider_lite_vm_rebuild',
      config: dynamic({ id: vm, os: 'Windows-11' }),
    })
    assert.deepEqual(kinds(events), ['completed'])
    assert.match(text(errors(completed(events))), /os must be an OS of product 101/)
    assert.deepEqual(await running.harness.mutations(), [])
    // A control character is refused as written, before any call.
    const validated = await running.grpc.call(Provider.method.validateActionConfig, {
      typeName: 'provider_lite_vm_rebuild',
      config: dynamic({ id: vm, os: 'Debian\n12' }),
    })
    assert.match(text(errors(validated.diagnostics)), /os must not contain control characters/)
  })

  test('StopProvider during a rebuild ends it at its wait with an error; the rebuild was sent once', async () => {
    const vm = vms[1] as string
    await running.harness.requests()
    let waits = 0
    running.harness.onWait = async () => {
      if (++waits === 1) await running.grpc.call(Provider.method.stopProvider, {})
    }
    try {
      const events = await running.grpc.stream(Provider.method.invokeAction, {
        actionType: 'provider_lite_vm_rebuild',
        config: dynamic({ id: vm, os: 'Debian-12' }),
      })
      assert.deepEqual(kinds(events), ['progress', 'completed'])
      assert.match(
        text(errors(completed(events))),
        /provider_lite_vm rebuild of \d+ failed: Stopped waiting for Lite VM \d+ to become Active: cancelled/,
      )
    } finally {
      running.harness.onWait = undefined
    }
    assert.equal(waits, 1)
    assert.deepEqual(
      (await running.harness.mutations()).filter((m) => m.includes('rebuild')),
      [`PUT /v1/lites/accounts/${vm}/rebuild`],
    )
  })

  test('Terraform cancelling the stream during a rebuild aborts the method at its wait; nothing is sent again', async () => {
    const vm = vms[2] as string // a Lite Pro VM

    await running.harness.requests()
    const cancel = new AbortController()
    let waits = 0
    running.harness.onWait = async () => {
      if (++waits > 1) return
      cancel.abort()
      // Hold the wait until the server has seen the cancellation (the RST travels over loopback).
      const { signal } = running.invocations.at(-1) ?? assert.fail('no InvokeAction reached the server')
      if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
    }
    try {
      await assert.rejects(
        running.grpc.stream(
          Provider.method.invokeAction,
          { actionType: 'provider_lite_pro_vm_rebuild', config: dynamic({ id: vm, os: 'Debian-12' }) },
          { signal: cancel.signal },
        ),
        (error: unknown) => error instanceof GrpcError && error.code === GrpcStatus.CANCELLED,
      )
      // The handler ends: its completed event could not be sent to a cancelled call.
      await assert.rejects(running.invocations.at(-1)?.handled ?? Promise.resolve(), (error: unknown) => error instanceof GrpcError)
    } finally {
      running.harness.onWait = undefined
    }
    assert.equal(waits, 1, 'the wait stopped at the cancellation')
    assert.deepEqual(
      (await running.harness.mutations()).filter((m) => m.includes('rebuild')),
      [`PUT /v1/lite-pros/accounts/${vm}/rebuild`],
    )
    const ended = running.logged.filter((l) => l.message === 'action ended').at(-1)
    assert.match(String(ended?.fields?.errors), /rebuild of \d+ failed/)
  })
})
