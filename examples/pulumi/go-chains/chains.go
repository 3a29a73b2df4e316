// Metal, Lite and Lite Pro in one stack, each from a catalog lookup to its dependants: the Go twin of
// ../typescript-chains (same resources, names and stack configuration; see there). Every create places
// a paid order: point provider:baseUrl at the emulator (`npm run emulator`) to try it.
package main

import (
	"github.com/provider/pulumi-provider/sdk/go/provider"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// optional is the stack setting `key`, or nil (the input left out) when it is not set.
func optional(cfg *config.Config, key string) pulumi.StringPtrInput {
	if value, err := cfg.Try(key); err == nil {
		return pulumi.StringPtr(value)
	}
	return nil
}

func withDefault(cfg *config.Config, key, fallback string) pulumi.String {
	if value, err := cfg.Try(key); err == nil {
		return pulumi.String(value)
	}
	return pulumi.String(fallback)
}

func chains(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	password := cfg.RequireSecret("consolePassword")

	// ---- Metal ----
	// BaremetalProducts holds each product's `raw` (a secret), which Go's plain invokes refuse, so its
	// output-versioned form is used; the others use it too, to chain into the resources.
	first := pulumi.Int(0)
	// The lookup's result is secret as a whole (its raw answer); the product id is no secret: unsecreted,
	// the server's productId is stored in clear and a change previews as one.
	metalProduct := pulumi.Unsecret(provider.BaremetalProductsOutput(ctx).Products().Index(first).ProductId()).(pulumi.IntOutput)
	ipProduct := provider.BaremetalAdditionalIpProductsOutput(ctx).Products().Index(first).ProductId()
	metalKey, err := provider.NewBaremetalKeypair(ctx, "metal-key", &provider.BaremetalKeypairArgs{Name: pulumi.String("chains-metal-key")})
	if err != nil {
		return err
	}
	server, err := provider.NewBaremetal(ctx, "server", &provider.BaremetalArgs{
		ProductId:    metalProduct,
		Cycle:        pulumi.String("m"),
		KeypairId:    metalKey.KeypairId,
		SelectOs:     optional(cfg, "selectOs"),
		Label:        withDefault(cfg, "label", "chains-web-01"),
		PowerState:   optional(cfg, "powerState"),
		ResetTrigger: optional(cfg, "resetTrigger"),
		RebuildOs:    optional(cfg, "rebuildOs"),
	})
	if err != nil {
		return err
	}
	ip, err := provider.NewBaremetalAdditionalIp(ctx, "ip", &provider.BaremetalAdditionalIpArgs{
		ProductId: ipProduct,
		Cycle:     pulumi.String("m"),
	})
	if err != nil {
		return err
	}
	assignment, err := provider.NewBaremetalAdditionalIpAssignment(ctx, "ip-to-server", &provider.BaremetalAdditionalIpAssignmentArgs{
		AdditionalIpId: ip.AccountId,
		MetalAccountId: server.AccountId,
	})
	if err != nil {
		return err
	}
	storage, err := provider.NewBaremetalElasticStorage(ctx, "storage", &provider.BaremetalElasticStorageArgs{
		ProductId:      pulumi.Int(501),
		Cycle:          pulumi.String("m"),
		StorageName:    pulumi.String("chains-metal-data"),
		MetalAccountId: server.AccountId,
		Size:           pulumi.IntPtr(100),
	})
	if err != nil {
		return err
	}

	// ---- Lite ----
	liteProduct := provider.LiteProductsOutput(ctx).Products().Index(first).ProductId()
	liteOs := provider.LiteOsListOutput(ctx, provider.LiteOsListOutputArgs{ProductId: liteProduct}).Oss().Index(first).Name()
	liteKey, err := provider.NewLiteKeypair(ctx, "lite-key", &provider.LiteKeypairArgs{Name: pulumi.String("chains-lite-key")})
	if err != nil {
		return err
	}
	vm, err := provider.NewLiteVm(ctx, "vm", &provider.LiteVmArgs{
		ProductId:         liteProduct,
		SelectOs:          liteOs,
		KeypairId:         liteKey.KeypairId,
		Cycle:             pulumi.String("m"),
		VmName:            withDefault(cfg, "vmName", "chains-vm-01"),
		SshAndConsoleUser: pulumi.String("deployer"),
		ConsolePassword:   password,
	})
	if err != nil {
		return err
	}
	disk, err := provider.NewLiteDisk(ctx, "disk", &provider.LiteDiskArgs{
		ProductId:     pulumi.Int(60),
		Cycle:         pulumi.String("m"),
		LiteAccountId: vm.AccountId,
		ServiceName:   pulumi.String("chains-disk"),
	})
	if err != nil {
		return err
	}
	snapshot, err := provider.NewLiteSnapshot(ctx, "snapshot", &provider.LiteSnapshotArgs{
		LiteAccountId: vm.AccountId,
		Cycle:         pulumi.String("m"),
		Name:          pulumi.String("chains-snap"),
	})
	if err != nil {
		return err
	}
	restored, err := provider.NewLiteVmFromSnapshot(ctx, "restored", &provider.LiteVmFromSnapshotArgs{
		SnapshotId:        snapshot.AccountId,
		ProductId:         liteProduct,
		Cycle:             pulumi.String("m"),
		KeypairId:         liteKey.KeypairId,
		Name:              pulumi.String("chains-restored"),
		SshAndConsoleUser: pulumi.String("deployer"),
		ConsolePassword:   password,
	})
	if err != nil {
		return err
	}

	// ---- Lite Pro ----
	proProduct := provider.LiteProProductsOutput(ctx).Products().Index(first).ProductId()
	proOs := provider.LiteProOsListOutput(ctx, provider.LiteProOsListOutputArgs{ProductId: proProduct}).Oss().Index(first).Name()
	proKey, err := provider.NewLiteProKeypair(ctx, "pro-key", &provider.LiteProKeypairArgs{Name: withDefault(cfg, "proKeyName", "chains-pro-key")})
	if err != nil {
		return err
	}
	proVM, err := provider.NewLiteProVm(ctx, "pro-vm", &provider.LiteProVmArgs{
		ProductId:         proProduct,
		SelectOs:          proOs,
		KeypairId:         proKey.KeypairId,
		Cycle:             pulumi.String("m"),
		VmName:            pulumi.String("chains-pro-vm"),
		SshAndConsoleUser: pulumi.String("deployer"),
		ConsolePassword:   password,
	})
	if err != nil {
		return err
	}
	proDisk, err := provider.NewLiteProDisk(ctx, "pro-disk", &provider.LiteProDiskArgs{
		ProductId:     pulumi.Int(61),
		Cycle:         pulumi.String("m"),
		LiteAccountId: proVM.AccountId,
		ServiceName:   pulumi.String("chains-pro-disk"),
	})
	if err != nil {
		return err
	}
	proSnapshot, err := provider.NewLiteProSnapshot(ctx, "pro-snapshot", &provider.LiteProSnapshotArgs{
		LiteAccountId: proVM.AccountId,
		Cycle:         pulumi.String("m"),
		Name:          pulumi.String("chains-pro-snap"),
	})
	if err != nil {
		return err
	}

	ctx.Export("serverId", server.ID())
	ctx.Export("serverIp", server.IpAddress)
	ctx.Export("assignmentId", assignment.ID())
	ctx.Export("storageStatus", storage.Status)
	ctx.Export("vmId", vm.ID())
	ctx.Export("diskStatus", disk.Status)
	ctx.Export("restoredId", restored.ID())
	ctx.Export("proVmId", proVM.ID())
	ctx.Export("proDiskStatus", proDisk.Status)
	ctx.Export("proSnapshotId", proSnapshot.ID())
	ctx.Export("metalPrivateKey", metalKey.PrivateKey) // secret
	ctx.Export("litePrivateKey", liteKey.PrivateKey)   // secret
	ctx.Export("serverRaw", server.Raw)                // secret
	return nil
}
