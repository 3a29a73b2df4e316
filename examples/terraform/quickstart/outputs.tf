# What the quickstart prints after `terraform apply` (and `terraform output`).

output "vm_id" {
  description = "The VM's account id; use it to import the VM elsewhere."
  value       = provider_lite_vm.quickstart.id
}

output "vm_status" {
  description = "Active once the order is provisioned; apply waits for it."
  value       = provider_lite_vm.quickstart.status
}

output "vm_osname" {
  description = "The operating system that was installed."
  value       = provider_lite_vm.quickstart.osname
}

output "vm_region" {
  description = "Where the VM runs."
  value       = provider_lite_vm.quickstart.region
}

output "product_name" {
  description = "The product the VM was ordered with."
  value       = local.product.name
}

output "keypair_id" {
  description = "The keypair installed on the VM."
  value       = provider_lite_keypair.quickstart.keypair_id
}
