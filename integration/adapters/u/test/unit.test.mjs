import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordHandle, parseRecordHandle, recordUri } from '../src/handles.mjs';
import { detectBinaryString, balanceMarks, boundPreview, stripMarks, recordEnvelope } from '../src/render.mjs';
import { parseFlagString, schemaRows, candidatesOf } from '../src/sources.mjs';
import { encodeQuery } from '../src/rs-client.mjs';
import { errorResult, ToolError } from '../src/errors.mjs';

test('record handles round-trip, including awkward ids', () => {
  for (const r of [
    { connection_id: 'cin_work', stream: 'messages', record_id: 'm007' },
    { connection_id: 'c/1', stream: 's 2', record_id: 'a/b:c%d' },
    { connection_id: null, stream: 'messages', record_id: 'x' },
  ]) {
    const h = recordHandle(r);
    assert.deepEqual(parseRecordHandle(h), { ...r, connection_id: r.connection_id ?? null });
    assert.deepEqual(parseRecordHandle(recordUri(r)), { ...r, connection_id: r.connection_id ?? null });
  }
  assert.throws(() => parseRecordHandle('just-one'), ToolError);
  assert.throws(() => parseRecordHandle('https://example.com/x'), ToolError);
  assert.throws(() => parseRecordHandle('a/b/c/d'), ToolError);
});

test('binary detection: base64, data URIs, raw bytes; ordinary prose is text', () => {
  const pdf = Buffer.from('%PDF-1.7 ' + 'x'.repeat(300)).toString('base64');
  assert.equal(detectBinaryString(pdf)?.media_type, 'application/pdf');
  assert.equal(detectBinaryString('data:image/png;base64,' + 'iVBORw0KGgo'.repeat(20))?.media_type, 'image/png');
  assert.ok(detectBinaryString('abc\u0000def'.repeat(20)));
  assert.equal(detectBinaryString('sunset over the bay'), null);
  assert.equal(detectBinaryString('Paragraph 0 covers routine operations. '.repeat(20)), null);
  assert.equal(detectBinaryString('a'.repeat(300)), null);
});

test('highlight handling keeps <mark> tags balanced when bounding previews', () => {
  assert.equal(balanceMarks('a <mark>b</mark> c'), 'a <mark>b</mark> c');
  assert.equal(balanceMarks('a <mark>b c'), 'a b c');
  assert.equal(balanceMarks('a </mark>b<mark> c'), 'a b c');
  const long = 'x '.repeat(400) + 'the <mark>needle</mark> is here ' + 'y '.repeat(400);
  const p = boundPreview(long, 200);
  assert.ok(stripMarks(p).length <= 202);
  assert.equal((p.match(/<mark>/g) ?? []).length, (p.match(/<\/mark>/g) ?? []).length);
  assert.match(p, /<mark>needle<\/mark>/);
});

test('compact capability flags parse', () => {
  const f = parseFlagString('t=timestamp,role=primary-title,eq,r=gte|lt,lex,a=group_by_time|max,sem=unusable:field_not_granted');
  assert.equal(f.type, 'timestamp');
  assert.equal(f.role, 'primary-title');
  assert.ok(f.eq && f.lex && !f.sem);
  assert.deepEqual(f.range, ['gte', 'lt']);
  assert.deepEqual(f.agg, ['group_by_time', 'max']);
  assert.equal(f.unusable.sem, 'field_not_granted');
  assert.equal(parseFlagString('declared').eq, false);
});

test('schema rows resolve connection candidates from stream or connector level', () => {
  const doc = {
    bearer: { grant_id: 'g1' },
    connectors: [
      { connector_key: 'mail', granted_connections: [{ connection_id: 'a' }, { connection_id: 'b' }], streams: [{ name: 'm' }, { name: 'd', granted_connections: [{ connection_id: 'b' }] }] },
      { connector_key: 'chat', streams: [{ name: 'm', connection_id: 'c', display_name: 'C' }] },
    ],
  };
  const rows = schemaRows(doc);
  assert.deepEqual(candidatesOf(rows.filter((r) => r.name === 'm')).map((c) => `${c.connector_key}:${c.connection_id}`), ['mail:a', 'mail:b', 'chat:c']);
  assert.deepEqual(candidatesOf(rows.filter((r) => r.name === 'd')).map((c) => c.connection_id), ['b']);
  assert.equal(rows[0].grant_id, 'g1');
});

test('query encoding follows the RS conventions', () => {
  const qs = decodeURIComponent(encodeQuery({ fields: ['a', 'b'], filter: { x: 1, t: { gte: '2026', lt: '2027' } }, expand_limit: { rel: 3 }, skip: undefined }));
  assert.equal(qs, '?fields=a&fields=b&filter[x]=1&filter[t][gte]=2026&filter[t][lt]=2027&expand_limit[rel]=3');
});

test('projection never leaks unrequested fields; long and binary values are bounded', () => {
  const env = recordEnvelope(
    { id: 'r1', stream: 's', connection_id: 'c', data: { a: 'x'.repeat(5000), b: 'keep', secret: 'no', bin: Buffer.alloc(600, 7).toString('base64') } },
    { fields: ['a', 'b', 'bin'] },
  );
  assert.ok(!('secret' in env.data));
  assert.equal(env.data.a.length, 1000);
  assert.equal(env.truncated_fields.a.total_chars, 5000);
  assert.deepEqual(env.truncated_fields.a.read.arguments, { id: "c/s/r1", field: "a", offset: 1000 });
  assert.ok(!('bin' in env.data));
  assert.equal(env.binary_fields.bin.encoding, 'base64');
});

test('typed errors render retry metadata and cap candidate lists', () => {
  const list = Array.from({ length: 20 }, (_, i) => ({ connection_id: `c${i}`, connector_key: 'k', grant_id: 'g' }));
  const r = errorResult(new ToolError({ code: 'ambiguous_connection', message: 'pick one', retry_with: 'connection_id', available_connections: list }));
  assert.equal(r.isError, true);
  const e = r.structuredContent.error;
  assert.equal(e.code, 'ambiguous_connection');
  assert.equal(e.retry_with, 'connection_id');
  assert.equal(e.available_connections.length, 12);
  assert.equal(e.available_connection_count, 20);
  assert.equal(e.available_connections_truncated, true);
  assert.match(r.content[0].text, /retry_with: connection_id/);
  assert.match(r.content[0].text, /Call schema/);
});
