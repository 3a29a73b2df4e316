# The account's OpenVPN profile, handed to a command without being stored in the state or a plan.
# Terraform 1.10 or OpenTofu 1.11 and later; older clients use the data source of the same name.
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

# Opened (read from the service) during every plan and apply; its values exist for that run only.
ephemeral "provider_baremetal_openvpn" "vpn" {}

# Installs the profile for your VPN client when this resource is created: the command gets it in its
# environment, and Terraform hides the command's output because that environment holds an ephemeral value.
resource "terraform_data" "vpn_profile" {
  provisioner "local-exec" {
    command = "umask 077 && printf '%s' \"$OPENVPN_PROFILE\" > client.ovpn"
    environment = {
      OPENVPN_PROFILE = ephemeral.provider_baremetal_openvpn.vpn.config
    }
  }
}
