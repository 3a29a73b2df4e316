// The Terraform CLI configuration that installs provider/provider from a filesystem mirror and nothing
// else from the network, written by both `npm run build` (dist/terraformrc) and `npm run release`.

/** @param {string} mirror absolute path of the mirror  @param {string} path where the file is written  @param {string} what */
export function terraformrc(mirror, path, what) {
  return `# Terraform CLI configuration: installs provider/provider from ${what}, with no network.
# Use it with TF_CLI_CONFIG_FILE=${path}
provider_installation {
  filesystem_mirror {
    path    = "${mirror}"
    include = ["registry.terraform.io/provider/provider"]
  }
  direct {
    exclude = ["registry.terraform.io/provider/provider"]
  }
}
`
}
