"""Runs one step of the chains program as an Automation API inline program of the Python SDK.

The pulumi-language-python host cannot be built here: the SDK's automation package serves the
program itself and runs the real `pulumi` CLI with --client. Called by test/support/pulumi/drivers.ts with
one JSON argument: op (init, preview, up), program (the example's __main__.py), project (its name;
python-chains unless given), sdk (the directory
holding pulumi_provider), expectNoChanges, workDir, stack, cliRoot (<root>/bin/pulumi) and events
(a file for the engine events, one JSON object a line, in the CLI's event-log shape).
Exit status: 0 when the operation succeeded, 3 when it failed, anything else when the driver broke.
"""
import json
import runpy
import sys


def reduce(event):
    """The fields the tests read, in the CLI's --event-log JSON shape."""
    def meta(m):
        op = getattr(m.op, "value", m.op)
        return {"urn": m.urn, "type": m.type, "op": op, "diffs": list(m.diffs or [])}

    if event.resource_pre_event is not None:
        return {"resourcePreEvent": {"metadata": meta(event.resource_pre_event.metadata)}}
    if event.res_outputs_event is not None:
        return {"resOutputsEvent": {"metadata": meta(event.res_outputs_event.metadata)}}
    if event.res_op_failed_event is not None:
        return {"resOpFailedEvent": {"metadata": meta(event.res_op_failed_event.metadata)}}
    if event.diagnostic_event is not None:
        d = event.diagnostic_event
        return {"diagnosticEvent": {"urn": d.urn or "", "severity": d.severity, "message": d.message}}
    if event.summary_event is not None:
        changes = {getattr(k, "value", k): v for k, v in (event.summary_event.resource_changes or {}).items()}
        return {"summaryEvent": {"resourceChanges": changes}}
    return None


def main():
    request = json.loads(sys.argv[1])
    if request.get("sdk"):
        sys.path.insert(0, request["sdk"])
    from pulumi import automation as auto

    def program():
        runpy.run_path(request["program"], run_name="__main__")

    project = request.get("project") or "python-chains"
    command = auto.PulumiCommand(root=request["cliRoot"], skip_version_check=True)
    settings = auto.ProjectSettings(name=project, runtime="python", main=request["workDir"])
    options = auto.LocalWorkspaceOptions(work_dir=request["workDir"], pulumi_command=command, project_settings=settings)
    stack = auto.create_or_select_stack(stack_name=request["stack"], project_name=project, program=program, opts=options)
    if request["op"] == "init":
        return 0
    with open(request["events"], "w", encoding="utf-8") as events:
        def on_event(event):
            reduced = reduce(event)
            if reduced is not None:
                events.write(json.dumps(reduced) + "\n")
                events.flush()

        kwargs = {"on_event": on_event, "on_output": lambda text: print(text, flush=True)}
        if request.get("expectNoChanges"):
            kwargs["expect_no_changes"] = True
        try:
            if request["op"] == "preview":
                stack.preview(**kwargs)
            elif request["op"] == "up":
                stack.up(**kwargs)
            else:
                raise ValueError(f"unknown op {request['op']}")
        except auto.CommandError as error:
            print(str(error), flush=True)
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
