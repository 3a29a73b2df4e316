# The Lite Pro extra-disk products: ids for provider_lite_pro_disk, size bounds and prices.
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

data "provider_lite_pro_disk_products" "all" {}

output "disk_products" {
  value = { for p in data.provider_lite_pro_disk_products.all.products : p.product_id => "${p.name} (${p.min_size}-${p.max_size} GB)" }
}
