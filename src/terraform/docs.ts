/**
 * Registry-format reference docs (the layout tfplugindocs produces), rendered from the definitions:
 * the provider page, one page per resource, per data source and per ephemeral resource. Pure text in, text out, so the
 * output is deterministic and a test can tell when the committed docs/ is stale.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import {
  type AnyDataSource,
  type AnyMethod,
  type AnyProvider,
  type AnyResource,
  type Attribute,
  type Attributes,
  isInput,
  resourceIdentity,
  string,
  toCamel,
  toPascal,
  toSnake,
  type TypeSpec,
  writeOnlyInputs,
} from '../core/index.js'
import { actionType } from './views.js'
import { TYPE_PREFIX } from './schema.js'

const PROVIDER_NAME = 'provider'
const PROVIDER_SOURCE = 'provider/provider'

export interface DocsRegistry {
  readonly provider: AnyProvider
  readonly resources: readonly AnyResource[]
  readonly dataSources: readonly AnyDataSource[]
}

export type ExampleKind = 'provider' | 'resources' | 'data-sources' | 'ephemeral-resources' | 'actions'

export interface DocsOptions {
  /** The example configuration of a page (`typeName` is empty for the provider), or null when there is none. */
  exampleOf(kind: ExampleKind, typeName: string): string | null
  /** The registry's sidebar group of a type, e.g. "Metal"; empty for none. */
  subcategoryOf(name: string): string
}

/** One generated file, its path relative to the docs folder, with `/` separators. */
export interface DocFile {
  readonly path: string
  readonly content: string
}

/** Every page, in a fixed order. */
export function renderDocs(registry: DocsRegistry, options: DocsOptions): DocFile[] {
  const names = new TerraformNames(registry)
  const files: DocFile[] = [{ path: 'index.md', content: renderProvider(registry, options, names) }]
  for (const resource of [...registry.resources].sort(byName)) {
    files.push({ path: `resources/${resource.name}.md`, content: renderResource(resource, options, names) })
  }
  for (const dataSource of [...registry.dataSources].sort(byName)) {
    files.push({ path: `data-sources/${dataSource.name}.md`, content: renderDataSource(dataSource, options, names) })
  }
  for (const dataSource of ephemerals(registry)) {
    files.push({ path: `ephemeral-resources/${dataSource.name}.md`, content: renderEphemeral(dataSource, options, names) })
  }
  for (const { resource, method, typeName } of actionsOf(registry)) {
    files.push({ path: actionPage(typeName), content: renderAction(resource, method, typeName, options, names) })
  }
  return files
}

/** Every resource method as the Terraform action it is served as, sorted by type name. */
export function actionsOf(registry: Pick<DocsRegistry, 'resources'>): { resource: AnyResource; method: AnyMethod; typeName: string }[] {
  return registry.resources
    .flatMap((resource) =>
      (resource.methods ?? []).map((method) => ({ resource, method, typeName: actionType(`${TYPE_PREFIX}${resource.name}`, method) })),
    )
    .sort((a, b) => (a.typeName < b.typeName ? -1 : a.typeName > b.typeName ? 1 : 0))
}

/** The page of an action, relative to docs/: `actions/lite_vm_power.md` for `provider_lite_vm_power`. */
export function actionPage(typeName: string): string {
  return `actions/${typeName.slice(TYPE_PREFIX.length)}.md`
}

/** Where the example of a page lives under the examples folder. */
export function examplePath(kind: ExampleKind, typeName: string): string {
  return kind === 'provider' ? 'provider/main.tf' : `${kind}/${typeName}/main.tf`
}

/** Reads examples from a folder laid out as `examplePath` says. */
export function examplesFrom(dir: string): DocsOptions['exampleOf'] {
  return (kind, typeName) => {
    const path = join(dir, examplePath(kind, typeName))
    return existsSync(path) ? readFileSync(path, 'utf8') : null
  }
}

/**
 * Writes the files under `dir` and deletes every other file there (and folders left empty), so a
 * removed resource loses its page. Returns the paths written and deleted, relative to `dir`.
 */
