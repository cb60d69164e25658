// The official OpenAI Node SDK against `secpe serve`, for tests/e2e/openai_sdk.sh (not a test
// itself; copied next to the SDK's node_modules and run there). Usage: node openai_sdk.mjs URL
// Prints one line per check; exits 1 at the first that fails.
import OpenAI from 'openai';
import assert from 'node:assert/strict';

const baseURL = process.argv[2];
const model = 'secpe-builtin';
const client = new OpenAI({ baseURL, apiKey: process.env.SECPE_SDK_KEY, maxRetries: 0 });
const words = (text) => text.split(/\s+/).filter(Boolean).length;

async function check(name, body) {
  await body();
  console.log(`ok: ${name}`);
}

async function errorOf(call) {
  try {
    await call();
  } catch (e) {
    return e;
  }
  assert.fail('no error');
}

await check('models.list', async () => {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  assert.deepEqual(ids, [model]);
  assert.equal((await client.models.retrieve(model)).id, model);
});

await check('embeddings: float, base64 and the SDK default (base64 decoded by the SDK)', async () => {
  const input = ['cold beer and kind staff', 'fresh bread every morning'];
  const floats = await client.embeddings.create({ model, input, encoding_format: 'float' });
  assert.equal(floats.data.length, 2);
  assert.equal(floats.data[0].embedding.length, 64);
  assert.ok(floats.usage.prompt_tokens > 0 && floats.usage.total_tokens === floats.usage.prompt_tokens);
  const viaDefault = await client.embeddings.create({ model, input });
  const b64 = await client.embeddings.create({ model, input, encoding_format: 'base64' });
  assert.equal(typeof b64.data[0].embedding, 'string');
  const bytes = Buffer.from(b64.data[1].embedding, 'base64');
  assert.equal(bytes.length, 64 * 4);
  for (let k = 0; k < 64; ++k) {
    assert.ok(Math.abs(viaDefault.data[1].embedding[k] - floats.data[1].embedding[k]) < 1e-6);
    assert.ok(Math.abs(bytes.readFloatLE(4 * k) - floats.data[1].embedding[k]) < 1e-6);  // little-endian float32
  }
});

await check('completions: n = 3, max_tokens = 20, usage', async () => {
  const r = await client.completions.create({ model, prompt: 'A review of a restaurant', n: 3, max_tokens: 20, seed: 5 });
  assert.equal(r.object, 'text_completion');
  assert.equal(r.choices.length, 3);
  assert.deepEqual(r.choices.map((c) => c.index), [0, 1, 2]);
  for (const c of r.choices) {
    assert.ok(words(c.text) <= 20, `${words(c.text)} words`);  // each word is at least one token
    assert.ok(c.finish_reason === 'stop' || c.finish_reason === 'length');
  }
  assert.ok(r.usage.completion_tokens <= 60 && r.usage.total_tokens === r.usage.prompt_tokens + r.usage.completion_tokens);
  assert.ok(Number.isInteger(r.created));
});

await check('completions: stream', async () => {
  const stream = await client.completions.create({ model, prompt: 'A review', max_tokens: 20, stream: true });
  let text = '', chunks = 0, finish = null;
  for await (const chunk of stream) {
    ++chunks;
    text += chunk.choices[0].text;
    finish = chunk.choices[0].finish_reason ?? finish;
  }
  assert.ok(chunks >= 2 && text.length > 0 && finish !== null, `${chunks} chunks`);
});

await check('chat: message and usage', async () => {
  const r = await client.chat.completions.create({
    model, messages: [{ role: 'system', content: 'Write one review.' }, { role: 'user', content: 'A review' }], max_tokens: 20, temperature: 0.8,
  });
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.ok(r.choices[0].message.content.length > 0);
  assert.ok(r.usage.prompt_tokens > 0 && r.usage.completion_tokens <= 20);
});

await check('chat: stream with usage', async () => {
  const whole = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'A review' }], seed: 9 });
  const stream = await client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'A review' }], seed: 9, stream: true, stream_options: { include_usage: true },
  });
  let text = '', usage = null;
  for await (const chunk of stream) {
    if (chunk.choices.length > 0) text += chunk.choices[0].delta.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  assert.equal(text, whole.choices[0].message.content);
  assert.deepEqual(usage, whole.usage);
});

await check('errors: unknown model, unsupported parameter, wrong key', async () => {
  const notFound = await errorOf(() => client.completions.create({ model: 'other', prompt: 'x' }));
  assert.ok(notFound instanceof OpenAI.NotFoundError, String(notFound));
  assert.equal(notFound.code, 'model_not_found');
  const unsupported = await errorOf(() => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }], presence_penalty: 0.5 }));
  assert.ok(unsupported instanceof OpenAI.BadRequestError, String(unsupported));
  assert.equal(unsupported.param, 'presence_penalty');
  assert.match(unsupported.message, /presence_penalty/);
  const wrongKey = new OpenAI({ baseURL, apiKey: 'wrong', maxRetries: 0 });
  assert.ok((await errorOf(() => wrongKey.models.list())) instanceof OpenAI.AuthenticationError);
});
