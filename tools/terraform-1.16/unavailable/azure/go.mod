// Our own stand-in for Terraform's "azure" state backend module (see ../../README.md).
module github.com/hashicorp/terraform/internal/backend/remote-state/azure

go 1.24
