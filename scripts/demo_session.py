"""A plain MCP session over stdio (standard library only), for the demo.

It initializes, lists everything the server offers, reads each resource, calls each tool (with
sample arguments where it needs some) and gets each prompt with placeholder-free sample
arguments, printing each answer.
"""

import json
import subprocess
import sys

proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
next_id = 0


def call(method, params=None):
    global next_id
    next_id += 1
    msg = {"jsonrpc": "2.0", "id": next_id, "method": method, "params": params or {}}
    proc.stdin.write(json.dumps(msg) + "\n")
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    return reply


def show(title, reply, limit=1500):
    text = json.dumps(reply.get("result", reply.get("error")), indent=2, ensure_ascii=False)
    if len(text) > limit:
        text = text[:limit] + f"\n... ({len(text) - limit} more characters)"
    print(f"\n=== {title}\n{text}")


def listing(method, key):
    items, cursor = [], None
    while True:
        reply = call(method, {"cursor": cursor} if cursor else {})
        result = reply.get("result", {})
        items.extend(result.get(key, []))
        cursor = result.get("nextCursor")
        if not cursor:
            return items


SAMPLE_ARGS = {"targetRole": "Staff Software Engineer", "focus": "developer tooling"}
# A draft with one true, one changed and one invented claim, and a short posting, about the
# FICTIONAL example person.
TOOL_ARGS = {
    "check_claims": {"draft": "- Cut CI time by 71% at Tideline Logistics.\n"
                              "- Raised the Bazel cache hit rate to 95%.\n"
                              "- Led the Kubernetes migration at Google."},
    "match_job": {"posting": "Requirements:\n- 5+ years of platform engineering\n- Rust\n"
                             "Nice to have:\n- Kubernetes operators"},
}

show("initialize", call("initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                                       "clientInfo": {"name": "vitaecontext-demo", "version": "1"}}))
proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
resources = listing("resources/list", "resources")
templates = listing("resources/templates/list", "resourceTemplates")
tools = listing("tools/list", "tools")
prompts = listing("prompts/list", "prompts")
print(f"\n{len(resources)} resources, {len(templates)} resource templates, {len(tools)} tools, {len(prompts)} prompts")
for r in resources[:12]:
    show(f"resources/read {r['uri']}", call("resources/read", {"uri": r["uri"]}))
for t in tools:
    show(f"tools/call {t['name']}", call("tools/call", {"name": t["name"], "arguments": TOOL_ARGS.get(t["name"], {})}))
for p in prompts:
    args = {a["name"]: SAMPLE_ARGS[a["name"]] for a in p.get("arguments", []) if a["name"] in SAMPLE_ARGS}
    show(f"prompts/get {p['name']}", call("prompts/get", {"name": p["name"], "arguments": args}))
proc.stdin.close()
sys.exit(proc.wait())
