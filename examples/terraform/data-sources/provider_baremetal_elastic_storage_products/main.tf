# The elastic storage products, their size limits and their prices per GB per billing cycle.
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

data "provider_baremetal_elastic_storage_products" "all" {}

output "products" {
  value = { for p in data.provider_baremetal_elastic_storage_products.all.products : p.product_id => p.billing[*].price }
}
