/**
 * A resource core refuses (the box without the update step that covers `paid`, so a change of it would be
 * dropped): scripts/check-definitions.mjs must refuse to load it. Nothing imports it; the test bundles it.
 */
import { defineResource } from '../../src/core/definition.js'
import { boxDefinition } from './box-resource.js'

export const resources = [
  defineResource({
    ...boxDefinition,
    name: 'broken_box',
    updates: boxDefinition.updates.filter((step) => !step.attributes.includes('paid')),
  }),
]
