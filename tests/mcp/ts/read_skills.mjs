// Lists and reads every resource of an agent's MCP server over Streamable HTTP with the
// official TypeScript SDK's client; prints what it got as JSON.
// Usage: node read_skills.mjs URL TOKEN
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "skill-editor-ts-test", version: "1.0.0" });
await client.connect(transport);
const { resources } = await client.listResources();
const read = {};
for (const resource of resources) {
  const { contents } = await client.readResource({ uri: resource.uri });
  read[resource.uri] = contents[0];
}
const { prompts } = await client.listPrompts();
console.log(JSON.stringify({
  capabilities: client.getServerCapabilities(),
  version: client.getServerVersion(),
  resources,
  read,
  prompts,
}));
await client.close();
