// query_records and aggregate: single-source structured reads of one stream.

import { ToolError } from '../errors.mjs';
import { seg } from '../rs-client.mjs';
import { resolveSource } from '../sources.mjs';
import { recordEnvelope, envelopeText, LIMITS } from '../render.mjs';

const q = (v) => JSON.stringify(v);

/** Reject expand when the live schema advertises no expand_capabilities for the stream (seed: invalid_expand). */
export function gateExpand(resolved, stream, args) {
  const wantsExpand = (Array.isArray(args.expand) && args.expand.length > 0) || (args.expand_limit && Object.keys(args.expand_limit).length > 0);
  if (!wantsExpand) return;
  if (!resolved.rows || resolved.rows.length === 0) return; // schema unavailable or stream unknown: defer to the RS
  const rows = resolved.row ? [resolved.row] : resolved.rows;
  if (rows.some((r) => r.expand_advertised)) return;
  throw new ToolError({
    code: 'invalid_expand',
    type: 'invalid_request_error',
    status: 400,
    param: 'expand',
    message: `Stream "${stream}"${resolved.connection_id ? ` (connection_id ${resolved.connection_id})` : ''} advertises no expand_capabilities in GET /v1/schema, so expand/expand_limit cannot be used on it. The RS records endpoint was not called.`,
    hint: 'Remove expand/expand_limit, or check expand_capabilities via schema(stream, connection_id) (GET /v1/schema).',
  });
}

/** Fail fast on arguments that do not make sense together (the RS would reject them too). */
function validateRecordsArgs(args) {
  if (args.changes_since != null) {
    const bad = ['sort', 'order', 'count'].filter((k) => args[k] != null && args[k] !== false);
    if (bad.length) {
      throw new ToolError({
        code: 'invalid_argument',
        type: 'invalid_request_error',
        status: 400,
        param: bad[0],
        message: `${bad.join(', ')} cannot be combined with changes_since (the changes feed has its own order).`,
      });
    }
    if (args.expand?.length) {
      throw new ToolError({ code: 'invalid_expand', status: 400, param: 'expand', message: 'expand cannot be combined with changes_since.' });
    }
  }
  if (args.expand_limit) {
    for (const rel of Object.keys(args.expand_limit)) {
      if (!args.expand?.includes(rel)) {
        throw new ToolError({
          code: 'invalid_expand',
          status: 400,
          param: 'expand_limit',
          message: `expand_limit names relation "${rel}" that is not in expand.`,
        });
      }
    }
  }
}

/**
 * @param {{ rs: import('../rs-client.mjs').RsClient, token: string, signal?: AbortSignal }} ctx
 * @param {any} args
 */
