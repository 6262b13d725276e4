// Connects to an agent's MCP server over Streamable HTTP with the official TypeScript
// SDK's client, says so, then waits for the server to tell it that its resources and
// prompts changed (a label moved) and reads a skill again; prints what it got as JSON.
// Usage: node hear_changes.mjs URL TOKEN
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [url, token] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "skill-editor-ts-test", version: "1.0.0" });
const heard = [];
let bothHeard;
const both = new Promise((resolve) => { bothHeard = resolve; });
for (const schema of [ResourceListChangedNotificationSchema, PromptListChangedNotificationSchema]) {
  client.setNotificationHandler(schema, (notification) => {
    heard.push(notification.method);
    if (heard.length === 2) bothHeard();
  });
}
await client.connect(transport);
console.log(JSON.stringify({ connected: true, capabilities: client.getServerCapabilities() }));
const timer = setTimeout(() => {
  console.error(`heard ${JSON.stringify(heard)} in 60 s, not both notifications`);
  process.exit(1);
}, 60000);
await both;
clearTimeout(timer);
const { contents } = await client.readResource({ uri: "skill://pdf/SKILL.md" });
console.log(JSON.stringify({ heard, text: contents[0].text }));
await client.close();
