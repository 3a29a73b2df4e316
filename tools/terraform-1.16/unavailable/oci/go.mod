// Our own stand-in for Terraform's "oci" state backend module (see ../../README.md).
module github.com/hashicorp/terraform/internal/backend/remote-state/oci

go 1.24
