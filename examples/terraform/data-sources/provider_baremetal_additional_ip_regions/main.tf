# The regions an additional IP can be ordered in.
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

data "provider_baremetal_additional_ip_regions" "all" {}

output "regions" {
  value = data.provider_baremetal_additional_ip_regions.all.regions
}
