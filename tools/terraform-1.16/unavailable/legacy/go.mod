// Our own empty stand-in for Terraform's internal/legacy module, which Terraform's main packages
// do not import (only its tests and the remote-state backends do); see ../../README.md.
module github.com/hashicorp/terraform/internal/legacy

go 1.24
