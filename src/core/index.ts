// The framework-neutral core: attribute builders, the value model, validation, planning, the apply
// engine with checkpoints, diagnostics and name derivation. It knows no protocol and no HTTP, and
// imports nothing else of the project: `api/`, `resources/` and the front ends depend on it, never the reverse.
export * from './apply.js'
export * from './attributes.js'
export * from './definition.js'
export * from './definition-types.js'
export * from './diagnostics.js'
export * from './identity.js'
export * from './list.js'
export * from './names.js'
export * from './plan.js'
export * from './timeouts.js'
export * from './validate.js'
export * from './validators.js'
export * from './values.js'
export * from './write-only.js'
