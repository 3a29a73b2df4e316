// Our own stand-in for Terraform's "pg" state backend module (see ../../README.md).
module github.com/hashicorp/terraform/internal/backend/remote-state/pg

go 1.24
