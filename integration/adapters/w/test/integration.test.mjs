// End-to-end against the fake RS (skipped when it is not installed).
import test from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { connectStdio, haveFake, startHttp, startRs, textOf } from "./helpers.mjs";

const opts = { skip: !haveFake && "fake RS not installed" };

async function requestLog(rs) {
  const r = await fetch(`${rs.control_url}requests`, { headers: { authorization: `Bearer ${rs.control_token}` } });
  return (await r.json()).requests ?? [];
}

test("stdio read journey against the fake RS", opts, async (t) => {
  const rs = await startRs(["--profile", "spec"]);
  const c = await connectStdio(rs.url, rs.token);
  t.after(async () => { await c.close(); rs.stop(); });
  const call = (name, args) => c.callTool({ name, arguments: args });

  await t.test("global schema lists every stream by connector", async () => {
    const r = await call("schema", {});
    const text = textOf(r);
    for (const s of ["messages", "attachments", "channels", "issues"]) assert.ok(text.includes(s), s);
    assert.ok(r.structuredContent.data.connectors.length >= 2);
    assert.equal(r.structuredContent.data.streams, undefined, "no duplicated top-level stream list");
  });

  await t.test("detail full without stream is rejected before any RS call", async () => {
    const before = (await requestLog(rs)).length;
    const r = await call("schema", { detail: "full" });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /schema\(stream, connection_id, detail: "full"\)/);
    assert.equal((await requestLog(rs)).length, before);
  });

  await t.test("shared stream needs connection_id: typed ambiguous_connection", async () => {
    const r = await call("query_records", { stream: "messages" });
    assert.equal(r.isError, true);
    const e = r.structuredContent.error;
    assert.equal(e.code, "ambiguous_connection");
    assert.equal(e.retry_with, "connection_id");
    for (const c2 of e.available_connections) {
      assert.ok(c2.connection_id && c2.connector_key && c2.grant_id);
    }
    assert.match(textOf(r), /connection_id=cin_work/);
  });

  await t.test("scoped full schema places the document under data", async () => {
    const r = await call("schema", { stream: "messages", connection_id: "cin_slack", detail: "full" });
    assert.ok(!r.isError, textOf(r));
    assert.equal(r.structuredContent.data.object, "schema");
    assert.equal(r.structuredContent.data.data, undefined);
    const streams = r.structuredContent.data.connectors.flatMap((x) => x.streams);
    assert.equal(streams.length, 1);
  });

  await t.test("paging handles and counts are visible in text", async () => {
    const r = await call("query_records", { stream: "messages", connection_id: "cin_work", limit: 2, count: true, fields: ["subject"] });
    const text = textOf(r);
    assert.match(text, /next_cursor=\S+/);
    assert.match(text, /count: exact \d+/);
    for (const rec of r.structuredContent.records) assert.deepEqual(Object.keys(rec.data), ["subject"]);
  });

  await t.test("expand on a stream without expand_capabilities never reaches /records", async () => {
    const before = (await requestLog(rs)).length;
    const r = await call("query_records", { stream: "issues", expand: ["anything"] });
    assert.equal(r.structuredContent.error.code, "invalid_expand");
    assert.match(textOf(r), /issues/);
    const after = (await requestLog(rs)).slice(before);
    assert.ok(!after.some((x) => x.path.endsWith("/records")));
  });

  await t.test("search: global limit, source identity, balanced marks, non-snippet titles", async () => {
    const r = await call("search", { q: "budget", limit: 3 });
    const res = r.structuredContent.results;
    assert.ok(res.length <= 3 && res.length > 0);
    for (const h of res) {
      assert.ok(h.connection_id && h.connector_key && h.stream && h.record_id);
      assert.ok(!/<mark>/.test(h.title));
      for (const ev of h.evidence) {
        assert.equal((ev.preview.match(/<mark>/g) ?? []).length, (ev.preview.match(/<\/mark>/g) ?? []).length);
      }
    }
    if (new Set(res.map((h) => h.connection_id)).size > 1) assert.match(textOf(r), /Source mix:/);
  });

  await t.test("fetch is document-shaped and mirrored in text", async () => {
    const s = await call("search", { q: "budget", limit: 1 });
    const id = s.structuredContent.results[0].id;
    const r = await call("fetch", { id, fields: ["subject"] });
    assert.deepEqual(Object.keys(r.structuredContent).sort(), ["id", "metadata", "text", "title", "url"]);
    assert.deepEqual(JSON.parse(textOf(r)), r.structuredContent);
    assert.ok(!r.structuredContent.text.includes("body"));
    assert.equal(r.structuredContent.metadata.connection_id, s.structuredContent.results[0].connection_id);
  });

  await t.test("read_record_field returns inline windows with continuations", async () => {
    const r = await call("read_record_field", { id: "pdpp://record/cin_work/messages/m007", field: "body", limit_chars: 500 });
    const sc = r.structuredContent;
    assert.equal(sc.start_chars, 0);
    assert.ok(sc.total_chars > 500);
    assert.equal(sc.next.arguments.offset, sc.end_chars);
    assert.match(textOf(r), /next: read_record_field/);
  });
});

test("hosted HTTP: challenge, metadata, bearer forwarding", opts, async (t) => {
  const rs = await startRs(["--profile", "spec"]);
  const ad = await startHttp(rs.url);
  t.after(() => { ad.stop(); rs.stop(); });
  const origin = ad.url.replace(/\/mcp$/, "");

  const noAuth = await fetch(ad.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
  assert.equal(noAuth.status, 401);
  assert.match(noAuth.headers.get("www-authenticate") ?? "", /resource_metadata="[^"]+oauth-protected-resource\/mcp"/);

  const meta = await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json();
  assert.equal(meta.resource, ad.url);
  assert.ok(!JSON.stringify(meta).includes("profile\""));

  if (rs.owner_token) {
    const owner = await fetch(ad.url, { method: "POST", headers: { authorization: `Bearer ${rs.owner_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } }) });
    assert.equal(owner.status, 403);
  }

  const client = new Client({ name: "w-http-test", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(ad.url), { requestInit: { headers: { authorization: `Bearer ${rs.token}` } } }));
  const r = await client.callTool({ name: "schema", arguments: {} });
  assert.ok(!r.isError, textOf(r));
  assert.match(textOf(r), /messages/);
  await client.close();
});
