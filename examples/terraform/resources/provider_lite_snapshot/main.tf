# A paid snapshot of a Lite VM. Every argument of a snapshot forces a new one when changed.
terraform {
  required_providers {
    provider = {
      source = "provider/provider"
    }
  }
}

# Credentials come from the environment: PROVIDER_API_KEY and PROVIDER_BASE_URL.
provider "provider" {
  # Quick polling suits the local emulator; against the real service remove it (default "5s").
  poll_interval = "100ms"
}

resource "provider_lite_keypair" "example" {
  name = "lite-example-key"
}

resource "provider_lite_vm" "example" {
  product_id = 101            # from provider_lite_products
  select_os  = "Ubuntu-22.04" # from provider_lite_os_list
  keypair_id = provider_lite_keypair.example.keypair_id
  cycle      = "m" # billed monthly
  vm_name    = "lite-example"

  ssh_and_console_user = "deployer"
  # Write-only (Terraform 1.11+, OpenTofu 1.11+): sent with the order, never stored in the
  # plan or the state. Pass a real one from an ephemeral variable (TF_VAR_...), not a literal.
  # Raising the version replaces the VM with the new password: the service cannot change one.
  # Older clients set `console_password` instead, which the state keeps (marked sensitive).
  console_password_wo         = "Example2024pass"
  console_password_wo_version = 1
}

resource "provider_lite_snapshot" "example" {
  lite_account_id = provider_lite_vm.example.id
  cycle           = "m"
  name            = "lite-backup" # 6-16 characters
}

output "snapshot_id" {
  value = provider_lite_snapshot.example.id
}
