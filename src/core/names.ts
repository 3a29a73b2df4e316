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

/** The names that are neither plain snake_case nor plain camelCase, or do not survive snake → camel → snake and camel → snake → camel; a definition must have none. */
export function nonRoundTripping(names: readonly string[]): string[] {
  return names.filter((name) => {
    if (!/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/.test(name) && !/^[a-z][a-zA-Z0-9]*$/.test(name)) return true
    const snake = toSnake(name)
    const camel = toCamel(snake)
    return toSnake(camel) !== snake || toCamel(toSnake(camel)) !== camel
  })
}

/** Every attribute name of a definition, nested objects and lists of objects included. */
export function attributeNames(attributes: Attributes): string[] {
  return Object.entries(attributes).flatMap(([name, attribute]) => {
    const type = attribute.type.kind === 'list' ? attribute.type.element : attribute.type
    return [name, ...(type.kind === 'object' ? attributeNames(type.attributes) : [])]
  })
}
