// Regression coverage for the MCP discovery footprint: exact tool membership, byte budget,
// server instructions, and no duplicated cross-tool guidance.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMcpServer, INSTRUCTIONS, TOOL_NAMES } from '../src/mcp.mjs';

/** Documented budget for the serialized default tools/list result (bytes). */
export const TOOLS_LIST_BYTE_BUDGET = 12000;

const EXPECTED_TOOLS = ['schema', 'query_records', 'aggregate', 'search', 'fetch', 'read_record_field'];
const SOURCE_TOOLS = ['schema', 'query_records', 'aggregate', 'search', 'fetch'];
const FORBIDDEN_TOOL_PATTERNS = [/list_streams/, /fetch_blob/, /subscri/i, /event/i, /webhook/i, /owner/i, /admin/i, /grant_/i];

async function rpc(server, method, params = {}, id = 1) {
  const res = await server.receive({ jsonrpc: '2.0', id, method, params }, { sessionId: 'footprint-test', custom: { token: 'unused' } });
  return res;
}

async function toolsList() {
  const server = createMcpServer({ rs: /** @type {any} */ ({}), log: () => {} });
  await rpc(server, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } });
  const res = await rpc(server, 'tools/list', {}, 2);
  return res.result;
}

test('tools/list contains exactly the six read tools', async () => {
  const result = await toolsList();
  const names = result.tools.map((t) => t.name).sort();
  assert.deepEqual(names, [...EXPECTED_TOOLS].sort());
  assert.deepEqual([...TOOL_NAMES].sort(), [...EXPECTED_TOOLS].sort());
  for (const t of result.tools) {
    for (const re of FORBIDDEN_TOOL_PATTERNS) assert.doesNotMatch(t.name, re, `unexpected tool ${t.name}`);
    assert.equal(t.annotations?.readOnlyHint, true, `${t.name} must be read-only`);
  }
});

test('tools/list stays under the byte budget', async () => {
  const result = await toolsList();
  const bytes = Buffer.byteLength(JSON.stringify(result));
  assert.ok(bytes < TOOLS_LIST_BYTE_BUDGET, `tools/list is ${bytes} bytes, budget ${TOOLS_LIST_BYTE_BUDGET}`);
});

test('data tools advertise connection_id and never connector_instance_id', async () => {
  const result = await toolsList();
  for (const t of result.tools) {
    const props = t.inputSchema?.properties ?? {};
    assert.ok(!('connector_instance_id' in props), `${t.name} exposes connector_instance_id`);
    assert.ok(!JSON.stringify(t).includes('connector_instance_id'), `${t.name} mentions connector_instance_id`);
    if (SOURCE_TOOLS.includes(t.name)) assert.ok('connection_id' in props, `${t.name} lacks connection_id`);
    assert.ok(!/profile|toolset/i.test(JSON.stringify(t)), `${t.name} mentions profiles/toolsets`);
  }
});

test('tool descriptions state action, read-only posture and RS endpoint; no duplicated long guidance', async () => {
  const result = await toolsList();
  for (const t of result.tools) {
    assert.match(t.description, /read-only/i, `${t.name} description must say read-only`);
    assert.match(t.description, /GET \/v1\//, `${t.name} description must name its RS endpoint`);
    assert.ok(t.description.length <= 600, `${t.name} description too long (${t.description.length})`);
    assert.doesNotMatch(t.description, /hidden/i, 'structured output must not be described as hidden');
  }
  // connection_id guidance is short and not a repeated recovery essay
  const cidDescriptions = result.tools.map((t) => t.inputSchema?.properties?.connection_id?.description).filter(Boolean);
  for (const d of cidDescriptions) assert.ok(d.length <= 80, `connection_id description too long: ${d}`);
  // no sentence longer than 60 characters appears in more than two tool descriptions
  const counts = new Map();
  for (const t of result.tools) {
    for (const sentence of new Set(t.description.split(/(?<=[.;])\s+/))) {
      if (sentence.length <= 60) continue;
      counts.set(sentence, (counts.get(sentence) ?? 0) + 1);
    }
  }
  for (const [sentence, n] of counts) assert.ok(n <= 2, `sentence repeated across ${n} tools: ${sentence}`);
});

test('initialize publishes self-contained instructions', async () => {
  const server = createMcpServer({ rs: /** @type {any} */ ({}), log: () => {} });
  const res = await rpc(server, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } });
  const instructions = res.result.instructions;
  assert.equal(instructions, INSTRUCTIONS);
  assert.ok(!('adapter' in res.result), 'initialize result must not leak internal options');
  const head = instructions.slice(0, 512);
  assert.match(head, /schema\(\)/, 'schema-first discovery');
  assert.match(head, /connection_id/, 'connection_id disambiguation');
  assert.match(head, /[Ff]ilters are typed objects/, 'typed filters');
  assert.match(head, /cursor/, 'pagination');
  assert.match(head, /project fields|limit/, 'result narrowing');
  assert.match(head, /grant/, 'grant-scoped posture');
  assert.doesNotMatch(instructions, /owner|control[- ]plane/i, 'instructions must not mention owner/control-plane bearers');
});
