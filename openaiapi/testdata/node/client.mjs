// The official openai Node SDK against a loopback agentgw: run by
// openaiapi's TestNodeSDK with AGENTGW_URL (the /v1 base URL) and
// AGENTGW_KEY set; prints what the SDK got as one JSON object.
import OpenAI from "openai";

const client = new OpenAI({ baseURL: process.env.AGENTGW_URL, apiKey: process.env.AGENTGW_KEY, maxRetries: 0 });
const out = {};

const models = await client.models.list();
out.models = models.data.map((m) => m.id);

const done = await client.chat.completions.create({
  model: "hello",
  messages: [{ role: "user", content: "hi" }],
});
out.completion = done;

const stream = await client.chat.completions.create({
  model: "hello/version",
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "which?" }],
});
out.chunks = [];
for await (const chunk of stream) {
  out.chunks.push(chunk);
}

try {
  await client.chat.completions.create({ model: "nope", messages: [{ role: "user", content: "hi" }] });
  out.notFound = "no error";
} catch (e) {
  out.notFound = { status: e.status, code: e.code, type: e.type, message: e.message };
}

process.stdout.write(JSON.stringify(out));