export function writeDocs(dir: string, files: readonly DocFile[]): { written: string[]; deleted: string[] } {
  const wanted = new Set(files.map((f) => f.path))
  const deleted = generatedFiles(dir).filter((path) => !wanted.has(path))
  for (const path of deleted) rmSync(join(dir, path))
  removeEmptyFolders(dir)
  return { written: writeChanged(dir, files), deleted }
}

/** Writes each file whose content differs from what `dir` holds; answers the paths written. */
export function writeChanged(dir: string, files: readonly DocFile[]): string[] {
  const written: string[] = []
  for (const file of files) {
    const path = join(dir, file.path)
    if (existsSync(path) && readFileSync(path, 'utf8') === file.content) continue
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, file.content)
    written.push(file.path)
  }
  return written
}

/** Pages of docs/ written by hand (the design, the emulator's API, the Pulumi SDKs): never generated, never deleted by writeDocs. */
export const HAND_WRITTEN_DOCS: ReadonlySet<string> = new Set(['design.md', 'emulator-api.md', 'pulumi-sdks.md'])
/** Folders of docs/ written by hand: the guides. */
export const HAND_WRITTEN_DIRS: readonly string[] = ['guides/']

export function isHandWritten(path: string): boolean {
  return HAND_WRITTEN_DOCS.has(path) || HAND_WRITTEN_DIRS.some((dir) => path.startsWith(dir))
}

/** The files under `dir` that the generator owns: all but the hand-written pages. */
export function generatedFiles(dir: string): string[] {
  return listFiles(dir).filter((path) => !isHandWritten(path))
}

/** Every file under `dir`, relative, with `/` separators, sorted; empty when `dir` does not exist. */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  const out: string[] = []
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) walk(path)
      else out.push(relative(dir, path).split('\\').join('/'))
    }
  }
  walk(dir)
  return out.sort()
}

function removeEmptyFolders(folder: string): void {
  if (!existsSync(folder)) return
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue
    const path = join(folder, entry.name)
    removeEmptyFolders(path)
    if (readdirSync(path).length === 0) rmdirSync(path)
  }
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** The lookups also served as ephemeral resources (AnyDataSource.ephemeral), by name. */
function ephemerals(registry: DocsRegistry): AnyDataSource[] {
  return registry.dataSources.filter((d) => d.ephemeral === true).sort(byName)
}

/**
 * Descriptions are written once for both front ends, so they may name things the Pulumi way
 * (`rebuildOs`, `BaremetalKeypair`, `baremetalProducts`); on a Terraform page they read as Terraform.
 */
class TerraformNames {
  private readonly types = new Map<string, string>()

  constructor(registry: DocsRegistry) {
    for (const resource of registry.resources) this.types.set(toPascal(resource.name), `${TYPE_PREFIX}${resource.name}`)
    for (const dataSource of registry.dataSources) this.types.set(toCamel(dataSource.name), `${TYPE_PREFIX}${dataSource.name}`)
  }

  text(text: string): string {
    return text.replace(/`([^`\n]+)`/g, (whole, code: string) => {
      const type = this.types.get(code)
      if (type) return `\`${type}\``
      return /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/.test(code) ? `\`${toSnake(code)}\`` : whole
    })
  }
}

// ---------------------------------------------------------------------------------------------
// Pages

function frontMatter(pageTitle: string, subcategory: string, description: string): string {
  const lines = ['---', `page_title: ${JSON.stringify(pageTitle)}`, `subcategory: ${JSON.stringify(subcategory)}`, 'description: |-']
  for (const line of description.split('\n')) lines.push(`  ${line}`)
  lines.push('---', '')
  return lines.join('\n')
}

function exampleSection(example: string | null): string[] {
  if (example === null) return []
  return ['## Example Usage', '', '```terraform', example.trimEnd(), '```', '']
}

