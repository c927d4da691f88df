// search: fan-in full-text search with a global limit, source identity per hit, bounded proven evidence.

import { ToolError } from '../errors.mjs';
import { seg } from '../rs-client.mjs';
import { recordHandle } from '../handles.mjs';
import { scopedRows, roleField } from '../sources.mjs';
import { balanceMarks, boundPreview, markedTerms, stripMarks, LIMITS } from '../render.mjs';

const q = (v) => JSON.stringify(v);

const ROUTES = { lexical: '/v1/search', semantic: '/v1/search/semantic', hybrid: '/v1/search/hybrid' };
const TITLE_LOOKUPS = 100;
/** hits beyond this rank get shorter previews so a 100-hit page stays bounded */
const FULL_PREVIEW_HITS = 10;
const SHORT_PREVIEW_CHARS = 160;
const TEXT_BUDGET = 20000;
const LOOKUP_CONCURRENCY = 6;

/** run tasks with bounded concurrency */
async function pool(items, n, fn) {
  const out = new Array(items.length);
  let i = 0;
  const workers = Array.from({ length: Math.min(n, items.length) }, async () => {
    while (i < items.length) {
      const k = i++;
      try {
        out[k] = await fn(items[k], k);
      } catch {
        out[k] = undefined;
      }
    }
  });
  await Promise.all(workers);
  return out;
}

/**
 * @param {{ rs: import('../rs-client.mjs').RsClient, token: string, signal?: AbortSignal }} ctx
 * @param {any} args
 */
