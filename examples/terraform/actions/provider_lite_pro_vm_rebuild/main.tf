# Reinstalls a Lite Pro VM with another OS on demand. Destructive: it wipes the disk.
# Run it with: terraform apply -invoke=action.provider_lite_pro_vm_rebuild.example (Terraform 1.14 and later).
terraform {
  # Actions came with Terraform 1.14.
  required_version = ">= 1.14"

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
  cycle      = "m"
  vm_name    = "pro-example"

  ssh_and_console_user = "deployer"
  # A real password goes in console_password_wo (with console_password_wo_version) from an ephemeral
  # variable, which keeps it out of state and saved plans; a variable that is only sensitive does not.
  console_password = "Example2024pass"
}

action "provider_lite_pro_vm_rebuild" "example" {
  config {
    id = provider_lite_pro_vm.example.id
    os = "Rocky-9" # a name from provider_lite_pro_os_list
  }
}
