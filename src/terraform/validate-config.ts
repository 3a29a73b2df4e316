/**
 * ValidateProviderConfig, ValidateResourceConfig, ValidateDataResourceConfig and
 * ValidateEphemeralResourceConfig: values as written, before any plan.
 */
import { type AnyDataSource, validateConfig } from '../core/index.js'
import type { TfContext } from './context.js'
import { decode } from './dynamic-value.js'
import type {
  Diagnostic as TfDiagnostic,
  DynamicValue,
  ValidateDataResourceConfig_Request,
  ValidateEphemeralResourceConfig_Request,
  ValidateProviderConfig_Request,
  ValidateResourceConfig_Request,
} from './gen/tfplugin6.10_pb.js'
import type { TfView } from './schema.js'

/** Each of the four responses holds diagnostics only. */
type Reply = { readonly diagnostics: TfDiagnostic[] }

export function validateProviderConfig(ctx: TfContext, request: ValidateProviderConfig_Request): Reply {
  try {
    const config = decode(ctx.views.provider, request.config) ?? {}
    return { diagnostics: ctx.diagnostics(ctx.server.validateConfig(config)) }
  } catch (thrown) {
    return { diagnostics: ctx.failed('ValidateProviderConfig', thrown) }
  }
}

export function validateResourceConfig(ctx: TfContext, request: ValidateResourceConfig_Request): Reply {
  try {
    const { definition, view } = ctx.resource(request.typeName)
    const config = decode(view, request.config) ?? {}
    const hasTimeouts = Object.keys(definition.timeouts).length > 0
    const issues = validateConfig(definition.attributes, config, {
      requireInputs: false, // Terraform reports missing required arguments itself
      // Absent from clients older than protocol 6.8, which would store a write-only value in state.
      writeOnlyAllowed: request.clientCapabilities?.writeOnlyAttributesAllowed === true,
      ...(hasTimeouts ? { timeouts: definition.timeouts } : {}),
    })
    return { diagnostics: ctx.diagnostics(issues) }
  } catch (thrown) {
    return { diagnostics: ctx.failed('ValidateResourceConfig', thrown) }
  }
}

export function validateDataResourceConfig(ctx: TfContext, request: ValidateDataResourceConfig_Request): Reply {
  return validateLookup(ctx, 'ValidateDataResourceConfig', () => ctx.dataSource(request.typeName), request.config)
}

/** An ephemeral resource opens a lookup (AnyDataSource.ephemeral): its configuration is the lookup's. */
export function validateEphemeralResourceConfig(ctx: TfContext, request: ValidateEphemeralResourceConfig_Request): Reply {
  return validateLookup(ctx, 'ValidateEphemeralResourceConfig', () => ctx.ephemeral(request.typeName), request.config)
}

/** A lookup's configuration as written, whether Terraform reads it as a data source or opens it. */
function validateLookup(
  ctx: TfContext,
  rpc: string,
  lookup: () => { definition: AnyDataSource; view: TfView },
  raw: DynamicValue | undefined,
): Reply {
  try {
    const { definition, view } = lookup()
    const config = decode(view, raw) ?? {}
    return { diagnostics: ctx.diagnostics(validateConfig(definition.attributes, config, { requireInputs: false })) }
  } catch (thrown) {
    return { diagnostics: ctx.failed(rpc, thrown) }
  }
}
