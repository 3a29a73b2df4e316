// The test box (box-resource.ts) served by the Terraform front end over gRPC in-process and configured as
// Terraform 1.16 configures a provider, for the handlers' tests; and a box's state object as Terraform holds it.
import assert from 'node:assert/strict'
import { encode } from '@msgpack/msgpack'
import type { AnyProvider } from '../../../src/core/index.js'
import { createGrpcServer } from '../../../src/grpc/index.js'
import { Diagnostic_Severity, Provider } from '../../../src/terraform/gen/tfplugin6.10_pb.js'
import { silentLogger } from '../../../src/terraform/log.js'
import { providerService } from '../../../src/terraform/provider-service.js'
import { type BoxService, boxDefinition } from '../box-resource.js'
import { connectGrpcTestClient, type GrpcTestClient } from './grpc-client.js'

/** A client connected to a provider serving the box against `service`, configured; `close` ends both. */
export async function serveBox(service: BoxService): Promise<{ readonly grpc: GrpcTestClient; close(): Promise<void> }> {
  const provider: AnyProvider = { description: 'Test.', attributes: {}, environment: {}, configure: () => service }
  const server = createGrpcServer()
  providerService({ provider, resources: [boxDefinition], dataSources: [] }, { log: silentLogger, userAgent: 'test' }).attach(server)
  const grpc = connectGrpcTestClient({ address: `127.0.0.1:${await server.listen('127.0.0.1', 0)}` })
  const configured = await grpc.call(Provider.method.configureProvider, { terraformVersion: '1.16.4', config: { msgpack: encode({}) } })
  assert.deepEqual(
    configured.diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR),
    [],
  )
  return {
    grpc,
    async close() {
      await grpc.close()
      await server.close()
    },
  }
}

/** A box's state object as Terraform holds it, with `values` over the defaults. */
export function boxState(id: string, values: Record<string, unknown> = {}) {
  return {
    id,
    name: 'alpha',
    coupon: null,
    size: 20,
    label: 'box-label',
    power: null,
    paid: true,
    status: 'Active',
    serial: `S-${id}`,
    timeouts: null,
    ...values,
  }
}
