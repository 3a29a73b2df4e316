# The account's OpenVPN profile for out-of-band access to Metal servers.
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

data "provider_baremetal_openvpn" "example" {}

# Write it where your VPN client can read it, e.g. with local_sensitive_file.
output "openvpn_config" {
  value     = data.provider_baremetal_openvpn.example.config
  sensitive = true
}
