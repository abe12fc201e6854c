"""Drives vitaecontext with the official Python `mcp` client (works with 1.x and 2.x).

usage: python py_client.py MODE PLAN_JSON COMMAND [ARGS...]
MODE: "session" (stdio_client + ClientSession), or a mode of the 2.x high-level mcp.Client:
"auto" (probes server/discover, falls back to initialize), "legacy" (initialize only) or a
modern version such as "2026-07-28" (no handshake: every request carries the version in _meta).
Prints one JSON object with everything the client saw.
"""

import asyncio

import anyio
import json
import sys

import mcp
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

try:  # 2.x
    from mcp import MCPError as RpcError
except ImportError:  # 1.x
    from mcp.shared.exceptions import McpError as RpcError


def attr(obj, camel, snake):
    """1.x models use the wire's camelCase names, 2.x snake_case."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def attempt(coro):
    try:
        return {"result": dump(await coro)}
    except RpcError as e:
        err = e.error
        return {"error": {"code": err.code, "message": err.message, "data": err.data}}


async def all_pages(fetch, key):
    """Every item, the page count, and the first page's other fields (cache hints, resultType)."""
    items, cursor, pages, first = [], None, 0, None
    while True:
        result = await fetch(cursor)
        if first is None:
            first = {k: v for k, v in dump(result).items() if k != key[0]}
        items.extend(dump(i) for i in attr(result, *key))
        pages += 1
        cursor = attr(result, "nextCursor", "next_cursor")
        if cursor is None:
            return {"items": items, "pages": pages, "first": first}


def is_modern(out):
    return out.get("protocolVersion", "") >= "2026"


async def tour(api, plan, out):
    """`api` is a ClientSession (1.x/2.x) or a 2.x mcp.Client: both have these methods."""
    if not is_modern(out):  # ping was removed in 2026-07-28
        out["ping"] = dump(await api.send_ping())
    page = lambda name: (lambda cursor: getattr(api, name)(cursor=cursor)) if MODE != "session" else (
        lambda cursor: getattr(api, name)(params=mcp.types.PaginatedRequestParams(cursor=cursor))
        if cursor is not None
        else getattr(api, name)()
    )
    out["tools"] = await all_pages(page("list_tools"), ("tools", "tools"))
    out["resources"] = await all_pages(page("list_resources"), ("resources", "resources"))
    out["resourceTemplates"] = await all_pages(
        page("list_resource_templates"), ("resourceTemplates", "resource_templates")
    )
    out["prompts"] = await all_pages(page("list_prompts"), ("prompts", "prompts"))
    out["reads"] = [await attempt(api.read_resource(uri)) for uri in plan.get("reads", [])]
    out["calls"] = [await attempt(api.call_tool(c["name"], c.get("arguments", {}))) for c in plan.get("calls", [])]
    out["prompts_got"] = [await attempt(api.get_prompt(p["name"], p.get("arguments", {}))) for p in plan.get("prompts", [])]


async def watch(client, plan, out):
    """2026-07-28 only: open a subscriptions/listen stream for `plan["watch"]["uri"]`, append a
    line to the file `plan["watch"]["touch"]`, and record the first event that arrives."""
    w = plan["watch"]
    async with client.listen(resource_subscriptions=[w["uri"]], tools_list_changed=True) as sub:
        out["honored"] = dump(sub.honored)
        with open(w["touch"], "a") as f:
            f.write("\n")
        with anyio.fail_after(20):
            async for event in sub:
                out["event"] = {"kind": type(event).__name__, "uri": getattr(event, "uri", None)}
                break


async def main():
    plan = json.loads(sys.argv[2])
    command, args = sys.argv[3], sys.argv[4:]
    params = StdioServerParameters(command=command, args=args)
    from importlib.metadata import version

    out = {"mcpVersion": version("mcp")}
    if MODE != "session":
        async with mcp.Client(params, mode=MODE) as client:
            out["protocolVersion"] = client.protocol_version
            out["serverInfo"] = dump(client.server_info) if client.server_info else None
            out["capabilities"] = dump(client.server_capabilities)
            out["instructions"] = client.instructions
            await tour(client, plan, out)
            if "watch" in plan and is_modern(out):
                await watch(client, plan, out)
    else:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                out["protocolVersion"] = attr(init, "protocolVersion", "protocol_version")
                out["serverInfo"] = dump(attr(init, "serverInfo", "server_info"))
                out["capabilities"] = dump(init.capabilities)
                out["instructions"] = init.instructions
                await tour(session, plan, out)
    print(json.dumps(out))


MODE = sys.argv[1]
asyncio.run(main())
