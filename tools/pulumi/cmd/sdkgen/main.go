// Command sdkgen writes the Pulumi SDK of one language for a package schema.
//
// `pulumi package gen-sdk` hands SDK generation to the language host of each language (its
// GeneratePackage RPC), and the nodejs, python and go language hosts cannot be built here (see
// tools/README.md). The hosts bind the schema with pkg/v3/codegen/schema and call Pulumi's own
// generators, pkg/v3/codegen/{nodejs,python,go}.GeneratePackage; this small program of ours does the
// same, using Pulumi's generators as a library, so the files it writes are Pulumi's generator output.
//
//	sdkgen --schema schema/schema.json --language nodejs|python|go --out <dir>
//	sdkgen --version
//
// The out directory is emptied first (a directory that holds .git is refused).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// version is the Pulumi version of the generators, set with -ldflags "-X main.version=...".
var version = "dev"

// noLoader is the schema loader: a package of ours references no other package's schema, and
// sdkgen runs no plugins to fetch one, so any such reference is an error that names it.
type noLoader struct{}

func refused(name string) error {
	return fmt.Errorf("sdkgen loads no other package schema (asked for %q)", name)
}

func (noLoader) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, refused(pkg)
}

func (noLoader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, refused(d.Name)
}

func (noLoader) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, refused(pkg)
}

func (noLoader) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return nil, refused(d.Name)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "sdkgen:", err)
		os.Exit(1)
	}
}

func run() error {
	schemaPath := flag.String("schema", "", "package schema JSON file")
	language := flag.String("language", "", "nodejs, python or go")
	out := flag.String("out", "", "directory to write the SDK into (emptied first)")
	showVersion := flag.Bool("version", false, "print the Pulumi version of the generators")
	flag.Parse()
	if *showVersion {
		fmt.Println(version)
		return nil
	}
	if *schemaPath == "" || *language == "" || *out == "" || flag.NArg() > 0 {
		flag.Usage()
		return errors.New("--schema, --language and --out are required")
	}

	data, err := os.ReadFile(*schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return fmt.Errorf("%s: %w", *schemaPath, err)
	}
	var loader schema.ReferenceLoader = noLoader{}
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{})
	if err != nil {
		return fmt.Errorf("binding %s: %w", *schemaPath, err)
	}
	for _, d := range diags {
		fmt.Fprintln(os.Stderr, d.Error())
	}
	if diags.HasErrors() {
		return fmt.Errorf("%s has errors", *schemaPath)
	}

	// The tool names are the ones the language hosts pass, so the generated headers match theirs.
	var files map[string][]byte
	switch *language {
	case "nodejs":
		files, err = nodejs.GeneratePackage("pulumi-language-nodejs", pkg, nil, nil, false, loader)
	case "python":
		files, err = python.GeneratePackage("pulumi-language-python", pkg, nil, loader)
	case "go":
		files, err = gogen.GeneratePackage("pulumi-language-go", pkg, nil)
	default:
		return fmt.Errorf("unknown language %q (nodejs, python or go)", *language)
	}
	if err != nil {
		return fmt.Errorf("generating the %s SDK: %w", *language, err)
	}
	return write(*out, files)
}

func write(dir string, files map[string][]byte) error {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return fmt.Errorf("refusing to empty %s: it holds .git", dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "sdkgen: wrote %d files to %s\n", len(names), dir)
	return nil
}