function renderProvider(registry: DocsRegistry, options: DocsOptions, names: TerraformNames): string {
  const { provider } = registry
  const envRows = Object.entries(provider.environment)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .sort(([a], [b]) => (a < b ? -1 : 1))
  const lines = [
    frontMatter(`Provider: ${PROVIDER_NAME}`, '', provider.description),
    `# ${PROVIDER_NAME} Provider`,
    '',
    names.text(provider.description),
    '',
    `Declare it in \`required_providers\` with \`source = "${PROVIDER_SOURCE}"\`, as in the example below.`,
    '',
    ...exampleSection(options.exampleOf('provider', '')),
    '## Authentication',
    '',
    'Every request carries the API key. Set it, and the API base URL, in the provider block or, better, in the environment, ' +
      'so that no secret is written in a configuration or kept in version control. A value in the provider block wins over ' +
      'the environment.',
    '',
    '| Argument | Environment variable |',
    '|---|---|',
    ...envRows.map(([name, variable]) => `| \`${toSnake(name)}\` | \`${variable}\` |`),
    '',
    '```shell',
    ...envRows.map(([name, variable]) => `export ${variable}="<${toSnake(name)}>"`),
    'terraform plan',
    '```',
    '',
    '## Timeouts and paid orders',
    '',
    '- Every create, and every upgrade (a larger package, disk or storage size), places a **paid order** with the service. ' +
      'Each resource page says which arguments place an order when changed, and which force a replacement (a new order).',
    '- With `pay_with_credit_card = false` the order is still placed, but its invoice is left **unpaid**: the resource stays ' +
      '`Pending` until the invoice is paid in the portal, and the apply ends without waiting for it.',
    '- After an order, the provider waits until the resource is `Active`, bounded by the `timeouts` block of the resource ' +
      '(each resource page lists its defaults). A wait that fails or times out **keeps the resource in state, untainted**, and ' +
      'the apply says so in a warning: a tainted resource would be replaced, which is a second paid order. The next ' +
      '`terraform plan` shows an update that resumes the wait, and `terraform apply` waits for the order instead of placing ' +
      'another; `terraform destroy` cancels it.',
    '- Changes are made in a fixed order within one apply, each recorded in state as soon as it succeeds.',
    '',
    '## Resources, data sources, ephemeral resources and actions',
    '',
    ...index(registry, options),
    ...schemaSection(provider.attributes, names, { environment: provider.environment }),
  ]
  return finish(lines)
}

function index(registry: DocsRegistry, options: DocsOptions): string[] {
  const groups = new Map<string, string[]>()
  const add = (name: string, line: string) => {
    const group = options.subcategoryOf(name) || 'Other'
    groups.set(group, [...(groups.get(group) ?? []), line])
  }
  for (const r of [...registry.resources].sort(byName)) add(r.name, `- Resource [\`${TYPE_PREFIX}${r.name}\`](resources/${r.name}.md)`)
  for (const d of [...registry.dataSources].sort(byName))
    add(d.name, `- Data source [\`${TYPE_PREFIX}${d.name}\`](data-sources/${d.name}.md)`)
  for (const d of ephemerals(registry)) add(d.name, `- Ephemeral resource [\`${TYPE_PREFIX}${d.name}\`](ephemeral-resources/${d.name}.md)`)
  for (const { resource, typeName } of actionsOf(registry)) add(resource.name, `- Action [\`${typeName}\`](${actionPage(typeName)})`)
  const lines: string[] = []
  for (const [group, entries] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    lines.push(`### ${group}`, '', ...entries, '')
  }
  return lines
}