export async function queryRecordsTool(ctx, args) {
  validateRecordsArgs(args);
  const resolved = await resolveSource(ctx.rs, ctx.token, { stream: args.stream, connection_id: args.connection_id, mode: 'strict', tool: 'query_records', args, signal: ctx.signal });
  gateExpand(resolved, args.stream, args);
  const connectionId = resolved.connection_id;
  const connectorKey = resolved.row?.connector_key ?? null;
  const query = {
    limit: args.limit ?? 20,
    cursor: args.cursor,
    order: args.order,
    sort: args.sort,
    count: args.count ? 'exact' : undefined,
    fields: args.fields?.length ? args.fields : undefined,
    expand: args.expand?.length ? args.expand : undefined,
    expand_limit: args.expand_limit,
    changes_since: args.changes_since,
    connection_id: connectionId ?? undefined,
    filter: args.filter && Object.keys(args.filter).length ? args.filter : undefined,
  };
  const body = await ctx.rs.get(ctx.token, `/v1/streams/${seg(args.stream)}/records`, query, { signal: ctx.signal });
  const records = Array.isArray(body.data) ? body.data : [];
  const fields = args.fields?.length ? args.fields : null;
  const envelopes = records.map((r) => recordEnvelope({ stream: args.stream, ...r }, { connection_id: connectionId, connector_key: connectorKey, fields }));

  // ---- paging handles
  const hasMore = body.has_more === true;
  const nextCursor = body.next_cursor ?? null;
  const nextChanges = body.next_changes_since ?? null;
  const count = body.meta?.count && typeof body.meta.count === 'object' && body.meta.count.kind !== 'none' ? body.meta.count : null;
  const warnings = Array.isArray(body.meta?.warnings) ? body.meta.warnings : [];
  const isChanges = args.changes_since != null || (typeof args.cursor === 'string' && cursorKind(args.cursor) === 'changes');
  const baseArgs = { ...args };
  delete baseArgs.cursor;
  if (connectionId && !baseArgs.connection_id) baseArgs.connection_id = connectionId;
  let nextCall = null;
  if (hasMore && nextCursor) {
    const a = { ...baseArgs, cursor: nextCursor };
    if (isChanges) {
      delete a.changes_since;
      delete a.sort;
      delete a.order;
      delete a.count;
    }
    nextCall = { tool: 'query_records', arguments: a };
  }
  let resumeCall = null;
  if (nextChanges) {
    const a = { ...baseArgs, changes_since: nextChanges };
    delete a.sort;
    delete a.order;
    delete a.count;
    delete a.expand;
    delete a.expand_limit;
    resumeCall = { tool: 'query_records', arguments: a };
  }

  // ---- model-visible text (bounded)
  const lines = [];
  lines.push(
    `query_records stream=${args.stream}${connectionId ? ` connection_id=${connectionId}` : ''}${connectorKey ? ` (connector ${connectorKey}${envelopes[0]?.display_name ? `, connection ${q(envelopes[0].display_name)}` : ''})` : ''}: ` +
      `${envelopes.length} record(s); has_more=${hasMore}` +
      (isChanges ? ' (changes feed)' : ''),
  );
  if (count) lines.push(`count: ${count.value} (${count.kind})`);
  if (nextCursor) lines.push(`next_cursor: ${nextCursor}`);
  if (nextCall) lines.push(`Next page: query_records ${q(nextCall.arguments)}`);
  else if (hasMore) lines.push('has_more=true but the resource server returned no next_cursor; narrow with connection_id or filters to page further.');
  else lines.push('This is the last page.');
  if (nextChanges) {
    lines.push(`next_changes_since: ${nextChanges}`);
    lines.push(
      `${hasMore ? 'After paging to the last page, resume' : 'Resume'} changes later with: query_records ${q(resumeCall.arguments)}`,
    );
  }
  for (const w of warnings) lines.push(`warning ${w.code ?? ''}: ${w.message ?? JSON.stringify(w)}`);
  if (fields) lines.push(`fields: ${fields.join(', ')} (projection; envelope keys id/record_id/stream/connection_id/connector_key/emitted_at are operational)`);
  lines.push('');

  let used = lines.join('\n').length;
  let compactFrom = -1;
  for (let i = 0; i < envelopes.length; i++) {
    const t = envelopeText(envelopes[i], { index: i + 1, showSource: false });
    if (used + t.length > LIMITS.listTextChars) {
      compactFrom = i;
      break;
    }
    lines.push(t);
    used += t.length + 1;
  }
  if (compactFrom >= 0) {
    lines.push(
      `… output budget reached: records ${compactFrom + 1}–${envelopes.length} are listed by id only. Read them with fetch {"id":…}, or re-query with fewer fields or a smaller limit.`,
    );
    for (let i = compactFrom; i < envelopes.length; i++) lines.push(`${i + 1}. id=${envelopes[i].id}`);
  }
  if (!envelopes.length) lines.push('(no records)');

  // ---- structured output (bounded)
  let structuredRecords = envelopes;
  let structuredOmitted = 0;
  let size = JSON.stringify(envelopes).length;
  if (size > LIMITS.listStructuredBytes) {
    structuredRecords = [];
    size = 0;
    for (const e of envelopes) {
      const s = JSON.stringify(e).length;
      if (size + s > LIMITS.listStructuredBytes) {
        structuredRecords.push({ id: e.id, record_id: e.record_id, stream: e.stream, connection_id: e.connection_id, connector_key: e.connector_key, data_omitted: true });
        structuredOmitted++;
      } else {
        structuredRecords.push(e);
        size += s;
      }
    }
  }
  const structured = {
    stream: args.stream,
    connection_id: connectionId,
    connector_key: connectorKey,
    data: structuredRecords,
    page: {
      has_more: hasMore,
      next_cursor: nextCursor,
      ...(nextChanges ? { next_changes_since: nextChanges } : {}),
      ...(count ? { count } : {}),
    },
    ...(nextCall ? { next: nextCall } : {}),
    ...(resumeCall ? { resume: resumeCall } : {}),
    ...(warnings.length ? { warnings } : {}),
    ...(structuredOmitted ? { omitted: { records: structuredOmitted, reason: 'structured output budget; use fetch with each id' } } : {}),
  };
  return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: structured };
}