export async function searchTool(ctx, args) {
  const mode = args.mode ?? 'lexical';
  const limit = args.limit ?? 10;
  if (mode === 'hybrid' && args.cursor)
    throw new ToolError({ code: 'invalid_argument', status: 400, param: 'cursor', message: 'Hybrid search has no cursor pagination; raise limit (max 100) or use mode "lexical" to page.' });
  if (args.filter && Object.keys(args.filter).length && (!args.streams || args.streams.length !== 1))
    throw new ToolError({ code: 'invalid_argument', status: 400, param: 'streams', message: 'filter requires exactly one stream in streams.' });

  let body;
  try {
    body = await ctx.rs.get(
      ctx.token,
      ROUTES[mode],
      {
        q: args.query,
        limit,
        cursor: args.cursor,
        streams: args.streams?.length ? args.streams : undefined,
        connection_id: args.connection_id,
        filter: args.filter && Object.keys(args.filter).length ? args.filter : undefined,
      },
      { signal: ctx.signal },
    );
  } catch (err) {
    if (err instanceof ToolError && err.fields.status === 404 && mode !== 'lexical' && !['connection_not_found', 'not_found_error'].includes(err.fields.code)) {
      throw new ToolError({
        code: 'search_mode_unavailable',
        status: 404,
        param: 'mode',
        message: `The resource server does not offer ${mode} search (${ROUTES[mode]} is not available).`,
        hint: 'Retry with mode "lexical".',
      });
    }
    throw err;
  }

  const raw = Array.isArray(body.data) ? body.data : [];
  const hits = raw.slice(0, limit); // limit = merged hits across every connection

  // Stream metadata (roles) for the streams present in the hits, one scoped schema call per stream.
  const streams = [...new Set(hits.map((h) => h.stream).filter(Boolean))];
  const rowsByStream = new Map();
  await pool(streams, LOOKUP_CONCURRENCY, async (s) => {
    const { rows } = await scopedRows(ctx.rs, ctx.token, s, ctx.signal);
    rowsByStream.set(s, rows ?? []);
  });
  const rowFor = (h) => {
    const rows = rowsByStream.get(h.stream) ?? [];
    const key = h.connector_key ?? h.connector_id;
    return (
      rows.find((r) => r.connections.some((c) => c.connection_id === h.connection_id) && (!key || r.connector_key === key)) ??
      rows.find((r) => r.connections.some((c) => c.connection_id === h.connection_id)) ??
      (rows.length === 1 ? rows[0] : null)
    );
  };

  const results = hits.map((h) => {
    const row = rowFor(h);
    const connectionId = h.connection_id ?? h.connector_instance_id ?? null;
    const recordId = String(h.record_key ?? h.record_id ?? h.id);
    const id = recordHandle({ connection_id: connectionId, stream: h.stream, record_id: recordId });
    const connectorKey = h.connector_key ?? row?.connector_key ?? h.connector_id ?? null;
    return { h, row, id, connectionId, recordId, connectorKey };
  });

  // Titles: the declared primary-title field of the record (from the snippet when it is that field
  // and complete, otherwise one bounded detail read per hit), else a timestamp-based fallback.
  const titles = new Array(results.length).fill(null);
  const lookups = [];
  results.forEach((r, i) => {
    if (r.h.title) {
      titles[i] = String(r.h.title);
      return;
    }
    const tf = roleField(r.row, 'primary-title');
    if (!tf) return;
    const sn = r.h.snippet;
    const snText = typeof sn === 'object' && sn ? sn.text : null;
    if (sn && typeof sn === 'object' && sn.field === tf && snText && !/^…|…$/.test(snText)) {
      titles[i] = stripMarks(snText);
      return;
    }
    if (lookups.length < TITLE_LOOKUPS) lookups.push({ i, tf });
  });
  await pool(lookups, LOOKUP_CONCURRENCY, async ({ i, tf }) => {
    const r = results[i];
    const rec = await ctx.rs.get(
      ctx.token,
      `/v1/streams/${seg(r.h.stream)}/records/${seg(r.recordId)}`,
      { fields: [tf], ...(r.connectionId ? { connection_id: r.connectionId } : {}) },
      { signal: ctx.signal },
    );
    const v = rec?.data?.[tf];
    if (typeof v === 'string' && v.trim()) titles[i] = v.length > 200 ? v.slice(0, 200) + '…' : v;
  });

  // Evidence: only proven match windows are rendered; collapsed previews get surrounding context.
  const evidences = await pool(results, LOOKUP_CONCURRENCY, async (r) => evidenceFor(ctx, r));

  const items = results.map((r, i) => {
    const h = r.h;
    const authored = h.authored_at ?? null;
    const title =
      titles[i] ??
      `${h.stream} ${r.recordId}${r.row?.connector_display_name || h.display_name ? ` · ${h.display_name ?? r.row.connector_display_name}` : ''}` +
        (authored ? ` · authored ${authored}` : h.emitted_at ? ` · ingested ${h.emitted_at}` : '');
    const item = {
      id: r.id,
      title,
      title_source: titles[i] ? 'record' : authored ? 'authored_at' : h.emitted_at ? 'emitted_at' : 'identity',
      connection_id: r.connectionId,
      connector_key: r.connectorKey,
      stream: h.stream,
      record_id: r.recordId,
    };
    if (h.display_name) item.display_name = h.display_name;
    if (authored) item.authored_at = authored;
    if (h.emitted_at) item.emitted_at = h.emitted_at;
    if (Array.isArray(h.matched_fields)) item.matched_fields = h.matched_fields;
    if (h.score) item.score = h.score;
    if (h.scores) item.scores = h.scores;
    if (h.retrieval_mode) item.retrieval_mode = h.retrieval_mode;
    item.evidence = evidences[i] ?? null;
    if (item.evidence && i >= FULL_PREVIEW_HITS) item.evidence = { ...item.evidence, preview: boundPreview(item.evidence.preview, SHORT_PREVIEW_CHARS) };
    return item;
  });

  // Source mix
  const mix = new Map();
  for (const it of items) {
    const k = `${it.connector_key}\u0000${it.connection_id}`;
    if (!mix.has(k)) mix.set(k, { connection_id: it.connection_id, connector_key: it.connector_key, ...(it.display_name ? { display_name: it.display_name } : {}), hits: 0 });
    mix.get(k).hits++;
  }
  const sourceMix = [...mix.values()];

  const hasMore = body.has_more === true || raw.length > hits.length;
  const nextCursor = raw.length > hits.length ? null : body.next_cursor ?? null;
  const nextCall = hasMore && nextCursor ? { tool: 'search', arguments: { ...args, cursor: nextCursor } } : null;
  const meta = body.meta ?? {};
  const total = typeof meta.count === 'number' ? meta.count : typeof meta.count?.value === 'number' ? meta.count.value : null;
  const warnings = Array.isArray(meta.warnings) ? meta.warnings : [];

  const lines = [];
  lines.push(
    `search ${q(args.query)} (${mode}${args.streams?.length ? `, streams ${args.streams.join(', ')}` : ''}${args.connection_id ? `, connection_id ${args.connection_id}` : ', all granted connections'}): ` +
      `${items.length} hit(s)${total != null ? ` of ${total}${meta.count_accuracy ? ` (${meta.count_accuracy})` : ''}` : ''}; limit ${limit}; has_more=${hasMore}`,
  );
  if (sourceMix.length > 1) {
    lines.push(`source mix: ${sourceMix.map((s) => `${s.connection_id} (${s.connector_key}${s.display_name ? ` ${q(s.display_name)}` : ''}) ${s.hits}`).join(' · ')}`);
  } else if (sourceMix.length === 1) {
    const s = sourceMix[0];
    lines.push(`source: ${s.connection_id} (${s.connector_key}${s.display_name ? ` ${q(s.display_name)}` : ''})`);
  }
  if (nextCursor) lines.push(`next_cursor: ${nextCursor}`);
  if (nextCall) lines.push(`Next page: search ${q(nextCall.arguments)}`);
  else if (hasMore) lines.push(mode === 'hybrid' ? 'More hits exist; hybrid search cannot page — raise limit or use mode "lexical".' : 'More hits exist but no cursor was returned; narrow with streams or connection_id.');
  for (const w of warnings) lines.push(`warning ${w.code ?? ''}: ${w.message ?? JSON.stringify(w)}`);
  lines.push('');
  let used = lines.join('\n').length;
  items.forEach((it, i) => {
    if (used > TEXT_BUDGET) {
      lines.push(`${i + 1}. ${it.title} — id ${it.id} (${it.connector_key ?? '?'}/${it.connection_id ?? '?'}; output budget reached: fetch for details)`);
      return;
    }
    const mark = lines.length;
    lines.push(`${i + 1}. ${it.title}`);
    lines.push(
      `   id: ${it.id} · connector ${it.connector_key ?? '?'} · connection ${it.connection_id ?? '?'}${it.display_name ? ` ${q(it.display_name)}` : ''} · stream ${it.stream} · record ${it.record_id}` +
        (it.authored_at ? ` · authored ${it.authored_at}` : ''),
    );
    const ev = it.evidence;
    if (ev) {
      lines.push(`   match in ${ev.field}${ev.role ? ` (role ${ev.role})` : ''}: ${ev.preview}`);
      lines.push(`   read more: read_record_field ${q(ev.read.arguments)} · whole record: fetch ${q({ id: it.id })}`);
    } else {
      lines.push(
        `   no proven text match to show${it.matched_fields?.length ? ` (matched fields: ${it.matched_fields.join(', ')})` : ''}; inspect with fetch ${q({ id: it.id })}` +
          (it.matched_fields?.length ? ` or read_record_field ${q({ id: it.id, field: it.matched_fields[0] })}` : ''),
      );
    }
    used += lines.slice(mark).join('\n').length + 1;
  });
  if (!items.length) lines.push('(no hits)');

  const structured = {
    query: args.query,
    mode,
    limit,
    results: items,
    source_mix: sourceMix,
    page: { has_more: hasMore, next_cursor: nextCursor, ...(total != null ? { total, count_accuracy: meta.count_accuracy ?? null } : {}) },
    ...(nextCall ? { next: nextCall } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
  return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: structured };
}

/**
 * Proven evidence for one hit: a lexical evidence excerpt or a highlighted snippet. Previews that
 * collapse to the highlighted term alone are widened with a bounded field-window read.
 */
async function evidenceFor(ctx, r) {
  const h = r.h;
  const ex = Array.isArray(h.evidence_excerpts) ? h.evidence_excerpts.find((e) => e && typeof e.preview_text === 'string') : null;
  const sn = h.snippet && typeof h.snippet === 'object' ? h.snippet : typeof h.snippet === 'string' ? { text: h.snippet, field: null } : null;
  let field = ex?.field_path ?? sn?.field ?? null;
  let text = ex?.preview_text ?? sn?.text ?? null;
  const provenLexical = !!ex && (ex.provenance == null || /match/.test(String(ex.provenance)));
  if (!text || !field) return null;
  text = balanceMarks(text);
  const terms = markedTerms(text);
  if (!provenLexical && terms.length === 0) return null; // unproven (e.g. semantic neighbourhood) -> no evidence window
  const role = r.row?.fields?.find((f) => f.name === field)?.role ?? null;
  const term = terms[0] ?? null;
  const read = { tool: 'read_record_field', arguments: { id: r.id, field, ...(term ? { q: term, context_chars: 400 } : { offset: 0 }) } };
  let preview = boundPreview(text, LIMITS.previewChars);
  let widened = false;
  let fieldTotal = null;
  const outside = stripMarks(text.replace(/<mark>[\s\S]*?<\/mark>/gi, '')).replace(/[\s….,;:!?'"()-]+/g, '');
  if (term && outside.length === 0) {
    // Preview is only the highlighted term: fetch bounded surrounding context from the field itself.
    try {
      const w = await ctx.rs.get(
        ctx.token,
        `/v1/streams/${seg(h.stream)}/records/${seg(r.recordId)}/field-window`,
        { field, q: term, before_chars: 160, after_chars: 160, ...(r.connectionId ? { connection_id: r.connectionId } : {}) },
        { signal: ctx.signal },
      );
      const win = w?.window;
      if (win && typeof win.text === 'string') {
        fieldTotal = win.total_chars ?? null;
        const ms = win.match_start_chars;
        const me = win.match_end_chars;
        const st = win.start_chars ?? 0;
        if (typeof ms === 'number' && typeof me === 'number' && win.text.length > me - ms) {
          const a = ms - st;
          const b = me - st;
          const built = `${st > 0 ? '…' : ''}${win.text.slice(0, a)}<mark>${win.text.slice(a, b)}</mark>${win.text.slice(b)}${win.has_more ? '…' : ''}`;
          preview = boundPreview(built, LIMITS.previewChars);
          widened = true;
        }
      }
    } catch {
      /* keep the RS preview */
    }
  }
  return {
    field,
    ...(role ? { role } : {}),
    preview,
    highlight: terms.length ? 'mark' : 'none',
    truncated: ex?.truncated ?? true,
    provenance: ex?.provenance ?? (terms.length ? 'highlighted_snippet' : null),
    ...(widened ? { context: 'widened_from_field_window' } : {}),
    ...(fieldTotal != null ? { field_total_chars: fieldTotal } : {}),
    read,
  };
}
