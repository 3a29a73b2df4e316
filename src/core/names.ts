/** Name derivation between the spec's canonical names and each front end's case. */
import type { Attributes } from './attributes.js'

/** `product_id` → `productId`; camelCase input is returned unchanged. */
export function toCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
}

/** `productId` → `product_id`; snake_case input is returned unchanged. */
export function toSnake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

/** `lite_vm` → `LiteVm`, `baremetal_additional_ip` → `BaremetalAdditionalIp`. */
export function toPascal(name: string): string {
  const camel = toCamel(toSnake(name))
  return camel.charAt(0).toUpperCase() + camel.slice(1)
}

/** A canonical name: words of lower-case letters and digits joined by single underscores, starting with a letter. */
const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/

/**
 * What is wrong with each name as a canonical name, one message per bad name, each naming it (`what`
 * says what it names: "attribute", "list filter"). A definition writes every name once, in
 * snake_case, and each client's spelling is derived from it (Terraform's as written, Pulumi's by
 * toCamel), so a name must also come back from its camelCase spelling unchanged.
 */
export function nameProblems(what: string, names: readonly string[]): string[] {
  return names.flatMap((name) => {
    if (!SNAKE_CASE.test(name)) {
      return [
        `${what} ${name} is not snake_case: a definition names everything in snake_case (lower-case words of letters and digits ` +
          "joined by single underscores, e.g. product_id), and each client's spelling is derived from that one name",
      ]
    }
    const back = toSnake(toCamel(name))
    return back === name ? [] : [`${what} ${name} does not survive the snake/camel round trip (${toCamel(name)} reads back as ${back})`]
  })
}

/** Every attribute name of a definition, nested objects and lists of objects included. */
export function attributeNames(attributes: Attributes): string[] {
  return Object.entries(attributes).flatMap(([name, attribute]) => {
    const type = attribute.type.kind === 'list' ? attribute.type.element : attribute.type
    return [name, ...(type.kind === 'object' ? attributeNames(type.attributes) : [])]
  })
}
