// Command terraform-provider-peer is a minimal Terraform provider of our own, the Go peer that the
// benchmarks measure our provider against. It is built on terraform-plugin-framework, the plugin stack
// HashiCorp's own providers use, and its one resource, peer_resource, behaves like the null
// provider's null_resource (whose v3 releases the module proxy does not serve): it stores its inputs,
// gets a random id, and is replaced when its triggers change. Address: registry.terraform.io/provider/peer.
package main

import (
	"context"
	"flag"
	"log"
	"math/rand/v2"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
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

func (peerProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {}

func (peerProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

func (peerProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return peerResource{} }}
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
