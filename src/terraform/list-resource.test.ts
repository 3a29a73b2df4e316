// List resources through the Terraform front end, over gRPC in-process with a listable test box: the
// list schema and metadata, ValidateListResourceConfig, and ListResource's stream (identity, display
// name, the object when asked for, the limit, and a client that cancels mid-stream).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { decode, encode } from '@msgpack/msgpack'
import type { AnyProvider, AnyResource } from '../core/index.js'
import { createGrpcServer, GrpcError, GrpcStatus } from '../grpc/index.js'
import { BoxService, boxDefinition } from '../../test/support/box-resource.js'
import { connectGrpcTestClient } from '../../test/support/terraform/grpc-client.js'
import { Diagnostic_Severity, Provider } from './gen/tfplugin6.10_pb.js'
import { silentLogger } from './log.js'
import { providerService } from './provider-service.js'

const TYPE = 'provider_box'
const msgpack = (value: unknown) => ({ msgpack: encode(value) })
const errors = (diagnostics: readonly { severity: Diagnostic_Severity; summary: string; detail: string }[]) =>
  diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR).map((d) => `${d.summary}: ${d.detail}`)

function listable(read: AnyResource['read'] = boxDefinition.read): AnyResource {
  return {
    ...boxDefinition,
    read,
    list: {
      ids: async ({ client }) => [...(client as BoxService).boxes.keys()],
      filters: {
        name_prefix: { attribute: 'name', match: 'prefix', description: 'Only boxes whose name starts with this.', example: 'b' },
      },
      displayName: 'name',
    },
  }
}

async function serve(resource: AnyResource, service: BoxService) {
  const provider: AnyProvider = { description: 'Test.', attributes: {}, environment: {}, configure: () => service }
  const server = createGrpcServer()
  providerService({ provider, resources: [resource], dataSources: [] }, { log: silentLogger, userAgent: 'test' }).attach(server)
  const grpc = connectGrpcTestClient({ address: `127.0.0.1:${await server.listen('127.0.0.1', 0)}` })
  const configured = await grpc.call(Provider.method.configureProvider, { terraformVersion: '1.16.4', config: msgpack({}) })
  assert.deepEqual(errors(configured.diagnostics), [])
  return {
    server,
    grpc,
    async close() {
      await grpc.close()
      await server.close()
    },
  }
}

function boxes(...names: string[]): BoxService {
  const service = new BoxService()
  names.forEach((name, index) => {
    const id = String(index + 1)
    service.boxes.set(id, { id, name, size: 10, label: 'box-label', power: 'on', status: 'Active' })
  })
  return service
}

describe('Terraform list resources', () => {
  test('the list schema holds the filters, and the metadata names the listable types', async () => {
    const { grpc, close } = await serve(listable(), boxes())
    try {
      const schema = await grpc.call(Provider.method.getProviderSchema, {})
      const list = schema.listResourceSchemas[TYPE]
      assert.ok(list?.block, 'a list schema for the box')
      assert.deepEqual(
        list.block.attributes.map((a) => [a.name, new TextDecoder().decode(a.type), a.optional, a.required]),
        [['name_prefix', '"string"', true, false]],
      )
      const metadata = await grpc.call(Provider.method.getMetadata, {})
      assert.deepEqual(
        metadata.listResources.map((l) => l.typeName),
        [TYPE],
      )
      const valid = await grpc.call(Provider.method.validateListResourceConfig, { typeName: TYPE, config: msgpack({ name_prefix: 'a' }) })
      assert.deepEqual(errors(valid.diagnostics), [])
      const unknown = await grpc.call(Provider.method.validateListResourceConfig, { typeName: 'provider_nothing', config: msgpack({}) })
      assert.match(errors(unknown.diagnostics).join(), /no list resource type provider_nothing/)
    } finally {
      await close()
    }
  })

  test('ListResource streams one event per kept object: identity, display name, and the object only when asked', async () => {
    const { grpc, close } = await serve(listable(), boxes('web-1', 'db-1', 'web-2'))
    try {
      const events = await grpc.stream(Provider.method.listResource, {
        typeName: TYPE,
        config: msgpack({ name_prefix: 'web' }),
        limit: 100n,
      })
      assert.deepEqual(
        events.map((e) => [decode(e.identity?.identityData?.msgpack ?? new Uint8Array()), e.displayName, e.resourceObject]),
        [
          [{ id: '1' }, 'web-1', undefined],
          [{ id: '3' }, 'web-2', undefined],
        ],
      )
      const full = await grpc.stream(Provider.method.listResource, {
        typeName: TYPE,
        config: msgpack({ name_prefix: null }),
        includeResourceObject: true,
        limit: 2n,
      })
      assert.equal(full.length, 2, 'the limit')
      const object = decode(full[0]?.resourceObject?.msgpack ?? new Uint8Array()) as Record<string, unknown>
      assert.equal(object.id, '1')
      assert.equal(object.name, 'web-1')
      assert.equal(object.paid, true, 'as an import finds it: defaults for what the service cannot tell')
    } finally {
      await close()
    }
  })

  test('a failed listing ends the stream with an error event; an unknown type too', async () => {
    const failing = listable()
    const broken: AnyResource = {
      ...failing,
      list: {
        ...(failing.list as NonNullable<AnyResource['list']>),
        ids: async () => {
          throw new Error('the service is down')
        },
      },
    }
    const { grpc, close } = await serve(broken, boxes('a'))
    try {
      const [event, ...rest] = await grpc.stream(Provider.method.listResource, { typeName: TYPE, config: msgpack({}), limit: 10n })
      assert.deepEqual(rest, [])
      assert.match(errors(event?.diagnostic ?? []).join(), /Listing box failed|the service is down/)
      const [unknown] = await grpc.stream(Provider.method.listResource, { typeName: 'provider_nothing', config: msgpack({}), limit: 10n })
      assert.match(errors(unknown?.diagnostic ?? []).join(), /no list resource type provider_nothing/)
    } finally {
      await close()
    }
  })

  test('a client that cancels mid-stream stops the listing: nothing after is read', async () => {
    const plain = boxDefinition.read
    // The read of box 2 lasts until the server has seen the client's cancellation (its signal aborts).
    const read: AnyResource['read'] = async (ctx) => {
      ctx.client.call(`read ${ctx.id}`)
      if (ctx.id === '2' && !ctx.signal.aborted)
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
      return plain(ctx)
    }
    const service = boxes('a', 'b', 'c')
    const { server, grpc, close } = await serve(listable(read), service)
    try {
      const cancel = new AbortController()
      const seen: string[] = []
      const streaming = grpc.stream(
        Provider.method.listResource,
        // b is filtered out, so no send stops the listing after it: only the call's cancellation can.
        { typeName: TYPE, config: msgpack({ name_prefix: 'a' }), limit: 10n },
        {
          signal: cancel.signal,
          onMessage: (event) => {
            seen.push(event.displayName)
            cancel.abort() // as Terraform does at its limit, or when its user interrupts
          },
        },
      )
      await assert.rejects(streaming, (e: unknown) => e instanceof GrpcError && e.code === GrpcStatus.CANCELLED)
      assert.deepEqual(seen, ['a'])
      await server.drain() // the handler has returned
      assert.deepEqual(
        service.calls.filter((c) => c.startsWith('read ')),
        ['read 1', 'read 2'],
        'box 3 is never read',
      )
    } finally {
      await close()
    }
  })
})