function renderResource(resource: AnyResource, options: DocsOptions, names: TerraformNames): string {
  const typeName = `${TYPE_PREFIX}${resource.name}`
  const timeouts = Object.entries(resource.timeouts).filter((entry): entry is [string, string] => typeof entry[1] === 'string')
  const lines = [
    frontMatter(`${typeName} Resource - ${PROVIDER_NAME}`, options.subcategoryOf(resource.name), names.text(resource.description)),
    `# ${typeName} (Resource)`,
    '',
    names.text(resource.description),
    '',
    ...(resource.deleteBeforeReplace
      ? ['~> **Replacement:** the old object is deleted before its replacement is created (its name or target must be unique).', '']
      : []),
    ...exampleSection(options.exampleOf('resources', typeName)),
    ...schemaSection(resource.attributes, names, { resource: true, timeouts: timeouts.map(([name]) => name) }),
    ...timeoutsSection(timeouts),
    ...importSection(resource, typeName),
    ...listSection(resource, typeName),
    ...movedSection(resource, typeName, names),
    ...actionsSection(resource, typeName),
  ]
  return finish(lines)
}

function actionsSection(resource: AnyResource, typeName: string): string[] {
  const actions = actionsOf({ resources: [resource] })
  if (actions.length === 0) return []
  return [
    '## Actions',
    '',
    `One-shot operations on an existing \`${typeName}\`, run on demand (Terraform 1.14 and later):`,
    '',
    ...actions.map(({ method, typeName: action }) => `- [\`${action}\`](../${actionPage(action)}): ${firstSentence(method.description)}`),
    '',
  ]
}

function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/)
  return end < 0 ? text : text.slice(0, end + 1)
}

function renderAction(resource: AnyResource, method: AnyMethod, typeName: string, options: DocsOptions, names: TerraformNames): string {
  const resourceType = `${TYPE_PREFIX}${resource.name}`
  const description = names.text(method.description)
  const lines = [
    frontMatter(`${typeName} Action - ${PROVIDER_NAME}`, options.subcategoryOf(resource.name), description),
    `# ${typeName} (Action)`,
    '',
    description,
    '',
    ...(method.destructive ? [`~> **Destructive:** invoking it cannot be undone. Terraform warns when it plans this action.`, ''] : []),
    `An action runs the \`${method.name}\` operation once on an existing [\`${resourceType}\`](../resources/${resource.name}.md), ` +
      'named by its id, and changes nothing in state: the next refresh reads what it changed. Actions need Terraform 1.14 ' +
      'or later (OpenTofu has none); with other versions the provider works as before, without its actions.',
    '',
    'Invoke it on its own:',
    '',
    '```shell',
    `terraform apply -invoke=action.${typeName}.example`,
    '```',
    '',
    `or run it from a resource's \`lifecycle\` block with an \`action_trigger\` (\`events = [after_create, after_update]\`). ` +
      'Triggered after a change of its object that failed, it is not run (an error says so): the next apply makes the change ' +
      'again and runs it then. Progress is shown as it goes. An interrupt (Ctrl-C) stops the provider waiting, not the ' +
      'operation at the service.' +
      (resource.changesRefused === undefined
        ? ''
        : ` The service runs it only on an object it takes changes of: on a \`${resourceType}\` that stays Pending ` +
          'until its invoice is paid (ordered with `pay_with_credit_card = false`, and triggered `after_create`), or is Suspended, ' +
          'the error says so and what to do: pay the invoice in the portal, then run the action with `terraform apply -invoke`.'),
    '',
    ...exampleSection(options.exampleOf('actions', typeName)),
    ...schemaSection(
      {
        id: string({ required: true, description: `The id of the \`${resourceType}\` to act on, e.g. \`${resourceType}.example.id\`.` }),
        ...method.inputs,
      },
      names,
      {},
    ).map((line) => (line === '## Schema' ? '## Schema (the `config` block)' : line)),
    '## Timeout',
    '',
    `The operation may take up to \`${method.timeout}\`; the invocation fails after that.`,
    '',
  ]
  return finish(lines)
}

function movedSection(resource: AnyResource, typeName: string, names: TerraformNames): string[] {
  return (resource.movesFrom ?? []).flatMap(({ from, when }) => [
    `## Moving from ${TYPE_PREFIX}${from}`,
    '',
    `An object managed as \`${TYPE_PREFIX}${from}\` can move to this type ${names.text(when)}. Rename the resource block ` +
      'and add a `moved` block (Terraform 1.8 and later); no order is placed and nothing is replaced.',
    '',
    '```terraform',
    'moved {',
    `  from = ${TYPE_PREFIX}${from}.example`,
    `  to   = ${typeName}.example`,
    '}',
    '```',
    '',
  ])
}

