// Hosted endpoint behaviour against a tiny in-process stand-in RS: bearer challenge, owner refusal,
// session/token binding, and a schema call end to end.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { start } from '../src/server.mjs';

let rs;
let adapter;
const rsCalls = [];

const TOKENS = {
  clientA: { token_kind: 'client', scope: 'grant', grant_id: 'g1', client_id: 'c1' },
  clientB: { token_kind: 'client', scope: 'grant', grant_id: 'g2', client_id: 'c2' },
  owner: { token_kind: 'owner', scope: 'owner' },
};

before(async () => {
  rs = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    rsCalls.push(url.pathname + url.search);
    const tok = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const bearer = TOKENS[tok];
    res.setHeader('content-type', 'application/json');
    if (!bearer) {
      res.statusCode = 401;
      return res.end(JSON.stringify({ error: { type: 'authentication_error', code: 'authentication_error', message: 'Invalid or expired token' } }));
    }
    if (url.pathname === '/v1/schema') {
      const stream = url.searchParams.get('stream');
      const streams = [{ name: 'notes', record_count: 2, cursor_field: 'id', field_capabilities: { id: 't=string,eq', title: 't=string,role=primary-title,eq,lex' } }];
      const connectors = [{ connector_key: 'nb', display_name: 'Notebook', granted_connections: [{ connection_id: 'cin_1', display_name: 'One' }], streams: streams.filter((s) => !stream || s.name === stream) }].filter((c) => c.streams.length);
      return res.end(JSON.stringify({ object: 'schema', bearer, connectors }));
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ error: { type: 'not_found_error', code: 'not_found', message: 'nope' } }));
  });
  await new Promise((r) => rs.listen(0, '127.0.0.1', r));
  const rsBase = `http://127.0.0.1:${rs.address().port}`;
  const origWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = () => true; // silence the mcp_url line
  adapter = await start({ rsBase, host: '127.0.0.1', port: 0, publicUrl: null, allowedOrigins: [], authorizationServer: null, rsTimeoutMs: 5000, quiet: true });
  process.stdout.write = origWrite;
});

after(async () => {
  await adapter.close();
  await new Promise((r) => rs.close(r));
});

async function post(body, token, sid) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (sid) headers['mcp-session-id'] = sid;
  const res = await fetch(adapter.url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  let json = null;
  const data = text.split('\n').filter((l) => l.startsWith('data: ')).pop();
  try {
    json = JSON.parse(data ? data.slice(6) : text);
  } catch {
    /* empty */
  }
  return { res, json };
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };

test('missing bearer gets 401 with a resource_metadata challenge', async () => {
  const { res, json } = await post(INIT, null);
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate'), /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/);
  assert.equal(json.error.type, 'authentication_error');
});

test('owner bearer is refused before any MCP processing', async () => {
  const { res, json } = await post(INIT, 'owner');
  assert.equal(res.status, 403);
  assert.equal(json.error.code, 'owner_token_rejected');
  assert.equal(res.headers.get('mcp-session-id'), null);
});

test('unknown bearer gets 401', async () => {
  const { res } = await post(INIT, 'nope');
  assert.equal(res.status, 401);
});

test('client bearer works end to end and sessions stay bound to their token', async () => {
  const init = await post(INIT, 'clientA');
  assert.equal(init.res.status, 200);
  const sid = init.res.headers.get('mcp-session-id');
  assert.ok(sid);
  assert.ok(init.json.result.instructions.length > 100);
  const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'schema', arguments: {} } }, 'clientA', sid);
  assert.equal(call.json.result.isError, undefined);
  assert.match(call.json.result.content[0].text, /notes/);
  assert.equal(call.json.result.structuredContent.data.connectors[0].connector_key, 'nb');
  const other = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, 'clientB', sid);
  assert.equal(other.res.status, 403);
  assert.equal(other.json.error.code, 'session_token_mismatch');
});

test('protected-resource metadata advertises one MCP endpoint and no profiles', async () => {
  const base = adapter.url.replace(/\/mcp$/, '');
  const res = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
  const j = await res.json();
  assert.equal(j.resource, `${base}/mcp`);
  assert.equal(j.pdpp_mcp.endpoint, `${base}/mcp`);
  assert.deepEqual(j.bearer_methods_supported, ['header']);
  assert.ok(!/profile|toolset/i.test(JSON.stringify(j)));
});

test('detail "full" without stream is rejected before any grant-wide schema fetch', async () => {
  const init = await post(INIT, 'clientA');
  const sid = init.res.headers.get('mcp-session-id');
  const before = rsCalls.length;
  const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'schema', arguments: { detail: 'full' } } }, 'clientA', sid);
  assert.equal(call.json.result.isError, true);
  assert.match(call.json.result.content[0].text, /schema\(stream, connection_id, detail: "full"\)/);
  assert.ok(rsCalls.slice(before).every((c) => !c.startsWith('/v1/schema?detail')), 'no exhaustive schema request was sent');
});
