// Runs one step of an example program (examples/pulumi/go-chains/chains.go unless drivers.ts builds
// another: `program` and `programName` are in program.go, which it writes) as an Automation API inline
// program of the Go SDK: the pulumi-language-go host cannot be built here, so
// the SDK serves the program itself and runs the real `pulumi` CLI with --client. Called by
// test/support/pulumi/drivers.ts with one JSON argument: op (init, preview, up), expectNoChanges, workDir,
// stack, cliRoot (<root>/bin/pulumi) and events (a file for the engine events, in the CLI's event-log
// JSON shape). Exit status: 0 when the operation succeeded, 3 when it failed, else the driver broke.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
)

type request struct {
	Op              string `json:"op"`
	ExpectNoChanges bool   `json:"expectNoChanges"`
	WorkDir         string `json:"workDir"`
	Stack           string `json:"stack"`
	CliRoot         string `json:"cliRoot"`
	Events          string `json:"events"`
}

func main() {
	code, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "driver:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func run() (int, error) {
	if len(os.Args) != 2 {
		return 0, fmt.Errorf("usage: driver <request JSON>")
	}
	var req request
	if err := json.Unmarshal([]byte(os.Args[1]), &req); err != nil {
		return 0, err
	}
	ctx := context.Background()
	command, err := auto.NewPulumiCommand(&auto.PulumiCommandOptions{Root: req.CliRoot, SkipVersionCheck: true})
	if err != nil {
		return 0, err
	}
	project := workspace.Project{Name: programName, Runtime: workspace.NewProjectRuntimeInfo("go", nil), Main: req.WorkDir}
	stack, err := auto.UpsertStackInlineSource(ctx, req.Stack, programName, program, auto.WorkDir(req.WorkDir), auto.Pulumi(command), auto.Project(project))
	if err != nil {
		return 0, err
	}
	if req.Op == "init" {
		return 0, nil
	}
	file, err := os.Create(req.Events)
	if err != nil {
		return 0, err
	}
	defer file.Close()
	stream := make(chan events.EngineEvent)
	written := make(chan struct{})
	go func() {
		encoder := json.NewEncoder(file)
		for event := range stream {
			_ = encoder.Encode(event.EngineEvent)
		}
		close(written)
	}()
	switch req.Op {
	case "preview":
		options := []optpreview.Option{optpreview.EventStreams(stream), optpreview.ProgressStreams(os.Stdout), optpreview.ErrorProgressStreams(os.Stdout)}
		if req.ExpectNoChanges {
			options = append(options, optpreview.ExpectNoChanges())
		}
		_, err = stack.Preview(ctx, options...)
	case "up":
		options := []optup.Option{optup.EventStreams(stream), optup.ProgressStreams(os.Stdout), optup.ErrorProgressStreams(os.Stdout)}
		if req.ExpectNoChanges {
			options = append(options, optup.ExpectNoChanges())
		}
		_, err = stack.Up(ctx, options...)
	default:
		return 0, fmt.Errorf("unknown op %q", req.Op)
	}
	// The SDK closes the stream once the event log is read to its end; a bounded wait all the same.
	select {
	case <-written:
	case <-time.After(30 * time.Second):
		return 0, fmt.Errorf("the event stream was not closed")
	}
	if err != nil {
		fmt.Println(err)
		return 3, nil
	}
	return 0, nil
}