function renderDataSource(dataSource: AnyDataSource, options: DocsOptions, names: TerraformNames): string {
  const typeName = `${TYPE_PREFIX}${dataSource.name}`
  const lines = [
    frontMatter(`${typeName} Data Source - ${PROVIDER_NAME}`, options.subcategoryOf(dataSource.name), names.text(dataSource.description)),
    `# ${typeName} (Data Source)`,
    '',
    names.text(dataSource.description),
    '',
    ...(dataSource.ephemeral
      ? [
          `-> **Not stored:** this data source keeps what it reads in the state. With Terraform 1.10 or OpenTofu 1.11 and later, ` +
            `the ephemeral resource [\`${typeName}\`](../ephemeral-resources/${dataSource.name}.md) gives the same values ` +
            'for one run without writing them to the state or a plan.',
          '',
        ]
      : []),
    ...exampleSection(options.exampleOf('data-sources', typeName)),
    ...schemaSection(dataSource.attributes, names, {}),
  ]
  return finish(lines)
}

/** The page of a lookup served as an ephemeral resource: when it is opened, where its values may go, the older form. */
function renderEphemeral(dataSource: AnyDataSource, options: DocsOptions, names: TerraformNames): string {
  const typeName = `${TYPE_PREFIX}${dataSource.name}`
  const lines = [
    frontMatter(
      `${typeName} Ephemeral Resource - ${PROVIDER_NAME}`,
      options.subcategoryOf(dataSource.name),
      names.text(dataSource.description),
    ),
    `# ${typeName} (Ephemeral Resource)`,
    '',
    names.text(dataSource.description),
    '',
    'An ephemeral resource (Terraform 1.10 and later, OpenTofu 1.11 and later) is opened during every plan and every apply: ' +
      'it reads the service then, and its values exist for that run only, never written to the state or a plan file. ' +
      'Reference them where the client accepts ephemeral values: provider blocks, write-only arguments, provisioner and ' +
      '`connection` blocks, locals, and ephemeral variables and outputs of modules. Opening it only reads, so it leaves ' +
      'nothing to close at the service.',
    '',
    `For older clients, the data source [\`${typeName}\`](../data-sources/${dataSource.name}.md) reads the same values ` +
      'and keeps them in the state.',
    '',
    ...exampleSection(options.exampleOf('ephemeral-resources', typeName)),
    ...schemaSection(dataSource.attributes, names, {}),
  ]
  return finish(lines)
}

function timeoutsSection(timeouts: readonly [string, string][]): string[] {
  if (timeouts.length === 0) return []
  return [
    '## Timeouts',
    '',
    'How long each operation may wait for the service, set in a `timeouts` block. Defaults:',
    '',
    ...timeouts.map(([name, value]) => `- \`${name}\`: \`${value}\``),
    '',
    '```terraform',
    'timeouts {',
    ...timeouts.map(([name, value]) => `  ${name} = "${value}"`),
    '}',
    '```',
    '',
    'A wait that runs out keeps the resource in state; the next apply resumes waiting instead of ordering again.',
    'Each timeout bounds the whole operation: an update that changes several things in turn shares one',
    '`update` between them, and an order that would be left under a tenth of it is not sent (the',
    'error says so; what was changed before is recorded, and the next apply goes on from there).',
    '',
  ]
}

