# An extra disk on a Lite Pro VM. Its size can only grow; growing it orders an upgrade of the difference.
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

resource "provider_lite_pro_keypair" "example" {
  name = "pro-example-key"
}

resource "provider_lite_pro_vm" "example" {
  product_id = 201            # from provider_lite_pro_products
  select_os  = "Ubuntu-22.04" # from provider_lite_pro_os_list
  keypair_id = provider_lite_pro_keypair.example.keypair_id
  cycle      = "m" # billed monthly
  vm_name    = "pro-example"

  ssh_and_console_user = "deployer"
  # Write-only (Terraform 1.11+, OpenTofu 1.11+): sent with the order, never stored in the
  # plan or the state. Pass a real one from an ephemeral variable (TF_VAR_...), not a literal.
  # Raising the version replaces the VM with the new password: the service cannot change one.
  # Older clients set `console_password` instead, which the state keeps (marked sensitive).
  console_password_wo         = "Example2024pass"
  console_password_wo_version = 1
}

resource "provider_lite_pro_disk" "example" {
  product_id      = 61 # from provider_lite_pro_disk_products
  cycle           = "m"
  lite_account_id = provider_lite_pro_vm.example.id
  service_name    = "pro-data" # 6-16 characters
  size            = 30         # GB, at least 30
}

output "disk_id" {
  value = provider_lite_pro_disk.example.id
}
