# The OS templates a Lite Pro product can be installed with: values for a VM's select_os.
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

data "provider_lite_pro_os_list" "example" {
  product_id = 201
}

output "os_names" {
  value = data.provider_lite_pro_os_list.example.oss[*].name
}