/** The list resource (Terraform 1.14 and later): a `list` block with every filter, for `terraform query`. */
function listSection(resource: AnyResource, typeName: string): string[] {
  const filters = Object.entries(resource.list?.filters ?? {})
  if (!resource.list) return []
  const width = Math.max(0, ...filters.map(([name]) => toSnake(name).length))
  return [
    '## List',
    '',
    'With Terraform 1.14 and later, a `list` block in a `.tfquery.hcl` file finds the objects of this type that the API key can see, ' +
      'with their identity, for `terraform query`; `terraform query -generate-config-out=generated.tf` writes their configuration ' +
      'and import blocks ([importing guide](../guides/importing.md)).',
    '',
    '```terraform',
    `list "${typeName}" "all" {`,
    '  provider = provider',
    ...(filters.length > 0
      ? ['  config {', ...filters.map(([name, f]) => `    ${toSnake(name).padEnd(width)} = ${JSON.stringify(f.example)}`), '  }']
      : []),
    '}',
    '```',
    '',
    ...(filters.length > 0
      ? [
          'Every filter is optional; those set must all match:',
          '',
          ...filters.map(([name, f]) => `- \`${toSnake(name)}\`: ${f.description}`),
          '',
        ]
      : []),
  ]
}

/** The resource identity (Terraform 1.12 and later): its attributes, and an `import` block by identity. */
function identitySection(resource: AnyResource, typeName: string): string[] {
  const identity = resourceIdentity(resource)
  const values = identity.of(resource.importId.example) ?? {}
  const width = Math.max(...identity.parts.map((part) => toSnake(part.name).length))
  return [
    'With an `import` block by resource identity (Terraform 1.12 and later), which Terraform keeps beside the state:',
    '',
    '```terraform',
    'import {',
    `  to = ${typeName}.example`,
    '  identity = {',
    ...identity.parts.map((part) => `    ${toSnake(part.name).padEnd(width)} = ${JSON.stringify(values[part.name] ?? null)}`),
    '  }',
    '}',
    '```',
    '',
    ...identity.parts.map(
      (part) => `- \`${toSnake(part.name)}\` (${part.type === 'int64' ? 'Number' : 'String'}, required): ${part.description}`,
    ),
    '',
  ]
}

function importSection(resource: AnyResource, typeName: string): string[] {
  const { format, example } = resource.importId
  const lines = [
    '## Import',
    '',
    `Import an existing object by its id, written \`${format}\`, for example \`${example}\`.`,
    '',
    'With the `terraform import` command:',
    '',
    '```shell',
    `terraform import ${typeName}.example ${example}`,
    '```',
    '',
    'With an `import` block (Terraform 1.5 and later):',
    '',
    '```terraform',
    'import {',
    `  to = ${typeName}.example`,
    `  id = ${JSON.stringify(example)}`,
    '}',
    '```',
    '',
    ...identitySection(resource, typeName),
    ...unchosenFormSection(resource),
  ]
  const unrecoverable = [...(resource.unrecoverable ?? [])]
  const current = [...(resource.importReadsCurrent ?? [])]
  if (current.length > 0) {
    lines.push(
      `An import reads ${words(current.map((name) => `\`${toSnake(name)}\``))} as the object has it now, which an in-place ` +
        'action may have changed since its create (a rebuild changes the OS). Give that value in the configuration you import ' +
        'into: the value the object was created with is a change of a create-only argument, which replaces the object (the ' +
        'plan warns, naming the value that keeps it).',
      '',
    )
  }
  if (unrecoverable.length === 0) {
    lines.push('Every argument is read back from the API, so an import is followed by an empty plan.', '')
    return lines
  }
  // Core's import starts from each input's default (importBase in src/core/apply.ts), else null.
  const afterImport = (name: string) => {
    const fallback = resource.attributes[name]?.default
    return fallback === undefined ? 'null' : `\`${JSON.stringify(fallback)}\`, its default`
  }
  lines.push(
    'The API cannot return these arguments, so an import cannot read them: after an import, one with a default holds its default and the others are null:',
    '',
    ...unrecoverable.map((name) => `- \`${toSnake(name)}\`: ${afterImport(name)}`),
    '',
    'Setting one of them in the configuration afterwards never forces a replacement.',
  )
  const actions = unrecoverable.filter((name) => resource.attributes[name]?.action)
  if (actions.length > 0) {
    lines.push(
      '',
      `Leave ${words(actions.map((name) => `\`${toSnake(name)}\``))} out of the configuration you import into: ` +
        'setting an in-place action after an import is a change, so it fires the action once (the plan warns).',
    )
  }
  lines.push('')
  return lines
}

/** What an import leaves out of the state until the configuration gives a form (withoutUnchosenForm). */
function unchosenFormSection(resource: AnyResource): string[] {
  return writeOnlyInputs(resource.attributes).flatMap(({ name, spec }) => {
    const kept = [spec.alternative, ...(spec.echoes ?? [])].map((field) => `\`${field}\``)
    return [
      `An import never reads ${words(kept)} into the state, so that no plan holds the value, not even a saved one: ` +
        `give it in the configuration as \`${name}\` with \`${spec.version}\`, or as \`${spec.alternative}\`, and the ` +
        'plan records it, replacing nothing ([importing guide](../guides/importing.md#a-vms-console-password)).',
      '',
    ]
  })
}

