// fetch (search/fetch document contract), read_record_field (bounded field windows) and the
// record/blob resource readers.

import { ToolError } from '../errors.mjs';
import { seg, rsErrorToToolError } from '../rs-client.mjs';
import { parseRecordHandle, recordHandle, recordUri } from '../handles.mjs';
import { resolveSource, candidateSummary, roleField, authoredField } from '../sources.mjs';
import { gateExpand } from './records.mjs';
import { recordEnvelope, detectBinaryString, isBlobRef, describeBlob, blobText, binaryText, LIMITS } from '../render.mjs';

const q = (v) => JSON.stringify(v);

/** Parse the id argument, reconcile it with an explicit connection_id. */
function target(args) {
  const t = parseRecordHandle(args.id);
  if (args.connection_id) {
    if (t.connection_id && t.connection_id !== args.connection_id) {
      throw new ToolError({
        code: 'invalid_argument',
        status: 400,
        param: 'connection_id',
        message: `id "${args.id}" names connection ${t.connection_id} but connection_id is "${args.connection_id}". Omit connection_id or pass a matching one.`,
      });
    }
    t.connection_id = args.connection_id;
  }
  return t;
}

/** Re-throw an RS ambiguity error enriched with connector/grant identity from the schema candidates. */
function enrichAmbiguity(err, resolved, tool, args) {
  if (!(err instanceof ToolError) || err.fields.code !== 'ambiguous_connection') return err;
  const cands = resolved.candidates ?? [];
  const listed = Array.isArray(err.fields.available_connections) ? err.fields.available_connections : [];
  const enriched = listed.map((c) => {
    const m = cands.find((x) => x.connection_id === c.connection_id);
    return m ? { ...candidateSummary(m), ...(c.display_name ? { display_name: c.display_name } : {}) } : c;
  });
  err.fields.available_connections = enriched;
  err.fields.available_connection_count = enriched.length;
  err.fields.retry_with = err.fields.retry_with ?? 'connection_id';
  err.fields.type = 'ambiguous_connection';
  if (enriched[0]?.connection_id) {
    const t = parseRecordHandle(args.id);
    const { connection_id: _ignored, ...rest } = args;
    err.fields.retry = { tool, arguments: { ...rest, id: recordHandle({ stream: t.stream, record_id: t.record_id, connection_id: enriched[0].connection_id }) } };
  }
  return err;
}

async function resolveFor(ctx, t, tool, args) {
  return resolveSource(ctx.rs, ctx.token, { stream: t.stream, connection_id: t.connection_id, mode: 'lenient', tool, args, signal: ctx.signal });
}

// ---------------------------------------------------------------------------------------------
// fetch

/**
 * Build the fetch document for one record.
 * @param {{ rs: import('../rs-client.mjs').RsClient, token: string, signal?: AbortSignal }} ctx
 * @param {any} args
 */
