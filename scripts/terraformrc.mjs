// The Terraform CLI configuration that installs provider/provider from a filesystem mirror and nothing
// else from the network, written by both `npm run build` (dist/terraformrc) and `npm run release`.

/** The registry hosts that spell `provider/provider` in full: Terraform's default and OpenTofu's. */
export const REGISTRY_HOSTS = ['registry.terraform.io', 'registry.opentofu.org']

/** @param {string} mirror absolute path of the mirror  @param {string} path where the file is written  @param {string} what */
export function terraformrc(mirror, path, what) {
  const addresses = `[${REGISTRY_HOSTS.map((host) => `"${host}/provider/provider"`).join(', ')}]`
  return `# Terraform and OpenTofu CLI configuration: installs provider/provider from ${what}, with no network.
# Use it with TF_CLI_CONFIG_FILE=${path}
# The mirror's path is absolute: a copy of these files elsewhere needs it changed to the copy's.
provider_installation {
  filesystem_mirror {
    path    = "${mirror}"
    include = ${addresses}
  }
  direct {
    exclude = ${addresses}
  }
}
`
}