/** `a`, `a and b`, `a, b and c`. */
function words(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

function finish(lines: readonly string[]): string {
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`
}

// ---------------------------------------------------------------------------------------------
// Schema

interface SchemaContext {
  /** Adds the `id` attribute core gives every resource. */
  readonly resource?: boolean
  /** The configurable timeouts, documented as the `timeouts` block. */
  readonly timeouts?: readonly string[]
  readonly environment?: Partial<Record<string, string>>
}

interface Nested {
  readonly anchor: string
  readonly title: string
  readonly attributes: Attributes
}

function schemaSection(attributes: Attributes, names: TerraformNames, context: SchemaContext): string[] {
  const nested: Nested[] = []
  const lines = ['## Schema', '', ...groups(attributes, names, context, '', nested, '###')]
  // Breadth first, as a reader scrolls: each nested schema may add its own below.
  for (let i = 0; i < nested.length; i++) {
    const item = nested[i]!
    lines.push(`<a id="${item.anchor}"></a>`, `### Nested Schema for \`${item.title}\``, '')
    lines.push(...groups(item.attributes, names, {}, item.title, nested, ''))
  }
  return lines
}

/** The Required / Optional / Read-Only lists; `heading` '###' at the top level, plain labels when nested. */
function groups(
  attributes: Attributes,
  names: TerraformNames,
  context: SchemaContext,
  parent: string,
  nested: Nested[],
  heading: string,
): string[] {
  const required: string[] = []
  const optional: string[] = []
  const readOnly: string[] = []
  const entries = Object.entries(attributes).sort(([a], [b]) => (toSnake(a) < toSnake(b) ? -1 : 1))
  const pairs = writeOnlyInputs(attributes)
  for (const [name, attribute] of entries) {
    // What the write-only form of a value changes for its alternative and echoes (core/write-only.ts).
    const partnerNotes = pairs.flatMap(({ name: wo, spec }) => {
      if (spec.alternative === name) {
        const rule = spec.required ? 'Set one of the two' : 'The two conflict'
        return [`Kept in the state, marked sensitive; \`${toSnake(wo)}\` is its write-only form, never stored. ${rule}`]
      }
      return (spec.echoes ?? []).includes(name) ? [`Null while \`${toSnake(wo)}\` is used`] : []
    })
    const line = attributeLine(name, attribute, names, parent, nested, context.environment?.[name], partnerNotes)
    if (attribute.required) required.push(line)
    else if (isInput(attribute)) optional.push(line)
    else readOnly.push(line)
  }
  if (context.timeouts && context.timeouts.length > 0) {
    const anchor = 'nestedblock--timeouts'
    optional.push(
      `- \`timeouts\` (Block, Optional) How long operations may take; see [Timeouts](#timeouts). (see [below for nested schema](#${anchor}))`,
    )
    optional.sort()
    nested.push({
      anchor,
      title: 'timeouts',
      attributes: Object.fromEntries(
        context.timeouts.map((t) => [t, string({ optional: true, description: `How long the ${t} may take, e.g. "30m" or "1h".` })]),
      ),
    })
  }
  if (context.resource) readOnly.unshift('- `id` (String) The id of the object at the service.')
  const out: string[] = []
  const group = (label: string, items: string[]) => {
    if (items.length === 0) return
    out.push(heading ? `${heading} ${label}` : `${label}:`, '', ...items, '')
  }
  group('Required', required)
  group('Optional', optional)
  group('Read-Only', readOnly)
  return out
}