export async function buildDocument(ctx, args) {
  const t = target(args);
  const resolved = await resolveFor(ctx, t, 'fetch', args);
  gateExpand(resolved, t.stream, args);
  const connectionId = resolved.connection_id;
  const fields = args.fields?.length ? args.fields : null;
  let rec;
  try {
    rec = await ctx.rs.get(
      ctx.token,
      `/v1/streams/${seg(t.stream)}/records/${seg(t.record_id)}`,
      {
        fields: fields ?? undefined,
        expand: args.expand?.length ? args.expand : undefined,
        expand_limit: args.expand_limit,
        connection_id: connectionId ?? undefined,
      },
      { signal: ctx.signal },
    );
  } catch (err) {
    throw enrichAmbiguity(err, resolved, 'fetch', args);
  }
  const recConn = rec.connection_id ?? rec.connector_instance_id ?? connectionId ?? null;
  const row =
    resolved.rows?.find((r) => r.connections.some((c) => c.connection_id === recConn)) ?? resolved.row ?? (resolved.rows?.length === 1 ? resolved.rows[0] : null);
  const connectorOf = (cid) => resolved.candidates?.find((c) => c.connection_id === cid)?.connector_key ?? null;
  const env = recordEnvelope({ stream: t.stream, ...rec, id: rec.id ?? t.record_id }, { connection_id: recConn, connector_key: row?.connector_key ?? null, fields, connectorOf });
  const data = rec.data && typeof rec.data === 'object' ? rec.data : {};
  const projected = fields ? Object.fromEntries(Object.entries(data).filter(([k]) => fields.includes(k))) : data;

  // title: the declared primary-title field when present in the (projected) record
  const titleField = roleField(row, 'primary-title');
  const textField = roleField(row, 'primary-text');
  const timeField = authoredField(row);
  let title = null;
  if (titleField && typeof projected[titleField] === 'string' && projected[titleField].trim() && !detectBinaryString(projected[titleField])) {
    title = projected[titleField].length > 300 ? projected[titleField].slice(0, 300) + '…' : projected[titleField];
  }
  const authored = timeField && typeof projected[timeField] === 'string' ? projected[timeField] : null;
  if (!title) {
    title =
      `${t.stream} ${env.record_id}${rec.display_name ? ` · ${rec.display_name}` : ''}` +
      (authored ? ` · ${timeField} ${authored}` : rec.emitted_at ? ` · ingested ${rec.emitted_at}` : '');
  }

  // text: primary text first (bounded), then every other projected field as "name: value"
  const truncated = {};
  const parts = [];
  let budget = LIMITS.documentTextChars;
  const add = (s) => {
    if (budget <= 0) return false;
    const cut = s.length > budget ? s.slice(0, budget) : s;
    parts.push(cut);
    budget -= cut.length + 1;
    return cut.length === s.length;
  };
  const id = env.id;
  const noteTruncation = (k, shown, total, kind = 'text') => {
    truncated[k] = { kind, total_chars: total, shown_chars: shown, continue: { tool: 'read_record_field', arguments: { id, field: k, offset: shown } } };
  };
  if (textField && typeof projected[textField] === 'string' && !detectBinaryString(projected[textField])) {
    const v = projected[textField];
    const max = Math.min(LIMITS.documentPrimaryChars, budget);
    if (v.length > max) {
      add(v.slice(0, max) + `\n[… ${textField} truncated at ${max} of ${v.length} chars; continue with read_record_field ${q({ id, field: textField, offset: max })}]`);
      noteTruncation(textField, max, v.length);
    } else add(v);
    add('');
  }
  const other = Object.entries(projected).filter(([k]) => k !== textField);
  if (other.length) add('Fields:');
  for (const [k, v] of other) {
    let line;
    if (typeof v === 'string') {
      const b = detectBinaryString(v);
      if (b) line = `${k}: ${binaryText(b)}`;
      else if (v.length > 1000) {
        line = `${k}: ${v.slice(0, 1000)}… [truncated at 1000 of ${v.length} chars; continue with read_record_field ${q({ id, field: k, offset: 1000 })}]`;
        noteTruncation(k, 1000, v.length);
      } else line = `${k}: ${v}`;
    } else if (isBlobRef(v)) {
      line = `${k}: ${blobText(describeBlob(v, k, recConn))}`;
    } else if (v && typeof v === 'object') {
      const json = JSON.stringify(v);
      if (json.length > 1000) {
        line = `${k}: ${json.slice(0, 1000)}… [JSON truncated at 1000 of ${json.length} chars; continue with read_record_field ${q({ id, field: k, offset: 1000 })}]`;
        noteTruncation(k, 1000, json.length, 'json');
      } else line = `${k}: ${json}`;
    } else line = `${k}: ${JSON.stringify(v)}`;
    if (!add(line)) {
      noteTruncation(k, 0, typeof v === 'string' ? v.length : JSON.stringify(v).length, 'budget');
    }
  }
  if (env.expanded) {
    for (const [rel, ex] of Object.entries(env.expanded)) {
      add('');
      add(`Expanded ${rel} (${ex.records.length}${ex.has_more ? ', more exist' : ''}):`);
      ex.records.forEach((c, i) => {
        const kv = Object.entries(c.data)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? (v.length > 200 ? v.slice(0, 200) + '…' : v) : isBlobRef(v) ? blobText(describeBlob(v, k, c.connection_id)) : JSON.stringify(v).slice(0, 200)}`)
          .concat(Object.entries(c.binary_fields ?? {}).map(([k, b]) => `${k}=${binaryText(b)}`))
          .join('; ');
        add(`  ${i + 1}. id=${c.id}: ${kv}`);
      });
    }
  }
  if (budget <= 0) parts.push('[document text budget reached; see metadata.truncated_fields for continuations]');

  const metadata = {
    connection_id: recConn,
    connector_key: env.connector_key ?? rec.connector_key ?? null,
    ...(rec.display_name ? { display_name: rec.display_name } : {}),
    stream: t.stream,
    record_id: env.record_id,
    ...(rec.emitted_at ? { emitted_at: rec.emitted_at } : {}),
    ...(authored ? { event_time: authored, event_time_field: timeField } : {}),
    fields: Object.keys(projected),
    ...(fields ? { projection: fields } : {}),
    ...(titleField && title === projected[titleField] ? { title_field: titleField } : {}),
    ...(textField && projected[textField] != null ? { text_field: textField } : {}),
    ...(Object.keys(truncated).length ? { truncated_fields: truncated } : {}),
    ...(env.binary_fields ? { binary_fields: Object.fromEntries(Object.entries(env.binary_fields).map(([k, b]) => [k, { encoding: b.encoding, media_type: b.media_type, approx_bytes: b.approx_bytes, chars: b.chars, read: b.read }])) } : {}),
    ...(env.blobs ? { blobs: env.blobs } : {}),
    ...(env.expanded
      ? { expanded: Object.fromEntries(Object.entries(env.expanded).map(([rel, ex]) => [rel, { count: ex.records.length, has_more: ex.has_more, ids: ex.records.map((c) => c.id) }])) }
      : {}),
    ...(typeof rec.record_json_bytes === 'number' ? { record_json_bytes: rec.record_json_bytes } : {}),
  };
  return {
    id,
    title,
    text: parts.join('\n'),
    url: recordUri({ connection_id: recConn, stream: t.stream, record_id: env.record_id }),
    metadata,
  };
}

export async function fetchTool(ctx, args) {
  const doc = await buildDocument(ctx, args);
  return { content: [{ type: 'text', text: JSON.stringify(doc) }], structuredContent: doc };
}

// ---------------------------------------------------------------------------------------------
// read_record_field

/**
 * @param {{ rs: import('../rs-client.mjs').RsClient, token: string, signal?: AbortSignal }} ctx
 * @param {any} args
 */
export async function readRecordFieldTool(ctx, args) {
  if (args.q != null && args.offset != null)
    throw new ToolError({ code: 'invalid_argument', status: 400, param: 'offset', message: 'Use either q (jump to a match) or offset, not both.' });
  if (args.context_chars != null && args.q == null)
    throw new ToolError({ code: 'invalid_argument', status: 400, param: 'context_chars', message: 'context_chars only applies together with q.' });
  const t = target(args);
  const resolved = await resolveFor(ctx, t, 'read_record_field', args);
  const connectionId = resolved.connection_id;
  const limit = args.limit_chars ?? LIMITS.windowChars;
  const query = {
    field: args.field,
    offset_chars: args.q == null ? args.offset ?? 0 : undefined,
    limit_chars: args.q == null || args.limit_chars != null ? limit : undefined,
    q: args.q ?? undefined,
    before_chars: args.q != null ? args.context_chars ?? 300 : undefined,
    after_chars: args.q != null ? args.context_chars ?? 300 : undefined,
    connection_id: connectionId ?? undefined,
  };
  let body;
  try {
    body = await ctx.rs.get(ctx.token, `/v1/streams/${seg(t.stream)}/records/${seg(t.record_id)}/field-window`, query, { signal: ctx.signal });
  } catch (err) {
    if (err instanceof ToolError && err.fields.code === 'field_not_text') return nonTextField(ctx, args, t, resolved);
    throw enrichAmbiguity(err, resolved, 'read_record_field', args);
  }
  const w = body.window ?? {};
  const text = typeof w.text === 'string' ? w.text : '';
  const start = w.start_chars ?? 0;
  const end = w.end_chars ?? start + text.length;
  const total = w.total_chars ?? null;
  const recConn = body.connection_id ?? connectionId ?? t.connection_id ?? null;
  const id = recordHandle({ connection_id: recConn, stream: t.stream, record_id: t.record_id });
  const step = args.limit_chars ?? (w.limit_chars && args.q == null ? w.limit_chars : limit);
  const hasMoreAfter = w.has_more ?? (total != null ? end < total : w.next_offset_chars != null);
  const nextOffset = w.next_offset_chars ?? (hasMoreAfter ? end : null);
  const next = nextOffset != null ? { tool: 'read_record_field', arguments: { id, field: args.field, offset: nextOffset, limit_chars: step } } : null;
  const prevOffset = start > 0 ? Math.max(0, start - step) : null;
  const prev = prevOffset != null ? { tool: 'read_record_field', arguments: { id, field: args.field, offset: prevOffset, limit_chars: Math.min(step, start) } } : null;
  const binary = detectBinaryString(text.length >= 120 ? text : '');
  const complete = w.complete ?? (start === 0 && total != null && end >= total);
  const window = {
    text,
    start_chars: start,
    end_chars: end,
    total_chars: total,
    limit_chars: w.limit_chars ?? null,
    complete,
    has_more: hasMoreAfter,
    match_start_chars: w.match_start_chars ?? null,
    match_end_chars: w.match_end_chars ?? null,
    next_offset: nextOffset,
    previous_offset: prevOffset,
  };
  const warnings = Array.isArray(body.meta?.warnings) ? body.meta.warnings : [];
  const lines = [];
  lines.push(
    `read_record_field id=${id} field=${args.field} (${body.field?.type ?? 'string'}): chars ${start}–${end} of ${total ?? '?'}; ` +
      (complete ? 'complete (whole field shown)' : `partial${window.has_more ? ', more after' : ''}${start > 0 ? ', more before' : ''}`),
  );
  if (window.match_start_chars != null) lines.push(`match: chars ${window.match_start_chars}–${window.match_end_chars} (q=${q(args.q)})`);
  if (binary) {
    const approx = total != null ? Math.floor((total * 3) / 4) : binary.approx_bytes;
    lines.push(
      `note: this field holds ${binary.encoding}-encoded binary (~${approx} bytes${binary.media_type && start === 0 ? `, media type ${binary.media_type}` : ', media type unknown'}); the window shows encoded characters.`,
    );
  }
  for (const wn of warnings) lines.push(`warning ${wn.code ?? ''}: ${wn.message ?? JSON.stringify(wn)}`);
  lines.push('--- begin field text ---');
  lines.push(text);
  lines.push('--- end field text ---');
  if (next) lines.push(`Next: read_record_field ${q(next.arguments)}`);
  if (prev) lines.push(`Previous: read_record_field ${q(prev.arguments)}`);
  if (!next && !prev) lines.push('No further windows.');
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: {
      id,
      stream: t.stream,
      record_id: t.record_id,
      connection_id: recConn,
      field: { path: body.field?.path ?? args.field, type: body.field?.type ?? 'string' },
      window,
      ...(binary
        ? { binary: { encoding: binary.encoding, media_type: start === 0 ? binary.media_type : null, approx_bytes: total != null ? Math.floor((total * 3) / 4) : binary.approx_bytes } }
        : {}),
      next,
      previous: prev,
      ...(warnings.length ? { warnings } : {}),
    },
  };
}

/** Fallback for non-text fields: JSON value windows, or blob metadata. */
async function nonTextField(ctx, args, t, resolved) {
  const connectionId = resolved.connection_id;
  let rec;
  try {
    rec = await ctx.rs.get(
      ctx.token,
      `/v1/streams/${seg(t.stream)}/records/${seg(t.record_id)}`,
      { fields: [args.field], connection_id: connectionId ?? undefined },
      { signal: ctx.signal },
    );
  } catch (err) {
    throw enrichAmbiguity(err, resolved, 'read_record_field', args);
  }
  const recConn = rec.connection_id ?? connectionId ?? null;
  const id = recordHandle({ connection_id: recConn, stream: t.stream, record_id: t.record_id });
  const v = rec.data?.[args.field];
  if (v === undefined) {
    throw new ToolError({ code: 'field_not_found', status: 404, param: 'field', message: `Field "${args.field}" is not present on record ${id}.` });
  }
  if (isBlobRef(v)) {
    const d = describeBlob(v, args.field, recConn);
    const lines = [`read_record_field id=${id} field=${args.field} (blob reference): ${blobText(d)}`];
    if (d.resource_uri) lines.push(`The blob body is binary and is not inlined. Read it as MCP resource ${d.resource_uri}, or export it with ${d.rest_route} using this grant's token.`);
    const content = [{ type: 'text', text: lines.join('\n') }];
    if (d.resource_uri) {
      content.push({ type: 'resource_link', uri: d.resource_uri, name: `${args.field} (${d.blob_id})`, ...(d.media_type ? { mimeType: d.media_type } : {}), ...(d.size_bytes != null ? { size: d.size_bytes } : {}) });
    }
    return {
      content,
      structuredContent: { id, stream: t.stream, record_id: t.record_id, connection_id: recConn, field: { path: args.field, type: 'blob_ref' }, blob: d, window: null, next: null, previous: null },
    };
  }
  const json = JSON.stringify(v, null, 1);
  const total = json.length;
  const limit = Math.min(args.limit_chars ?? LIMITS.windowChars, 16384);
  let start = args.offset ?? 0;
  let matchStart = null;
  if (args.q != null) {
    const i = json.toLowerCase().indexOf(String(args.q).toLowerCase());
    if (i < 0) throw new ToolError({ code: 'query_not_found', status: 404, param: 'q', message: `"${args.q}" does not occur in field ${args.field}.` });
    matchStart = i;
    start = Math.max(0, i - (args.context_chars ?? 300));
  }
  start = Math.min(start, total);
  const end = Math.min(total, start + limit);
  const text = json.slice(start, end);
  const type = Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
  const next = end < total ? { tool: 'read_record_field', arguments: { id, field: args.field, offset: end, limit_chars: limit } } : null;
  const prev = start > 0 ? { tool: 'read_record_field', arguments: { id, field: args.field, offset: Math.max(0, start - limit), limit_chars: limit } } : null;
  const lines = [
    `read_record_field id=${id} field=${args.field} (${type}, shown as JSON text): chars ${start}–${end} of ${total}; ${start === 0 && end >= total ? 'complete' : 'partial'}`,
  ];
  if (matchStart != null) lines.push(`match: chars ${matchStart}–${matchStart + String(args.q).length} (q=${q(args.q)})`);
  lines.push('--- begin field JSON ---', text, '--- end field JSON ---');
  if (next) lines.push(`Next: read_record_field ${q(next.arguments)}`);
  if (prev) lines.push(`Previous: read_record_field ${q(prev.arguments)}`);
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: {
      id,
      stream: t.stream,
      record_id: t.record_id,
      connection_id: recConn,
      field: { path: args.field, type, serialized_as: 'json' },
      window: {
        text,
        start_chars: start,
        end_chars: end,
        total_chars: total,
        limit_chars: limit,
        complete: start === 0 && end >= total,
        has_more: end < total,
        match_start_chars: matchStart,
        match_end_chars: matchStart != null ? matchStart + String(args.q).length : null,
        next_offset: next ? end : null,
        previous_offset: prev ? prev.arguments.offset : null,
      },
      next,
      previous: prev,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Resources

export const MAX_BLOB_BYTES = 8 * 1024 * 1024;

export async function readRecordResource(ctx, uri, params) {
  const doc = await buildDocument(ctx, { id: `${encodeURIComponent(params.connection_id)}/${encodeURIComponent(params.stream)}/${encodeURIComponent(params.record_id)}` });
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(doc) }] };
}

export async function readBlobResource(ctx, uri, params) {
  const r = await ctx.rs.raw(ctx.token, `/v1/blobs/${seg(params.blob_id)}`, { connection_id: params.connection_id }, { signal: ctx.signal, binary: true });
  if (r.status < 200 || r.status >= 300) throw rsErrorToToolError(r, '/v1/blobs');
  if (r.bytes.length > MAX_BLOB_BYTES) {
    throw new ToolError({
      code: 'blob_too_large',
      status: 413,
      message: `${r.bytes.length} bytes exceeds the ${MAX_BLOB_BYTES}-byte resource limit; export it via GET /v1/blobs/${params.blob_id}?connection_id=${params.connection_id}.`,
    });
  }
  const mime = (r.headers.get('content-type') ?? 'application/octet-stream').split(';')[0].trim();
  if (/^text\//.test(mime) || /json|xml/.test(mime)) return { contents: [{ uri, mimeType: mime, text: r.bytes.toString('utf8') }] };
  return { contents: [{ uri, mimeType: mime, blob: r.bytes.toString('base64') }] };
}
