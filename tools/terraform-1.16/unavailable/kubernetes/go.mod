// Our own stand-in for Terraform's "kubernetes" state backend module (see ../../README.md).
module github.com/hashicorp/terraform/internal/backend/remote-state/kubernetes

go 1.24
