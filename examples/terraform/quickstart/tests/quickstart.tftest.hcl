# `terraform test` (or `tofu test`) for the quickstart, run against the emulator
# with the same settings as an apply (PROVIDER_BASE_URL, PROVIDER_API_KEY): the
# run applies for real there, its assertions read what the service answered, and
# the test destroys everything it made when it ends. Against the real service it
# would place real orders: point tests at the emulator.

run "orders_an_active_vm" {
  assert {
    condition     = output.vm_status == "Active"
    error_message = "The VM should be Active once the apply returns."
  }

  assert {
    condition     = output.vm_osname == data.provider_lite_os_list.for_product.oss[0].name
    error_message = "The VM should run the first OS its product offers."
  }

  assert {
    condition     = provider_lite_vm.quickstart.keypair_id == provider_lite_keypair.quickstart.keypair_id
    error_message = "The VM should carry the keypair made for it."
  }
}