function cursorKind(cursor) {
  try {
    const j = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8'));
    return j?.session === 'changes' ? 'changes' : j?.kind ?? null;
  } catch {
    return null;
  }
}

/**
 * @param {{ rs: import('../rs-client.mjs').RsClient, token: string, signal?: AbortSignal }} ctx
 * @param {any} args
 */
export async function aggregateTool(ctx, args) {
  const grouped = args.group_by != null || args.group_by_time != null;
  if (args.group_by && args.group_by_time)
    throw new ToolError({ code: 'invalid_argument', status: 400, param: 'group_by', message: 'Use either group_by or group_by_time, not both.' });
  if (args.metric !== 'count' && args.field == null)
    throw new ToolError({ code: 'invalid_argument', status: 400, param: 'field', message: `metric "${args.metric}" needs field.` });
  if (args.metric === 'count' && args.field != null)
    throw new ToolError({ code: 'invalid_argument', status: 400, param: 'field', message: 'metric "count" takes no field (use count_distinct to count distinct values of a field).' });
  if (args.group_by_time && !args.granularity)
    throw new ToolError({ code: 'invalid_argument', status: 400, param: 'granularity', message: 'group_by_time needs granularity.' });
  if (!args.group_by_time && (args.granularity || args.time_zone))
    throw new ToolError({ code: 'invalid_argument', status: 400, param: args.granularity ? 'granularity' : 'time_zone', message: 'granularity and time_zone only apply with group_by_time.' });
  if (!grouped && args.limit != null)
    throw new ToolError({ code: 'invalid_argument', status: 400, param: 'limit', message: 'limit only applies to grouped aggregates.' });

  const resolved = await resolveSource(ctx.rs, ctx.token, { stream: args.stream, connection_id: args.connection_id, mode: 'strict', tool: 'aggregate', args, signal: ctx.signal });
  const connectionId = resolved.connection_id;
  const connectorKey = resolved.row?.connector_key ?? null;
  const body = await ctx.rs.get(
    ctx.token,
    `/v1/streams/${seg(args.stream)}/aggregate`,
    {
      metric: args.metric,
      field: args.field,
      group_by: args.group_by,
      group_by_time: args.group_by_time,
      granularity: args.granularity,
      time_zone: args.time_zone,
      limit: args.limit,
      connection_id: connectionId ?? undefined,
      filter: args.filter && Object.keys(args.filter).length ? args.filter : undefined,
    },
    { signal: ctx.signal },
  );
  const warnings = Array.isArray(body.meta?.warnings) ? body.meta.warnings : [];
  const what = `${body.metric ?? args.metric}${body.field ?? args.field ? `(${body.field ?? args.field})` : ''}`;
  const by = body.group_by ?? args.group_by;
  const byTime = body.group_by_time ?? args.group_by_time;
  const lines = [];
  lines.push(
    `aggregate stream=${args.stream}${connectionId ? ` connection_id=${connectionId}` : ''}${connectorKey ? ` (connector ${connectorKey})` : ''}: ${what}` +
      (by ? ` grouped by ${by}` : '') +
      (byTime ? ` grouped by ${byTime} per ${body.granularity ?? args.granularity}${body.time_zone ? ` (${body.time_zone})` : ''}` : '') +
      (args.filter ? ` where ${q(args.filter)}` : ''),
  );
  if (body.filtered_record_count != null) lines.push(`filtered_record_count: ${body.filtered_record_count}`);
  if (body.approximate) lines.push('approximate: true');
  if (Array.isArray(body.groups)) {
    lines.push(`groups (${body.groups.length}${body.limit != null ? `, limit ${body.limit}` : ''}):`);
    for (const g of body.groups) {
      const { key, ...vals } = g;
      const v = Object.entries(vals)
        .map(([k, x]) => (k === 'count' ? String(x) : `${k}=${JSON.stringify(x)}`))
        .join(', ');
      lines.push(`  ${key === null ? '(null)' : JSON.stringify(key)}: ${v}`);
    }
    if (body.other_count != null) lines.push(`other_count: ${body.other_count} (records in groups beyond the limit)`);
  } else if ('value' in body) {
    lines.push(`value: ${JSON.stringify(body.value)}`);
  }
  for (const w of warnings) lines.push(`warning ${w.code ?? ''}: ${w.message ?? JSON.stringify(w)}`);
  const { links, meta, object, ...data } = body;
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: {
      stream: args.stream,
      connection_id: connectionId,
      connector_key: connectorKey,
      data,
      ...(warnings.length ? { warnings } : {}),
    },
  };
}
