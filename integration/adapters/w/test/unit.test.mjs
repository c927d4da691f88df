import test from "node:test";
import assert from "node:assert/strict";
import { balanceMarks, binaryDescriptor, makeRecordUri, normalizeFieldCaps, parseRecordHandle, previewAroundMark } from "../lib/util.mjs";
import { encodeQuery } from "../lib/rs.mjs";
import { schemaRows } from "../lib/tools.mjs";

test("record handles round-trip, including awkward ids", () => {
  const uri = makeRecordUri("cin a/b", "messages", "id:1/2");
  assert.ok(uri.startsWith("pdpp://record/"));
  assert.deepEqual(parseRecordHandle(uri), { connection_id: "cin a/b", stream: "messages", record_id: "id:1/2" });
  assert.deepEqual(parseRecordHandle("cin_x/messages:m1"), { connection_id: "cin_x", stream: "messages", record_id: "m1" });
  assert.equal(parseRecordHandle("plain"), null);
});

test("highlight tags are balanced and foreign tags dropped", () => {
  assert.equal(balanceMarks("a <mark>b</mark> c"), "a <mark>b</mark> c");
  assert.equal(balanceMarks("a <mark>b c"), "a <mark>b c</mark>");
  assert.equal(balanceMarks("a </mark>b <b>c</b>"), "a b c");
  const p = previewAroundMark(`${"x ".repeat(400)}<mark>hit</mark>${" y".repeat(400)}`, 200);
  assert.ok(p.includes("<mark>hit</mark>"));
  assert.ok(p.length < 230);
  assert.ok(/x x/.test(p) && /y y/.test(p), "keeps surrounding context");
});

test("binary values are described, not inlined", () => {
  assert.equal(binaryDescriptor("hello world"), null);
  assert.equal(binaryDescriptor({ blob_id: "b1", mime_type: "image/png" }).kind, "blob_ref");
  assert.equal(binaryDescriptor("QUJD".repeat(100)).kind, "inline_binary");
  assert.equal(binaryDescriptor(`data:image/png;base64,${"QUJD".repeat(40)}`).media_type, "image/png");
});

test("compact capability flags parse into words", () => {
  const f = normalizeFieldCaps("sent_at", "t=timestamp,eq,r=gte|lt,a=group_by_time|max");
  assert.equal(f.type, "timestamp");
  assert.ok(f.eq);
  assert.deepEqual(f.range, ["gte", "lt"]);
  assert.deepEqual(f.agg, ["group_by_time", "max"]);
  const g = normalizeFieldCaps("body", { granted: true, lexical_search: { declared: true, usable: true }, exact_filter: { declared: true, usable: false }, schema: { type: "string" } });
  assert.ok(g.lexical && !g.eq);
});

test("query encoding matches the RS qs conventions", () => {
  const s = decodeURIComponent(encodeQuery({ fields: ["a", "b"], filter: { x: "1", t: { gte: "2026" } }, expand_limit: { att: 3 } }));
  assert.equal(s, "fields=a&fields=b&filter[x]=1&filter[t][gte]=2026&expand_limit[att]=3");
});

test("schema rows carry connection identity from stream or connector level", () => {
  const rows = schemaRows({
    bearer: { grant_id: "g1" },
    connectors: [{ connector_key: "gmail", granted_connections: [{ connection_id: "c1" }, { connection_id: "c2" }], streams: [{ name: "messages" }, { name: "att", connection_id: "c1" }] }],
  });
  assert.deepEqual(rows.map((r) => r.connections.map((c) => c.connection_id)), [["c1", "c2"], ["c1"]]);
  assert.equal(rows[0].grant_id, "g1");
});
