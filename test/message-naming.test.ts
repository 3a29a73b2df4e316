// How the Pulumi front end words core's messages: an operation's timeout is the engine's customTimeouts
// option (a Pulumi resource has no `timeouts` input), where Terraform's is the resource's timeouts block.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { error } from '../src/core/index.js'
import { dataSources, providerDefinition, resources } from '../src/resources/index.js'
import { TypeIndex } from '../src/server/index.js'
import { TERRAFORM_NAMING } from '../src/terraform/views.js'
import { PULUMI_NAMING } from '../src/pulumi/tokens.js'

test("a timeout's advice names the customTimeouts option under Pulumi, as each SDK spells it, the timeouts block under Terraform", () => {
  const registry = { provider: providerDefinition, resources, dataSources }
  const advice = error('Timed out', 'The create timeout is 15s: if the service needs longer, raise timeouts.create.')
  const [pulumi] = new TypeIndex(registry, PULUMI_NAMING).render([advice])
  assert.equal(
    pulumi?.detail,
    'The create timeout is 15s: if the service needs longer, raise customTimeouts.create (custom_timeouts in Python, pulumi.Timeouts in Go).',
  )
  const [terraform] = new TypeIndex(registry, TERRAFORM_NAMING).render([advice])
  assert.equal(terraform?.detail, advice.detail)
})
