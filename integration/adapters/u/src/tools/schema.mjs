// schema tool: compact global index, stream-scoped capability summaries, scoped exhaustive detail.

import { ToolError, boundConnections } from '../errors.mjs';
import { schemaRows, candidatesOf, candidateSummary, assertNotOwner, roleField, isTimeType, authoredField } from '../sources.mjs';

const q = (v) => JSON.stringify(v);

const INDEX = {
  /** above this many streams the global index lists names only (no per-stream rows) */
  detailedRowLimit: 60,
  /** connections listed per connector in the global index */
  connectionsPerConnector: 50,
  /** hard cap of stream names in the global index (protects hosts from megabyte results) */
  maxNames: 3000,
  /** detailed stream rows rendered by schema(stream) */
  scopedRowLimit: 10,
  /** byte cap for the scoped exhaustive document */
  fullDocBytes: 200000,
};

export const GRANULARITIES = ['minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];

/**
 * @param {{ rs: import('../rs-client.mjs').RsClient, token: string, signal?: AbortSignal }} ctx
 * @param {{ stream?: string, connection_id?: string, detail?: 'compact' | 'full' }} args
 */
export async function schemaTool(ctx, args) {
  const detail = args.detail ?? 'compact';
  if (detail === 'full' && !args.stream) {
    throw new ToolError({
      code: 'invalid_argument',
      type: 'invalid_request_error',
      param: 'detail',
      message:
        'detail "full" requires stream: exhaustive JSON Schema is only served for one stream. Run compact discovery first, then call schema(stream, connection_id, detail: "full").',
      hint: 'Call schema() for the index, then schema({"stream":"<name>","connection_id":"<id>","detail":"full"}).',
    });
  }
  if (!args.stream) return globalIndex(ctx, args);
  if (detail === 'full') return fullDetail(ctx, args);
  return scopedSummary(ctx, args);
}

async function getCompact(ctx, query) {
  try {
    return await ctx.rs.get(ctx.token, '/v1/schema', { view: 'compact', ...query }, { signal: ctx.signal });
  } catch (err) {
    // Older resource servers may not know view=compact: fall back to the plain document.
    if (err instanceof ToolError && err.fields.status === 400 && ['invalid_request', 'bad_request', 'unsupported_query'].includes(err.fields.code)) {
      return ctx.rs.get(ctx.token, '/v1/schema', query, { signal: ctx.signal });
    }
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Global index

async function globalIndex(ctx, args) {
  const doc = await getCompact(ctx, args.connection_id ? { connection_id: args.connection_id } : {});
  assertNotOwner(doc);
  let rows = schemaRows(doc);
  if (args.connection_id) {
    rows = rows
      .map((r) => ({ ...r, connections: r.connections.filter((c) => c.connection_id === args.connection_id) }))
      .filter((r) => r.connections.length);
  }
  const bearer = doc.bearer ?? {};
  // group rows by connector
  const connectors = new Map();
  for (const r of rows) {
    const key = r.connector_key ?? '(unknown)';
    if (!connectors.has(key)) connectors.set(key, { connector_key: key, display_name: r.connector_display_name, connections: new Map(), rows: [] });
    const c = connectors.get(key);
    c.rows.push(r);
    for (const conn of r.connections) if (!c.connections.has(conn.connection_id)) c.connections.set(conn.connection_id, conn);
  }
  // Connector-level granted connections from the document (covers connectors whose streams list none).
  for (const connector of Array.isArray(doc.connectors) ? doc.connectors : []) {
    const key = connector.connector_key ?? connector.connector_id;
    const c = connectors.get(key);
    if (!c) continue;
    for (const conn of Array.isArray(connector.granted_connections) ? connector.granted_connections : []) {
      if (args.connection_id && conn.connection_id !== args.connection_id) continue;
      if (conn?.connection_id && !c.connections.has(conn.connection_id)) c.connections.set(conn.connection_id, { connection_id: conn.connection_id, display_name: conn.display_name ?? null });
    }
  }
  const streamCount = rows.length;
  const connectionIds = new Set(rows.flatMap((r) => r.connections.map((c) => c.connection_id)));
  const detailed = streamCount <= INDEX.detailedRowLimit;

  // shared stream names across connections
  const byName = new Map();
  for (const r of rows) {
    if (!byName.has(r.name)) byName.set(r.name, []);
    byName.get(r.name).push(r);
  }
  const shared = [...byName.entries()]
    .filter(([, rs]) => rs.length > 1)
    .map(([name, rs]) => ({ name, sources: rs.map((r) => ({ connector_key: r.connector_key, connection_ids: r.connections.map((c) => c.connection_id) })) }));

  const lines = [];
  lines.push(
    `PDPP schema index${bearer.grant_id ? ` — grant ${bearer.grant_id}` : ''}${bearer.client_id ? ` (client ${bearer.client_id})` : ''}: ` +
      `${connectors.size} connector(s), ${connectionIds.size} connection(s), ${streamCount} stream(s)` +
      (args.connection_id ? `, narrowed to connection_id ${args.connection_id}` : '') +
      '.',
  );
  lines.push('Next: schema({"stream":"<name>","connection_id":"<id>"}) shows fields, filters, sort, projection, aggregation, expand and search support for one stream.');
  if (!detailed) lines.push(`Index mode: ${streamCount} streams exceed ${INDEX.detailedRowLimit}, so only stream names are listed per connector.`);
  if ([...connectors.values()].some((c) => c.connections.size > 1)) {
    lines.push('Streams served by more than one connection need connection_id for query_records and aggregate (search and fetch work across connections).');
  }
  lines.push('');

  let names = 0;
  let namesTruncated = false;
  const structuredConnectors = [];
  for (const c of connectors.values()) {
    const conns = [...c.connections.values()];
    const shownConns = conns.slice(0, INDEX.connectionsPerConnector);
    const connText = shownConns.map((x) => `${x.connection_id}${x.display_name ? ` ${q(x.display_name)}` : ''}`).join(', ');
    const more = conns.length > shownConns.length ? ` … and ${conns.length - shownConns.length} more (schema(stream) lists each stream's connections)` : '';
    const sc = {
      connector_key: c.connector_key,
      ...(c.display_name ? { display_name: c.display_name } : {}),
      connection_count: conns.length,
      connections: shownConns.map((x) => ({ connection_id: x.connection_id, ...(x.display_name ? { display_name: x.display_name } : {}) })),
      streams: [],
    };
    if (conns.length > shownConns.length) sc.connections_truncated = true;
    const header = `connector ${c.connector_key}${c.display_name ? ` ${q(c.display_name)}` : ''} — ${conns.length === 1 ? 'connection' : `${conns.length} connections`}: ${connText}${more}`;
    if (detailed) {
      lines.push(header);
      for (const r of c.rows) {
        if (names >= INDEX.maxNames) {
          namesTruncated = true;
          break;
        }
        names++;
        const parts = [`  - ${r.name}`];
        if (r.record_count != null) parts.push(`${r.record_count} records`);
        const sameAsConnector = r.connections.length === conns.length;
        if (conns.length > 5 && sameAsConnector) parts.push(`all ${conns.length} connections of ${c.connector_key}`);
        else if (!sameAsConnector || conns.length > 1) {
          parts.push(`${r.connections.length === 1 ? 'connection' : 'connections'}: ${r.connections.map((x) => x.connection_id).join(', ')}`);
        }
        lines.push(parts.join(' · '));
        sc.streams.push({
          name: r.name,
          ...(r.record_count != null ? { record_count: r.record_count } : {}),
          connection_ids: r.connections.map((x) => x.connection_id),
        });
      }
    } else {
      const list = [];
      for (const r of c.rows) {
        if (names >= INDEX.maxNames) {
          namesTruncated = true;
          break;
        }
        names++;
        list.push(r.name);
        sc.streams.push({ name: r.name });
      }
      lines.push(`${header} — ${c.rows.length} streams: ${list.join(', ')}`);
    }
    structuredConnectors.push(sc);
    if (namesTruncated) break;
  }
  if (namesTruncated) {
    lines.push(`… stream list cut at ${INDEX.maxNames} names. Narrow with schema({"connection_id":"<id>"}) to list one connection's streams.`);
  }
  if (shared.length) {
    lines.push('');
    lines.push('Stream names shared by several connectors (different schemas; pass connection_id):');
    for (const s of shared.slice(0, 40)) {
      lines.push(`  - ${s.name} → ${s.sources.map((x) => `${x.connection_ids.join(', ')} (${x.connector_key})`).join('; ')}`);
    }
    if (shared.length > 40) lines.push(`  … and ${shared.length - 40} more shared names.`);
  }

  const data = {
    object: 'schema_index',
    detail: detailed ? 'index' : 'names',
    ...(bearer.grant_id ? { grant_id: bearer.grant_id } : {}),
    ...(bearer.client_id ? { client_id: bearer.client_id } : {}),
    connector_count: connectors.size,
    connection_count: connectionIds.size,
    stream_count: streamCount,
    connectors: structuredConnectors,
  };
  if (shared.length) data.shared_streams = shared.slice(0, 40);
  if (namesTruncated) data.truncated = { reason: 'max_names', max_names: INDEX.maxNames };
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: { data, next: { tool: 'schema', arguments: { stream: '<name>', connection_id: '<id>' } } },
  };
}

// ---------------------------------------------------------------------------------------------
// Stream-scoped compact summary

function mergeFull(compactRows, fullRows) {
  const key = (r) => `${r.connector_key}\u0000${r.name}`;
  const full = new Map(fullRows.map((r) => [key(r), r]));
  return compactRows.map((r) => {
    const f = full.get(key(r));
    if (!f) return r;
    const fieldsByName = new Map(f.fields.map((x) => [x.name, x]));
    return {
      ...r,
      consent_time_field: r.consent_time_field ?? f.consent_time_field,
      query: f.query ?? r.query,
      fields: r.fields.map((x) => {
        const y = fieldsByName.get(x.name);
        return y && !x.type ? { ...x, type: y.type } : x;
      }),
      expand: r.expand.length ? r.expand : f.expand,
      expand_advertised: r.expand_advertised || f.expand_advertised,
      json_schema: f.raw?.schema ?? null,
    };
  });
}

/** Summarise one row's capabilities for structured output. */
export function rowCapabilities(r) {
  const agg = { count: r.query?.aggregations ? r.query.aggregations.count === true : null };
  for (const op of ['sum', 'min', 'max', 'count_distinct', 'group_by', 'group_by_time']) agg[op] = r.fields.filter((f) => f.agg.includes(op)).map((f) => f.name);
  return {
    name: r.name,
    connections: r.connections.map((c) => ({ connection_id: c.connection_id, ...(c.display_name ? { display_name: c.display_name } : {}) })),
    ...(r.record_count != null ? { record_count: r.record_count } : {}),
    primary_key: r.primary_key,
    cursor_field: r.cursor_field,
    sortable: r.cursor_field ? [r.cursor_field, `-${r.cursor_field}`] : [],
    count: { query_records: true, aggregate_metric_count: agg.count },
    projection: true,
    fields: r.fields.map((f) => {
      const o = { name: f.name };
      if (f.type) o.type = f.type;
      if (f.role) o.role = f.role;
      if (f.granted === false) o.granted = false;
      const filter = [...(f.eq ? ['eq'] : []), ...f.range];
      if (filter.length) o.filter = filter;
      const search = [...(f.lex ? ['lexical'] : []), ...(f.sem ? ['semantic'] : [])];
      if (search.length) o.search = search;
      if (f.agg.length) o.aggregate = f.agg;
      if (Object.keys(f.unusable).length) o.unusable = f.unusable;
      return o;
    }),
    aggregations: agg,
    expand: r.expand,
    search_modes: {
      lexical: r.fields.filter((f) => f.lex).map((f) => f.name),
      semantic: r.fields.filter((f) => f.sem).map((f) => f.name),
    },
  };
}

const LEGEND =
  'Legend: filter eq = exact match, pass filter {"field": value}; filter gte/gt/lte/lt = range, pass filter {"field": {"gte": value}}; ' +
  'search lexical/semantic = the field is matched by search(mode); aggregate ops = usable as aggregate metric field (sum/min/max/count_distinct) or group_by/group_by_time; ' +
  'role = display role declared by the connector manifest; "not granted" = listed but not readable under this grant. Any listed field can be projected with fields=[...].';

/** Text rendering of one row's capabilities. */
export function rowText(r, index, total) {
  const lines = [];
  const conns = r.connections.map((c) => `${c.connection_id}${c.display_name ? ` ${q(c.display_name)}` : ''}`).join(', ');
  lines.push(`${total > 1 ? `[${index}] ` : ''}connector ${r.connector_key}${r.connector_display_name ? ` ${q(r.connector_display_name)}` : ''} · stream ${r.name} · ${r.connections.length === 1 ? 'connection' : 'connections'}: ${conns || '(none listed)'}`);
  const facts = [];
  if (r.record_count != null) facts.push(`records: ${r.record_count}`);
  if (r.primary_key?.length) facts.push(`primary key: ${r.primary_key.join(', ')}`);
  facts.push(
    r.cursor_field
      ? `sort: "${r.cursor_field}" or "-${r.cursor_field}" (only the cursor field is sortable; order asc|desc)`
      : 'sort: no sortable field advertised (default order; order asc|desc)',
  );
  const aggCount = r.query?.aggregations ? (r.query.aggregations.count === true ? 'yes' : 'no') : 'not advertised';
  facts.push(`count: query_records count=true gives an exact total; aggregate metric=count: ${aggCount}`);
  lines.push(`    ${facts.join(' · ')}`);
  lines.push(`    fields (${r.fields.length}) — name: type[, role]; capabilities:`);
  for (const f of r.fields) {
    const parts = [];
    parts.push(`${f.type ?? 'unknown type'}${f.role ? `, role ${f.role}` : ''}`);
    if (f.granted === false) parts.push('not granted');
    const filter = [...(f.eq ? ['eq'] : []), ...f.range];
    if (filter.length) parts.push(`filter ${filter.join(', ')}`);
    const search = [...(f.lex ? ['lexical'] : []), ...(f.sem ? ['semantic'] : [])];
    if (search.length) parts.push(`search ${search.join(', ')}`);
    if (f.agg.length) parts.push(`aggregate ${f.agg.join(', ')}`);
    if (r.cursor_field === f.name) parts.push('sortable');
    const un = Object.entries(f.unusable);
    if (un.length) parts.push(`declared but unusable: ${un.map(([k, v]) => `${k} (${v})`).join(', ')}`);
    lines.push(`      ${f.name}: ${parts.join('; ')}`);
  }
  lines.push(`    projection: fields=[...] accepts any field above`);
  const caps = rowCapabilities(r).aggregations;
  const aggParts = [];
  if (caps.count !== null) aggParts.push(`metric=count ${caps.count ? 'yes' : 'no'}`);
  for (const op of ['sum', 'min', 'max', 'count_distinct']) if (caps[op].length) aggParts.push(`${op}: ${caps[op].join(', ')}`);
  if (caps.group_by.length) aggParts.push(`group_by: ${caps.group_by.join(', ')}`);
  if (caps.group_by_time.length) aggParts.push(`group_by_time: ${caps.group_by_time.join(', ')} (granularity ${GRANULARITIES.join('|')})`);
  lines.push(`    aggregate: ${aggParts.length ? aggParts.join(' · ') : 'no aggregations advertised'}`);
  const usableExpand = r.expand.filter((e) => e.usable);
  lines.push(
    `    expand: ${
      r.expand.length
        ? r.expand
            .map(
              (e) =>
                `${e.name} → ${e.target_stream ?? '?'} (${e.cardinality ?? 'relation'}${e.default_limit != null ? `, default ${e.default_limit}` : ''}${e.max_limit != null ? `, max ${e.max_limit}` : ''}${e.usable ? '' : `, unusable: ${e.reason ?? 'not granted'}`})`,
            )
            .join('; ')
        : 'none (expand is rejected for this stream)'
    }`,
  );
  const lex = r.fields.filter((f) => f.lex).map((f) => f.name);
  const sem = r.fields.filter((f) => f.sem).map((f) => f.name);
  lines.push(`    search: ${lex.length ? `lexical on ${lex.join(', ')}` : 'no lexical search fields advertised'}${sem.length ? `; semantic on ${sem.join(', ')}` : ''}`);

  // Concrete examples built from the advertised capabilities.
  const cid = r.connections.length ? r.connections[0].connection_id : undefined;
  const base = { stream: r.name, ...(cid ? { connection_id: cid } : {}) };
  const pick = [];
  const title = roleField(r, 'primary-title');
  const time = authoredField(r) ?? r.fields.find((f) => isTimeType(f.type))?.name;
  for (const n of [...r.primary_key, title, time]) if (n && !pick.includes(n) && r.fields.some((f) => f.name === n)) pick.push(n);
  const ex = { ...base };
  if (pick.length) ex.fields = pick;
  const rangeField = r.fields.find((f) => f.range.includes('gte'));
  const eqField = r.fields.find((f) => f.eq && f.role === 'metadata') ?? null;
  if (rangeField) ex.filter = { [rangeField.name]: { gte: isTimeType(rangeField.type) ? '2026-01-01T00:00:00Z' : 0 } };
  else if (eqField) ex.filter = { [eqField.name]: '<value>' };
  if (r.cursor_field) ex.sort = `-${r.cursor_field}`;
  ex.limit = 10;
  lines.push(`    example: query_records ${q(ex)}`);
  const gb = caps.group_by[0];
  const gbt = caps.group_by_time[0];
  if (caps.count !== false && (gb || gbt)) {
    lines.push(
      `    example: aggregate ${q(gb ? { ...base, metric: 'count', group_by: gb, limit: 10 } : { ...base, metric: 'count', group_by_time: gbt, granularity: 'month' })}`,
    );
  }
  if (usableExpand.length) lines.push(`    example: query_records ${q({ ...base, expand: [usableExpand[0].name], limit: 5 })}`);
  return lines.join('\n');
}

async function loadScopedRows(ctx, stream, connectionId) {
  const [compact, full] = await Promise.all([
    getCompact(ctx, { stream }),
    ctx.rs.get(ctx.token, '/v1/schema', { stream, ...(connectionId ? { connection_id: connectionId } : {}) }, { signal: ctx.signal }).catch(() => null),
  ]);
  assertNotOwner(compact);
  const compactRows = schemaRows(compact).filter((r) => r.name === stream);
  const fullRows = full ? schemaRows(full).filter((r) => r.name === stream) : [];
  return { rows: mergeFull(compactRows, fullRows), bearer: compact.bearer ?? {} };
}

function narrow(rows, stream, connectionId) {
  if (!connectionId) return rows;
  const narrowed = rows
    .map((r) => ({ ...r, connections: r.connections.filter((c) => c.connection_id === connectionId) }))
    .filter((r) => r.connections.length);
  if (!narrowed.length) {
    const cands = candidatesOf(rows).map(candidateSummary);
    throw new ToolError({
      code: 'connection_not_found',
      type: 'not_found_error',
      status: 404,
      param: 'connection_id',
      retry_with: 'connection_id',
      message: `Stream "${stream}" is not granted under connection_id "${connectionId}".`,
      ...boundConnections(cands),
    });
  }
  return narrowed;
}

function streamNotFound(stream) {
  return new ToolError({
    code: 'stream_not_found',
    type: 'not_found_error',
    status: 404,
    param: 'stream',
    message: `No granted stream is named "${stream}".`,
    hint: 'Call schema() for the index of granted streams (names are case-sensitive).',
  });
}

async function scopedSummary(ctx, args) {
  const { rows: all, bearer } = await loadScopedRows(ctx, args.stream, args.connection_id);
  if (!all.length) throw streamNotFound(args.stream);
  const rows = narrow(all, args.stream, args.connection_id);
  const sources = candidatesOf(rows).length;
  const lines = [];
  lines.push(
    `Stream "${args.stream}"${args.connection_id ? ` narrowed to connection_id ${args.connection_id}` : ''}: ${rows.length} connector row(s), ${sources} source connection(s).` +
      (sources > 1 ? ' query_records/aggregate need connection_id; pick one below.' : ''),
  );
  const shown = rows.slice(0, INDEX.scopedRowLimit);
  shown.forEach((r, i) => {
    lines.push('');
    lines.push(rowText(r, i + 1, shown.length));
  });
  if (rows.length > shown.length) {
    lines.push('');
    lines.push(
      `… ${rows.length - shown.length} more connector rows not detailed: ${rows
        .slice(shown.length)
        .map((r) => `${r.connector_key} (${r.connections.map((c) => c.connection_id).join(', ')})`)
        .join('; ')}. Narrow with connection_id.`,
    );
  }
  lines.push('');
  lines.push(LEGEND);
  lines.push('Exhaustive raw JSON Schema: schema({"stream":"…","connection_id":"…","detail":"full"}).');

  const byConnector = new Map();
  for (const r of shown) {
    if (!byConnector.has(r.connector_key)) byConnector.set(r.connector_key, { connector_key: r.connector_key, ...(r.connector_display_name ? { display_name: r.connector_display_name } : {}), streams: [] });
    byConnector.get(r.connector_key).streams.push(rowCapabilities(r));
  }
  const data = {
    object: 'schema',
    detail: 'stream',
    stream: args.stream,
    ...(args.connection_id ? { connection_id: args.connection_id } : {}),
    ...(bearer.grant_id ? { grant_id: bearer.grant_id } : {}),
    source_count: sources,
    connectors: [...byConnector.values()],
  };
  if (rows.length > shown.length) data.truncated = { rows_total: rows.length, rows_shown: shown.length };
  return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: { data } };
}

// ---------------------------------------------------------------------------------------------
// Scoped exhaustive detail

async function fullDetail(ctx, args) {
  // Disambiguate from the compact scoped document before asking for exhaustive detail.
  const compact = await getCompact(ctx, { stream: args.stream });
  assertNotOwner(compact);
  const rows = schemaRows(compact).filter((r) => r.name === args.stream);
  if (!rows.length) throw streamNotFound(args.stream);
  const cands = candidatesOf(rows);
  let connectionId = args.connection_id ?? null;
  if (connectionId) {
    if (!cands.some((c) => c.connection_id === connectionId)) narrow(rows, args.stream, connectionId); // throws
  } else if (cands.length > 1) {
    throw new ToolError({
      code: 'ambiguous_connection',
      type: 'ambiguous_connection',
      status: 409,
      param: 'connection_id',
      retry_with: 'connection_id',
      message: `Stream "${args.stream}" resolves to ${cands.length} granted sources; exhaustive schema is served for one source only. Retry with connection_id.`,
      ...boundConnections(cands.map(candidateSummary)),
    });
  } else if (cands.length === 1) connectionId = cands[0].connection_id;

  const doc = await ctx.rs.get(
    ctx.token,
    '/v1/schema',
    { detail: 'full', stream: args.stream, ...(connectionId ? { connection_id: connectionId } : {}) },
    { signal: ctx.signal },
  );
  assertNotOwner(doc);
  const { links, meta, streams: topLevelStreams, ...rest } = doc;
  const data = { ...rest };
  // keep only the selected stream rows, nested under connectors (no duplicate top-level list)
  if (Array.isArray(data.connectors)) {
    data.connectors = data.connectors
      .map((c) => ({ ...c, streams: (Array.isArray(c.streams) ? c.streams : []).filter((s) => s.name === args.stream) }))
      .filter((c) => c.streams.length);
  } else if (Array.isArray(topLevelStreams)) {
    data.streams = topLevelStreams.filter((s) => s.name === args.stream);
  }
  // Only the selected connection, and no deprecated connector_instance_id alias.
  for (const c of data.connectors ?? []) {
    for (const st of c.streams ?? []) {
      if (connectionId) {
        if (Array.isArray(st.instance_ids)) st.instance_ids = st.instance_ids.filter((x) => x === connectionId);
        if (Array.isArray(st.granted_connections)) st.granted_connections = st.granted_connections.filter((x) => x?.connection_id === connectionId);
      }
    }
    if (connectionId && Array.isArray(c.granted_connections)) c.granted_connections = c.granted_connections.filter((x) => x?.connection_id === connectionId);
  }
  stripAlias(data);
  let truncated = null;
  if (JSON.stringify(data).length > INDEX.fullDocBytes) {
    truncated = { reason: 'size', max_bytes: INDEX.fullDocBytes, note: 'per-field capability objects were reduced; raw property JSON Schemas are kept under streams[].schema' };
    for (const c of data.connectors ?? []) for (const s of c.streams) if (s.field_capabilities) for (const k of Object.keys(s.field_capabilities)) delete s.field_capabilities[k].schema;
    if (JSON.stringify(data).length > INDEX.fullDocBytes) {
      for (const c of data.connectors ?? []) for (const s of c.streams) delete s.field_capabilities;
      truncated.note = 'field_capabilities omitted for size; use schema(stream, connection_id) for the capability summary';
    }
    data.truncated = truncated;
  }

  const summaryRows = schemaRows(doc).filter((r) => r.name === args.stream);
  const lines = [`Exhaustive schema for stream "${args.stream}"${connectionId ? ` (connection_id ${connectionId})` : ''} — the document is in structuredContent.data; summary and raw JSON Schema follow.`];
  summaryRows.forEach((r, i) => {
    lines.push('');
    lines.push(rowText(mergeFull([r], [r])[0], i + 1, summaryRows.length));
    const js = r.raw?.schema;
    if (js) {
      let s = JSON.stringify(js);
      if (s.length > 30000) s = s.slice(0, 30000) + `… [JSON Schema text cut at 30000 of ${s.length} chars; complete in structuredContent.data]`;
      lines.push(`    raw JSON Schema: ${s}`);
    }
  });
  lines.push('');
  lines.push(LEGEND);
  return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: { data } };
}

/** Remove the deprecated connector_instance_id alias everywhere in a document. */
function stripAlias(v) {
  if (Array.isArray(v)) for (const x of v) stripAlias(x);
  else if (v && typeof v === 'object') {
    delete v.connector_instance_id;
    for (const x of Object.values(v)) stripAlias(x);
  }
}
