terraform {
  required_providers {
    provider = {
      source = "provider/provider"
    }
  }
}

# Leave api_key and base_url out and set PROVIDER_API_KEY and PROVIDER_BASE_URL instead,
# so no secret is written in the configuration.
provider "provider" {
  # base_url      = "https://api.example.invalid/v1"
  request_timeout = "30s" # one API request
  poll_interval   = "5s"  # first interval between status checks while an order is provisioned
}
