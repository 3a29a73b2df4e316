// The three product families in one stack, each from a catalog lookup to its dependants:
//   Metal:    baremetalProducts -> keypair -> server -> additional IP + assignment, elastic storage
//   Lite:     liteProducts, liteOsList -> keypair -> VM -> disk, snapshot -> VM restored from it
//   Lite Pro: liteProProducts, liteProOsList -> keypair -> VM -> disk, snapshot
// Every create places a paid order; point provider:baseUrl at the emulator (`npm run emulator`) to try it.
//
// Stack configuration (all optional but the password):
//   consolePassword (secret)          the console password of the VMs
//   selectOs                          the Metal server's OS (a change replaces the server)
//   label, powerState, resetTrigger, rebuildOs   the Metal server's in-place settings
//   vmName                            the Lite VM's name (changed in place)
//   proKeyName                        the Lite Pro keypair's name (a change replaces the keypair, and
//                                     the VM then takes the new one in place)
// The same program is written in Python (../python-chains), Go (../go-chains) and YAML; test/pulumi-cli
// runs each under the real CLI.
import * as pulumi from "@pulumi/pulumi";
import * as provider from "@provider/pulumi";

const config = new pulumi.Config();
const consolePassword = config.requireSecret("consolePassword");
// Every account outputs its account id as a number (`accountId`), the type the inputs naming an
// account take, so each link below is a plain reference.

// ---- Metal ----------------------------------------------------------------------------------
// baremetalProducts' result is secret as a whole (its raw answer); the product id is no secret.
const metalProduct = pulumi.unsecret(provider.baremetalProductsOutput().products.apply((list) => list[0]!.productId));
const ipProduct = provider.baremetalAdditionalIpProductsOutput().products.apply((list) => list[0]!.productId);
const metalKey = new provider.BaremetalKeypair("metal-key", { name: "chains-metal-key" });
const server = new provider.Baremetal("server", {
    productId: metalProduct,
    cycle: "m",
    keypairId: metalKey.keypairId,
    selectOs: config.get("selectOs"),
    label: config.get("label") ?? "chains-web-01",
    powerState: config.get("powerState"),
    resetTrigger: config.get("resetTrigger"),
    rebuildOs: config.get("rebuildOs"),
});
const ip = new provider.BaremetalAdditionalIp("ip", { productId: ipProduct, cycle: "m" });
const assignment = new provider.BaremetalAdditionalIpAssignment("ip-to-server", {
    additionalIpId: ip.accountId,
    metalAccountId: server.accountId,
});
const storage = new provider.BaremetalElasticStorage("storage", {
    productId: 501,
    cycle: "m",
    storageName: "chains-metal-data",
    metalAccountId: server.accountId,
    size: 100,
});

// ---- Lite -----------------------------------------------------------------------------------
const liteProduct = provider.liteProductsOutput().products.apply((list) => list[0]!.productId);
const liteOs = provider.liteOsListOutput({ productId: liteProduct }).oss.apply((oss) => oss[0]!.name);
const liteKey = new provider.LiteKeypair("lite-key", { name: "chains-lite-key" });
const vm = new provider.LiteVm("vm", {
    productId: liteProduct,
    selectOs: liteOs,
    keypairId: liteKey.keypairId,
    cycle: "m",
    vmName: config.get("vmName") ?? "chains-vm-01",
    sshAndConsoleUser: "deployer",
    consolePassword,
});
const disk = new provider.LiteDisk("disk", { productId: 60, cycle: "m", liteAccountId: vm.accountId, serviceName: "chains-disk" });
const snapshot = new provider.LiteSnapshot("snapshot", { liteAccountId: vm.accountId, cycle: "m", name: "chains-snap" });
const restored = new provider.LiteVmFromSnapshot("restored", {
    snapshotId: snapshot.accountId,
    productId: liteProduct,
    cycle: "m",
    keypairId: liteKey.keypairId,
    name: "chains-restored",
    sshAndConsoleUser: "deployer",
    consolePassword,
});

// ---- Lite Pro -------------------------------------------------------------------------------
const proProduct = provider.liteProProductsOutput().products.apply((list) => list[0]!.productId);
const proOs = provider.liteProOsListOutput({ productId: proProduct }).oss.apply((oss) => oss[0]!.name);
const proKey = new provider.LiteProKeypair("pro-key", { name: config.get("proKeyName") ?? "chains-pro-key" });
const proVm = new provider.LiteProVm("pro-vm", {
    productId: proProduct,
    selectOs: proOs,
    keypairId: proKey.keypairId,
    cycle: "m",
    vmName: "chains-pro-vm",
    sshAndConsoleUser: "deployer",
    consolePassword,
});
const proDisk = new provider.LiteProDisk("pro-disk", { productId: 61, cycle: "m", liteAccountId: proVm.accountId, serviceName: "chains-pro-disk" });
const proSnapshot = new provider.LiteProSnapshot("pro-snapshot", { liteAccountId: proVm.accountId, cycle: "m", name: "chains-pro-snap" });

export const serverId = server.id;
export const serverIp = server.ipAddress;
export const additionalIp = ip.ipAddress;
export const assignmentId = assignment.id;
export const storageStatus = storage.status;
export const vmId = vm.id;
export const diskStatus = disk.status;
export const restoredId = restored.id;
export const proVmId = proVm.id;
export const proDiskStatus = proDisk.status;
export const proSnapshotId = proSnapshot.id;
export const metalPrivateKey = metalKey.privateKey; // secret
export const litePrivateKey = liteKey.privateKey; // secret
export const serverRaw = server.raw; // secret
