# An SSH keypair in the Metal pool. Without public_key the service generates the pair;
# set public_key = file("~/.ssh/id_ed25519.pub") to import an existing key instead.
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

resource "provider_baremetal_keypair" "example" {
  name = "metal-example-key"
}

output "keypair_id" {
  value = provider_baremetal_keypair.example.keypair_id
}

# Returned once, at create, and kept in state: treat the state as a secret.
output "private_key" {
  value     = provider_baremetal_keypair.example.private_key
  sensitive = true
}
