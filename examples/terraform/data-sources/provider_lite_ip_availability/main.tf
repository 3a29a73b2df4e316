# Whether a Lite product can be ordered now (an IP address is free for it).
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

data "provider_lite_ip_availability" "example" {
  product_id = 101
}

output "available" {
  value = data.provider_lite_ip_availability.example.available
}
