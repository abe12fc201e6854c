// Drives vitaecontext with the official TypeScript SDK client (Client + StdioClientTransport).
// usage: node ts_client.mjs PLAN_JSON COMMAND [ARGS...]
// PLAN_JSON: {"reads": [uri], "calls": [{name, arguments}], "prompts": [{name, arguments}],
//             "completions": [{ref, argument}]}
// Prints one JSON object with everything the client saw; exits non-zero when the SDK throws
// outside the planned calls.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [planText, command, ...args] = process.argv.slice(2);
const plan = JSON.parse(planText);

const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "vitaecontext-tests-ts", version: "1.0.0" });
await client.connect(transport);

const out = {
  serverInfo: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  ping: await client.ping(),
};

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

await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
