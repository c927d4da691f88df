// tools/list footprint and membership; no RS needed.
import test from "node:test";
import assert from "node:assert/strict";
import { connectStdio, textOf } from "./helpers.mjs";

const BUDGET_BYTES = 9000;

test("tools/list: exact six read tools, connection_id everywhere, within budget", async () => {
  const client = await connectStdio("http://127.0.0.1:9", "");
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, ["aggregate", "fetch", "query_records", "read_record_field", "schema", "search"]);
    for (const bad of ["list_streams", "fetch_blob"]) assert.ok(!names.includes(bad));
    assert.ok(!names.some((n) => /subscri|event|webhook/i.test(n)), "no event-subscription tools");
    const payload = JSON.stringify({ tools });
    assert.ok(payload.length < BUDGET_BYTES, `tools/list is ${payload.length} bytes`);
    assert.ok(!payload.includes("connector_instance_id"));
    for (const t of tools) {
      assert.ok(t.inputSchema.properties.connection_id, `${t.name} has connection_id`);
      assert.equal(t.annotations?.readOnlyHint, true);
      assert.ok(t.description.length < 420, `${t.name} description is concise`);
      assert.ok(!/hidden/i.test(t.description) || /not hidden/i.test(t.description));
    }
    // long cross-tool guidance is not repeated in every tool
    const shared = "pass connection_id to choose one";
    assert.ok(tools.filter((t) => t.description.includes(shared)).length <= 1);
    const inst = client.getInstructions();
    assert.ok(inst && inst.length > 100, "instructions present");
    const head = inst.slice(0, 512);
    for (const word of [/schema/i, /connection_id/, /filter/i, /page|cursor/i, /narrow|limit/i]) assert.match(head, word);
    assert.ok(!/owner|control.plane/i.test(inst), "instructions never mention owner/control bearers");
  } finally {
    await client.close();
  }
});

test("tools without a token answer with a typed error", async () => {
  const client = await connectStdio("http://127.0.0.1:9", "");
  try {
    const r = await client.callTool({ name: "schema", arguments: {} });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /missing_client_token/);
  } finally {
    await client.close();
  }
});
