// Our own stand-in for Terraform's "oss" state backend module (see ../../README.md).
module github.com/hashicorp/terraform/internal/backend/remote-state/oss

go 1.24
