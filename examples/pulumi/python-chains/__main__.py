"""Metal, Lite and Lite Pro in one stack, each from a catalog lookup to its dependants.

The Python twin of ../typescript-chains (same resources, names and stack configuration; see there).
Every create places a paid order: point provider:baseUrl at the emulator (`npm run emulator`) to try it.
"""
import pulumi
import pulumi_provider as provider

config = pulumi.Config()
console_password = config.require_secret("consolePassword")


# Every account outputs its account id as an integer (`account_id`), the type the inputs naming an
# account take, so each link below is a plain reference.
def setting(key: str, default=None):
    value = config.get(key)
    return default if value is None else value


# ---- Metal ----
# baremetal_products' result is secret as a whole (its raw answer); the product id is no secret.
metal_product = pulumi.Output.unsecret(provider.baremetal_products_output().products.apply(lambda p: p[0].product_id))
ip_product = provider.baremetal_additional_ip_products_output().products.apply(lambda p: p[0].product_id)
metal_key = provider.BaremetalKeypair("metal-key", name="chains-metal-key")
server = provider.Baremetal(
    "server",
    product_id=metal_product,
    cycle="m",
    keypair_id=metal_key.keypair_id,
    select_os=setting("selectOs"),
    label=setting("label", "chains-web-01"),
    power_state=setting("powerState"),
    reset_trigger=setting("resetTrigger"),
    rebuild_os=setting("rebuildOs"),
)
ip = provider.BaremetalAdditionalIp("ip", product_id=ip_product, cycle="m")
assignment = provider.BaremetalAdditionalIpAssignment("ip-to-server", additional_ip_id=ip.account_id, metal_account_id=server.account_id)
storage = provider.BaremetalElasticStorage(
    "storage", product_id=501, cycle="m", storage_name="chains-metal-data", metal_account_id=server.account_id, size=100
)

# ---- Lite ----
lite_product = provider.lite_products_output().products.apply(lambda p: p[0].product_id)
lite_os = provider.lite_os_list_output(product_id=lite_product).oss.apply(lambda o: o[0].name)
lite_key = provider.LiteKeypair("lite-key", name="chains-lite-key")
vm = provider.LiteVm(
    "vm",
    product_id=lite_product,
    select_os=lite_os,
    keypair_id=lite_key.keypair_id,
    cycle="m",
    vm_name=setting("vmName", "chains-vm-01"),
    ssh_and_console_user="deployer",
    console_password=console_password,
)
disk = provider.LiteDisk("disk", product_id=60, cycle="m", lite_account_id=vm.account_id, service_name="chains-disk")
snapshot = provider.LiteSnapshot("snapshot", lite_account_id=vm.account_id, cycle="m", name="chains-snap")
restored = provider.LiteVmFromSnapshot(
    "restored",
    snapshot_id=snapshot.account_id,
    product_id=lite_product,
    cycle="m",
    keypair_id=lite_key.keypair_id,
    name="chains-restored",
    ssh_and_console_user="deployer",
    console_password=console_password,
)

# ---- Lite Pro ----
pro_product = provider.lite_pro_products_output().products.apply(lambda p: p[0].product_id)
pro_os = provider.lite_pro_os_list_output(product_id=pro_product).oss.apply(lambda o: o[0].name)
pro_key = provider.LiteProKeypair("pro-key", name=setting("proKeyName", "chains-pro-key"))
pro_vm = provider.LiteProVm(
    "pro-vm",
    product_id=pro_product,
    select_os=pro_os,
    keypair_id=pro_key.keypair_id,
    cycle="m",
    vm_name="chains-pro-vm",
    ssh_and_console_user="deployer",
    console_password=console_password,
)
pro_disk = provider.LiteProDisk("pro-disk", product_id=61, cycle="m", lite_account_id=pro_vm.account_id, service_name="chains-pro-disk")
pro_snapshot = provider.LiteProSnapshot("pro-snapshot", lite_account_id=pro_vm.account_id, cycle="m", name="chains-pro-snap")

pulumi.export("serverId", server.id)
pulumi.export("serverIp", server.ip_address)
pulumi.export("assignmentId", assignment.id)
pulumi.export("storageStatus", storage.status)
pulumi.export("vmId", vm.id)
pulumi.export("diskStatus", disk.status)
pulumi.export("restoredId", restored.id)
pulumi.export("proVmId", pro_vm.id)
pulumi.export("proDiskStatus", pro_disk.status)
pulumi.export("proSnapshotId", pro_snapshot.id)
pulumi.export("metalPrivateKey", metal_key.private_key)  # secret
pulumi.export("litePrivateKey", lite_key.private_key)  # secret
pulumi.export("serverRaw", server.raw)  # secret
