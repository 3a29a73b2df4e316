# Reinstalls a Metal server with another OS on demand. Destructive: it wipes the server.
# Run it with: terraform apply -invoke=action.provider_baremetal_rebuild.example (Terraform 1.14 and later).
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

resource "provider_baremetal_keypair" "example" {
  name = "metal-example-key"
}

resource "provider_baremetal" "example" {
  product_id = 301 # from provider_baremetal_products
  cycle      = "m"
  keypair_id = provider_baremetal_keypair.example.keypair_id
  label      = "metal-example"
  select_os  = "ubuntu-22"
}

action "provider_baremetal_rebuild" "example" {
  config {
    id = provider_baremetal.example.id
    os = "debian-12" # from provider_baremetal_rebuild_os_list
  }
}
