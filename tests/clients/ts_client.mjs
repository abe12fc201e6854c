// Drives vitaecontext with an official TypeScript client (Client + StdioClientTransport).
// usage: node ts_client.mjs MODE PLAN_JSON COMMAND [ARGS...]
// MODE: "sdk1" (@modelcontextprotocol/sdk 1.x, initialize only), or a version negotiation mode of
//       @modelcontextprotocol/client 2.x: "legacy", "auto" (server/discover probe, falls back to
//       initialize) or a pinned modern version such as "2026-07-28".
// PLAN_JSON: {"reads": [uri], "calls": [{name, arguments}], "prompts": [{name, arguments}],
//             "completions": [{ref, argument}]}
// Prints one JSON object with everything the client saw; exits non-zero when the SDK throws
// outside the planned calls.
const [mode, planText, command, ...args] = process.argv.slice(2);
const plan = JSON.parse(planText);
const sdk1 = mode === "sdk1";

const { Client } = await import(sdk1 ? "@modelcontextprotocol/sdk/client/index.js" : "@modelcontextprotocol/client");
const { StdioClientTransport } = await import(
  sdk1 ? "@modelcontextprotocol/sdk/client/stdio.js" : "@modelcontextprotocol/client/stdio"
);

const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const negotiation = sdk1 ? {} : { versionNegotiation: { mode: ["legacy", "auto"].includes(mode) ? mode : { pin: mode } } };
const client = new Client({ name: "vitaecontext-tests-ts", version: "1.0.0" }, negotiation);
// 1.x exposes the negotiated version only through this optional Transport hook.
let negotiated;
if (sdk1) transport.setProtocolVersion = (v) => (negotiated = v);
await client.connect(transport);

const era = sdk1 ? "legacy" : client.getProtocolEra();
const out = {
  era,
  protocolVersion: sdk1 ? negotiated : client.getNegotiatedProtocolVersion(),
  serverInfo: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  instructions: client.getInstructions(),
  discover: sdk1 ? undefined : client.getDiscoverResult(),
};
// ping was removed in 2026-07-28.
if (era !== "modern") out.ping = await client.ping();

async function all(method, key) {
  const items = [];
  let cursor;
  let pages = 0;
  do {
    const r = await client[method](cursor === undefined ? {} : { cursor });
    items.push(...r[key]);
    cursor = r.nextCursor;
    pages += 1;
  } while (cursor !== undefined);
  return { items, pages };
}

out.tools = await all("listTools", "tools");
out.resources = await all("listResources", "resources");
out.resourceTemplates = await all("listResourceTemplates", "resourceTemplates");
out.prompts = await all("listPrompts", "prompts");

async function attempt(f) {
  try {
    return { result: await f() };
  } catch (e) {
    return { error: { code: e.code, message: e.message, data: e.data } };
  }
}

out.reads = [];
for (const uri of plan.reads ?? []) out.reads.push(await attempt(() => client.readResource({ uri })));
out.calls = [];
for (const c of plan.calls ?? []) out.calls.push(await attempt(() => client.callTool(c)));
out.prompts_got = [];
for (const p of plan.prompts ?? []) out.prompts_got.push(await attempt(() => client.getPrompt(p)));
out.completions = [];
for (const c of plan.completions ?? []) out.completions.push(await attempt(() => client.complete(c)));

// sdk1 only: resources/subscribe to plan.watch.uri, append a line to plan.watch.touch, and
// record the notifications/resources/updated that follows.
if (plan.watch && sdk1) {
  const { ResourceUpdatedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const { appendFileSync } = await import("node:fs");
  const updated = new Promise((resolve, reject) => {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params));
    setTimeout(() => reject(new Error("no notifications/resources/updated within 20 s")), 20000).unref();
  });
  out.subscribed = await client.subscribeResource({ uri: plan.watch.uri });
  appendFileSync(plan.watch.touch, "\n");
  out.updated = await updated;
}

await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
