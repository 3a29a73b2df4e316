# The Metal server products; each product's raw JSON holds its stock and prices.
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

data "provider_baremetal_products" "all" {}

output "products" {
  value = { for p in data.provider_baremetal_products.all.products : p.product_id => p.name }
}
