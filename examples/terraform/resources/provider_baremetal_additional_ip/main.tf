# An additional (floating) IPv4 address. A change of its product, cycle or region orders a new one.
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

resource "provider_baremetal_additional_ip" "example" {
  product_id = 401 # from provider_baremetal_additional_ip_products
  cycle      = "m"
  region     = "wjv-1" # from provider_baremetal_additional_ip_regions
}

output "ip_address" {
  value = provider_baremetal_additional_ip.example.ip_address
}
