// Command terraform-provider-peer is a minimal Terraform provider of our own, the Go peer that the
// benchmarks measure our provider against. It is built on terraform-plugin-framework, the plugin stack
// HashiCorp's own providers use, and its one resource, peer_resource, behaves like the null
// provider's null_resource (whose v3 releases the module proxy does not serve): it stores its inputs,
// gets a random id, and is replaced when its triggers change. Its second, peer_keypair, has the schema and
// identity of our provider_lite_keypair and makes what the service would answer (a key pair of the same
// sizes) on the spot, so that Terraform's own work per instance is the same for both and only the
// providers differ. Address: registry.terraform.io/provider/peer.
package main

import (
	"context"
	crand "crypto/rand"
	"encoding/base64"
	"flag"
	"log"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

const address = "registry.terraform.io/provider/peer"

func main() {
	debug := flag.Bool("debug", false, "run with support for debuggers (prints TF_REATTACH_PROVIDERS)")
	flag.Parse()
	err := providerserver.Serve(context.Background(), func() provider.Provider { return peerProvider{} },
		providerserver.ServeOpts{Address: address, Debug: *debug})
	if err != nil {
		log.Fatal(err)
	}
}

type peerProvider struct{}

func (peerProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "peer"
}

func (peerProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (peerProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (peerProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

func (peerProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return peerResource{} },
		func() resource.Resource { return peerKeypair{} },
	}
}

type peerResource struct{}

type peerModel struct {
	ID       types.String `tfsdk:"id"`
	Triggers types.Map    `tfsdk:"triggers"`
}

func (peerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_resource"
}

func (peerResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Stores its triggers and does nothing else, like null_resource.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "A random number, set at create.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"triggers": schema.MapAttribute{
				ElementType:   types.StringType,
				Optional:      true,
				Description:   "Any change replaces the resource.",
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
		},
	}
}

func (peerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m peerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = types.StringValue(strconv.FormatUint(rand.Uint64(), 10))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Read keeps the state as it is: there is nothing outside Terraform to read.
func (peerResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

// Update is not planned in practice (triggers force a replacement, id keeps its state): it stores the plan.
func (peerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m peerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (peerResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// peerKeypair has provider_lite_keypair's schema and identity: a name in; a string id, a numeric
// keypair_id, a public key and a sensitive private key out, each kept from state once known.
type peerKeypair struct{}

type peerKeypairModel struct {
	ID         types.String `tfsdk:"id"`
	KeypairID  types.Int64  `tfsdk:"keypair_id"`
	Name       types.String `tfsdk:"name"`
	PrivateKey types.String `tfsdk:"private_key"`
	PublicKey  types.String `tfsdk:"public_key"`
}

type peerKeypairIdentity struct {
	KeypairID types.Int64 `tfsdk:"keypair_id"`
}

func (peerKeypair) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_keypair"
}

func (peerKeypair) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	kept := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		Description: "A key pair made on the spot, shaped as provider_lite_keypair's state.",
		Attributes: map[string]schema.Attribute{
			"id":         schema.StringAttribute{Computed: true, Description: "keypair_id as a string.", PlanModifiers: kept},
			"keypair_id": schema.Int64Attribute{Computed: true, Description: "A random number, set at create.", PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{
				Required:      true,
				Description:   "Any change replaces the key pair.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"private_key": schema.StringAttribute{Computed: true, Sensitive: true, Description: "An OpenSSH private key's size of random text.", PlanModifiers: kept},
			"public_key":  schema.StringAttribute{Computed: true, Description: "An OpenSSH ed25519 public key's size of random text.", PlanModifiers: kept},
		},
	}
}

func (peerKeypair) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"keypair_id": identityschema.Int64Attribute{RequiredForImport: true},
		},
	}
}

// randomText is base64 of n random bytes.
func randomText(n int) string {
	b := make([]byte, n)
	_, _ = crand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// wrapped breaks text into lines of 70 characters, as an OpenSSH private key file has them.
func wrapped(text string) string {
	var out strings.Builder
	for len(text) > 70 {
		out.WriteString(text[:70] + "\n")
		text = text[70:]
	}
	out.WriteString(text + "\n")
	return out.String()
}

func (peerKeypair) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m peerKeypairModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := rand.Int64N(1 << 31)
	m.ID = types.StringValue(strconv.FormatInt(id, 10))
	m.KeypairID = types.Int64Value(id)
	// The sizes of an ed25519 key in OpenSSH's formats, as the service answers them.
	m.PrivateKey = types.StringValue("-----BEGIN OPENSSH PRIVATE KEY-----\n" + wrapped(randomText(231+len(m.Name.ValueString()))) + "-----END OPENSSH PRIVATE KEY-----\n")
	m.PublicKey = types.StringValue("ssh-ed25519 " + randomText(51) + " " + m.Name.ValueString())
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, peerKeypairIdentity{KeypairID: m.KeypairID})...)
}

// Read keeps the state as it is: there is nothing outside Terraform to read.
func (peerKeypair) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

// Update is never planned: the one configurable attribute replaces the key pair.
func (peerKeypair) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m peerKeypairModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (peerKeypair) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
