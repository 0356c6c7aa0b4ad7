// An independent MCP client: the TypeScript SDK (@modelcontextprotocol/sdk) drives totalrecall's
// MCP server over streamable HTTP and over `totalrecall mcp` on stdio, as a client that accepts
// Claude Code's channel notifications. It prints what it saw as one JSON object.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [server, bin] = process.argv.slice(2);

async function session(transport, label) {
  const client = new Client({ name: "ts-sdk-test", version: "1.0.0" },
    { capabilities: { experimental: { "claude/channel": {} } } });
  const channel = [];
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === "notifications/claude/channel") channel.push(n.params);
  };
  await client.connect(transport);
  const caps = client.getServerCapabilities();
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${label} ${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  };
  const started = await call("session_start", {});
  const hit = (await call("journal_memory_search", { query: "green tea" })).results[0];
  const snippet = await call("journal_memory_get", { path: hit.path, from_line: hit.from_line, lines: hit.lines });
  const a = (await call("store_memory", { content: `${label}: the cache is warmed at start.`, tags: ["ops"] })).memory.memory_id;
  const b = (await call("store_memory", { text: `${label}: a cold cache makes the first searches slow.` })).memory.memory_id;
  const found = (await call("search_memory", { query: "cache", max_results: 5 })).results.length;
  const claimed = (await call("claim_memory", { memory_id: a })).memory.claimed;
  await call("associate_memories", { source_id: a, target_id: b, type: "CAUSAL", strength: 0.8 });
  const rec = await call("total_recall_advisory", { source_memory_ids: [a], wait_seconds: 20 });
  await call("session_end", {});
  for (let i = 0; i < 200 && channel.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  await client.close();
  return {
    channelCapability: Boolean(caps?.experimental?.["claude/channel"]),
    tools, instance: started.instance_id, scope: started.scope, found, claimed,
    recalled: rec.recalled.map((r) => r.memory.memory_id), recalledExpected: b,
    journal: { path: hit.path, headings: hit.headings, fromLine: hit.from_line, lines: hit.lines, text: snippet.text },
    channel: channel.map((p) => ({ kind: p.meta.kind, instance: p.meta.instance_id, head: p.content.split("\n")[0] })),
  };
}

const out = {
  http: await session(new StreamableHTTPClientTransport(new URL(`${server}/mcp?scope=ts-http&instance=ts-http-1`)), "http"),
  stdio: await session(new StdioClientTransport({ command: bin, args: ["mcp", "--server", server, "--scope", "ts-stdio", "--instance", "ts-stdio-1"] }), "stdio"),
};
console.log(JSON.stringify(out));
