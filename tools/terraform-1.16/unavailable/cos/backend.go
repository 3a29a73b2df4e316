// Package cos is our own stand-in for Terraform's "cos" state backend, written for this wrapper.
// Terraform keeps that backend in a separate Go module whose source for this Terraform version
// the module proxy does not serve, so this build has no "cos" backend: configuring it fails with
// a clear error. The local, http, inmem, remote and cloud backends are Terraform's own.
package cos

import (
	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/configs/configschema"
	"github.com/hashicorp/terraform/internal/states/statemgr"
	"github.com/hashicorp/terraform/internal/tfdiags"
	"github.com/zclconf/go-cty/cty"
)

// New returns a backend that refuses every use.
func New() backend.Backend { return unavailable{} }

type unavailable struct{}

func diags() tfdiags.Diagnostics {
	var d tfdiags.Diagnostics
	return d.Append(tfdiags.Sourceless(tfdiags.Error, "Backend \"cos\" not available",
		"This Terraform was built by provider-iac's tools/ without the \"cos\" state backend."))
}

func (unavailable) ConfigSchema() *configschema.Block { return &configschema.Block{} }

func (unavailable) PrepareConfig(v cty.Value) (cty.Value, tfdiags.Diagnostics) { return v, diags() }

func (unavailable) Configure(cty.Value) tfdiags.Diagnostics { return diags() }

func (unavailable) StateMgr(string) (statemgr.Full, tfdiags.Diagnostics) { return nil, diags() }

func (unavailable) DeleteWorkspace(string, bool) tfdiags.Diagnostics { return diags() }

func (unavailable) Workspaces() ([]string, tfdiags.Diagnostics) { return nil, diags() }