function attributeLine(
  name: string,
  attribute: Attribute,
  names: TerraformNames,
  parent: string,
  nested: Nested[],
  environment: string | undefined,
  partnerNotes: readonly string[] = [],
): string {
  const tfName = toSnake(name)
  const flags = [typeLabel(attribute.type), ...(attribute.sensitive ? ['Sensitive'] : []), ...(attribute.writeOnly ? ['Write-only'] : [])]
  const notes: string[] = [names.text(attribute.description), ...partnerNotes]
  if (attribute.writeOnly) {
    const { alternative, version } = attribute.writeOnly
    notes.push(
      `**Write-only**: never stored in the plan or the state (Terraform 1.11 or later, OpenTofu 1.11 or later). Requires \`${toSnake(version)}\`; conflicts with \`${toSnake(alternative)}\``,
    )
  }
  if (attribute.createOnly) notes.push('**Forces replacement** when changed.')
  if (attribute.orderTime) {
    notes.push(
      '**Order-time**: read only when an order is placed. A change on an existing object deletes nothing and orders nothing: ' +
        'the new value is recorded, with a warning, and takes effect at the next order; `terraform apply -replace=<address>` ' +
        'orders the object again with it ([order-time inputs](../guides/exactly-once-orders.md#order-time-inputs)).',
    )
  }
  if (attribute.action) {
    notes.push(
      '**In-place action**: the call is made only when the value changes to a non-empty value; setting the same value or removing it calls nothing.',
    )
  }
  if (attribute.growOnly) notes.push('**Grow-only**: a smaller value is rejected at plan time.')
  if (attribute.default !== undefined) notes.push(`Defaults to \`${JSON.stringify(attribute.default)}\`.`)
  // An action's value is what was last sent (or, after an import, what the object had): never read back.
  if (attribute.action) notes.push('When removed, the last value stays in state.')
  else if (isInput(attribute) && attribute.computed && attribute.default === undefined)
    notes.push('When unset, the value the service reports is kept.')
  const rules = (attribute.validate ?? []).map((v) => v.rule)
  if (rules.length > 0) notes.push(`Constraints: ${rules.join('; ')}.`)
  if (environment) notes.push(`Environment variable: \`${environment}\`.`)
  const object = objectOf(attribute.type)
  if (object) {
    const path = parent ? `${parent}.${tfName}` : tfName
    const anchor = `nestedatt--${path.split('.').join('--')}`
    nested.push({ anchor, title: path, attributes: object.attributes })
    notes.push(`(see [below for nested schema](#${anchor}))`)
  }
  return `- \`${tfName}\` (${flags.join(', ')}) ${notes.map(sentence).join(' ')}`
}

/** Ends a note with a full stop unless it already ends a sentence or is a link. */
function sentence(note: string): string {
  const trimmed = note.trim()
  return /[.!?)]$/.test(trimmed) || trimmed === '' ? trimmed : `${trimmed}.`
}

function objectOf(type: TypeSpec): { attributes: Attributes } | null {
  if (type.kind === 'object') return type
  if ((type.kind === 'list' || type.kind === 'map') && type.element.kind === 'object') return type.element
  return null
}

function typeLabel(type: TypeSpec): string {
  switch (type.kind) {
    case 'string':
      return 'String'
    case 'int64':
    case 'float':
      return 'Number'
    case 'bool':
      return 'Boolean'
    case 'object':
      return 'Attributes'
    case 'list':
      return type.element.kind === 'object' ? 'Attributes List' : `List of ${typeLabel(type.element)}`
    case 'map':
      return type.element.kind === 'object' ? 'Attributes Map' : `Map of ${typeLabel(type.element)}`
  }
}
