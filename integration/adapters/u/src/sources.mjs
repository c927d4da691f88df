// Schema parsing and source (connection) resolution.
//
// The adapter learns which connections serve a stream, and what each stream can do, only from the
// RS schema document (GET /v1/schema). It never probes connections individually.

import { ToolError, boundConnections } from './errors.mjs';

const AGG_OPS = ['count_distinct', 'group_by', 'group_by_time', 'max', 'min', 'sum'];
const TIME_TYPES = new Set(['timestamp', 'datetime', 'date-time', 'date', 'time']);

/**
 * Parse one compact field-capability flag string, e.g. "t=string,role=primary-title,eq,r=gte|lt,lex,a=max|min".
 * @param {string} s
 */
export function parseFlagString(s) {
  const f = { type: null, role: null, granted: true, eq: false, range: [], lex: false, sem: false, agg: [], unusable: {} };
  if (typeof s !== 'string') return f;
  for (const raw of s.split(',')) {
    const tok = raw.trim();
    if (!tok || tok === 'declared') continue;
    const eq = tok.indexOf('=');
    const key = eq < 0 ? tok : tok.slice(0, eq);
    const val = eq < 0 ? null : tok.slice(eq + 1);
    if (val != null && val.startsWith('unusable')) {
      f.unusable[key] = val.includes(':') ? val.slice(val.indexOf(':') + 1) : 'unusable';
      continue;
    }
    switch (key) {
      case 't':
        f.type = val;
        break;
      case 'role':
        f.role = val;
        break;
      case 'g':
        f.granted = val !== 'false';
        break;
      case 'eq':
        f.eq = true;
        break;
      case 'r':
        f.range = val ? val.split('|').filter(Boolean) : ['gte', 'gt', 'lte', 'lt'];
        break;
      case 'lex':
        f.lex = true;
        break;
      case 'sem':
        f.sem = true;
        break;
      case 'a':
        f.agg = val ? val.split('|').filter(Boolean) : [];
        break;
      default:
        break;
    }
  }
  return f;
}

/** @param {any} schema JSON Schema of one property */
function jsonSchemaType(schema) {
  if (!schema || typeof schema !== 'object') return null;
  let t = schema.type;
  if (Array.isArray(t)) t = t.filter((x) => x !== 'null').join('|');
  if (!t) return null;
  if (t === 'string' && schema.format) {
    if (schema.format === 'date-time') return 'timestamp';
    if (schema.format === 'date') return 'date';
    return `string(${schema.format})`;
  }
  return t;
}

/**
 * Parse one full (object) field capability.
 * @param {any} c
 */
export function parseFlagObject(c) {
  const f = { type: null, role: null, granted: true, eq: false, range: [], lex: false, sem: false, agg: [], unusable: {} };
  if (!c || typeof c !== 'object') return f;
  f.type = c.type ?? jsonSchemaType(c.schema);
  f.role = c.role ?? null;
  f.granted = c.granted !== false;
  const flag = (name, key) => {
    const x = c[name];
    if (!x || typeof x !== 'object') return false;
    if (x.usable) return true;
    if (x.declared) f.unusable[key] = x.reason ?? 'unusable';
    return false;
  };
  f.eq = flag('exact_filter', 'eq');
  if (flag('range_filter', 'r')) f.range = Array.isArray(c.range_filter.operators) ? c.range_filter.operators : ['gte', 'gt', 'lte', 'lt'];
  f.lex = flag('lexical_search', 'lex');
  f.sem = flag('semantic_search', 'sem');
  if (c.aggregation && typeof c.aggregation === 'object') {
    for (const op of AGG_OPS) if (c.aggregation[op]?.usable) f.agg.push(op);
  }
  return f;
}

/** @param {any} v */
const parseFlags = (v) => (typeof v === 'string' ? parseFlagString(v) : parseFlagObject(v));

/**
 * Normalise a schema document (compact or full) into rows: one per (connector, stream).
 * @param {any} doc
 */
export function schemaRows(doc) {
  const rows = [];
  const grantId = doc?.bearer?.grant_id ?? null;
  for (const connector of Array.isArray(doc?.connectors) ? doc.connectors : []) {
    const connectorKey = connector.connector_key ?? connector.connector_id ?? connector.source?.id ?? null;
    const connectorConns = normaliseConns(connector.granted_connections);
    for (const s of Array.isArray(connector.streams) ? connector.streams : []) {
      let conns = normaliseConns(s.granted_connections);
      if (!conns.length) conns = connectorConns;
      if (!conns.length && s.connection_id) conns = [{ connection_id: s.connection_id, display_name: s.display_name ?? null }];
      const fields = [];
      const caps = s.field_capabilities && typeof s.field_capabilities === 'object' ? s.field_capabilities : {};
      const props = s.schema?.properties && typeof s.schema.properties === 'object' ? s.schema.properties : {};
      const names = Object.keys(caps).length ? Object.keys(caps) : Object.keys(props);
      for (const name of names) {
        const f = parseFlags(caps[name]);
        if (!f.type && props[name]) f.type = jsonSchemaType(props[name]);
        fields.push({ name, ...f });
      }
      rows.push({
        grant_id: grantId,
        connector_key: connectorKey,
        connector_display_name: connector.display_name ?? null,
        name: s.name,
        connections: conns,
        record_count: typeof s.record_count === 'number' ? s.record_count : null,
        primary_key: Array.isArray(s.primary_key) ? s.primary_key : [],
        cursor_field: s.cursor_field ?? null,
        consent_time_field: s.consent_time_field ?? null,
        fields,
        expand: (Array.isArray(s.expand_capabilities) ? s.expand_capabilities : []).map((e) => ({
          name: e.name,
          target_stream: e.target_stream ?? e.stream ?? null,
          cardinality: e.cardinality ?? null,
          default_limit: e.default_limit ?? null,
          max_limit: e.max_limit ?? null,
          usable: e.usable !== false,
          reason: e.reason ?? null,
        })),
        expand_advertised: Array.isArray(s.expand_capabilities) && s.expand_capabilities.length > 0,
        query: s.query && typeof s.query === 'object' ? s.query : null,
        freshness: s.freshness ?? null,
        raw: s,
      });
    }
  }
  return rows;
}

function normaliseConns(list) {
  if (!Array.isArray(list)) return [];
  const out = [];
  const seen = new Set();
  for (const c of list) {
    const id = typeof c === 'string' ? c : c?.connection_id;
    if (!id || seen.has(id)) continue;
    seen.add(id);
    out.push({ connection_id: id, display_name: typeof c === 'object' ? c.display_name ?? null : null });
  }
  return out;
}

/** Field helpers for a row. */
export function roleField(row, role) {
  return row?.fields?.find((f) => f.role === role && f.granted !== false)?.name ?? null;
}
export function fieldType(row, name) {
  return row?.fields?.find((f) => f.name === name)?.type ?? null;
}
export function isTimeType(t) {
  return !!t && TIME_TYPES.has(String(t).toLowerCase());
}
/** The declared authored/event time field: the stream's cursor field when it is time-typed. */
export function authoredField(row) {
  if (row?.cursor_field && isTimeType(fieldType(row, row.cursor_field))) return row.cursor_field;
  if (row?.consent_time_field && isTimeType(fieldType(row, row.consent_time_field))) return row.consent_time_field;
  return null;
}

/**
 * Candidates (connection × row) for one stream.
 * @param {ReturnType<typeof schemaRows>} rows
 */
export function candidatesOf(rows) {
  const out = [];
  for (const row of rows) {
    for (const c of row.connections) {
      out.push({
        connection_id: c.connection_id,
        display_name: c.display_name ?? null,
        connector_key: row.connector_key,
        grant_id: row.grant_id,
        stream: row.name,
        row,
      });
    }
  }
  return out;
}

export function candidateSummary(c) {
  const o = { connection_id: c.connection_id, connector_key: c.connector_key, grant_id: c.grant_id, stream: c.stream };
  if (c.display_name) o.display_name = c.display_name;
  return o;
}

/**
 * Fetch the compact schema scoped to one stream and return its rows (null when unavailable).
 * Auth failures are rethrown; other failures mean "unknown" (callers then defer to the RS).
 * @param {import('./rs-client.mjs').RsClient} rs
 * @param {string} token
 * @param {string} stream
 * @param {AbortSignal} [signal]
 */
export async function scopedRows(rs, token, stream, signal) {
  try {
    const doc = await rs.get(token, '/v1/schema', { view: 'compact', stream }, { signal });
    assertNotOwner(doc);
    return { rows: schemaRows(doc).filter((r) => r.name === stream), doc };
  } catch (err) {
    if (err instanceof ToolError) {
      const st = err.fields.status;
      if (st === 401 || st === 403 || err.fields.code === 'owner_token_rejected') throw err;
      if (err.fields.code === 'rs_unavailable' || err.fields.code === 'rs_timeout') throw err;
    }
    return { rows: null, doc: null };
  }
}

export function assertNotOwner(doc) {
  const b = doc?.bearer;
  if (b && (b.token_kind === 'owner' || b.scope === 'owner')) {
    throw new ToolError({
      code: 'owner_token_rejected',
      type: 'permission_error',
      status: 403,
      message: 'This MCP adapter only serves grant-scoped client tokens; owner-level bearers are refused.',
    });
  }
}

/**
 * Resolve which connection a stream-scoped read targets.
 *
 * mode "strict": more than one candidate without connection_id is an ambiguous_connection error
 *                (query_records, aggregate).
 * mode "lenient": more than one candidate without connection_id defers to the RS, which resolves
 *                 a record id to the one connection holding it (fetch, read_record_field).
 *
 * @param {import('./rs-client.mjs').RsClient} rs
 * @param {string} token
 * @param {{ stream: string, connection_id?: string | null, mode: 'strict' | 'lenient', tool: string, args?: Record<string, unknown>, signal?: AbortSignal }} o
 * @returns {Promise<{ connection_id: string | null, row: any | null, rows: any[] | null, candidates: any[] | null }>}
 */
export async function resolveSource(rs, token, o) {
  const { rows } = await scopedRows(rs, token, o.stream, o.signal);
  if (!rows || rows.length === 0) {
    // Unknown stream or schema unavailable: defer to the RS (it answers with its own typed error).
    return { connection_id: o.connection_id ?? null, row: null, rows, candidates: null };
  }
  const candidates = candidatesOf(rows);
  if (o.connection_id) {
    const hit = candidates.find((c) => c.connection_id === o.connection_id);
    if (!hit) {
      throw new ToolError({
        code: 'connection_not_found',
        type: 'not_found_error',
        status: 404,
        param: 'connection_id',
        retry_with: 'connection_id',
        message: `connection_id "${o.connection_id}" is not a granted connection for stream "${o.stream}".`,
        ...boundConnections(candidates.map(candidateSummary)),
      });
    }
    return { connection_id: hit.connection_id, row: hit.row, rows, candidates };
  }
  if (candidates.length === 1) return { connection_id: candidates[0].connection_id, row: candidates[0].row, rows, candidates };
  if (candidates.length === 0) return { connection_id: null, row: rows[0], rows, candidates };
  if (o.mode === 'lenient') return { connection_id: null, row: rows.length === 1 ? rows[0] : null, rows, candidates };
  const connectors = [...new Set(candidates.map((c) => c.connector_key))];
  const first = candidates[0];
  throw new ToolError({
    code: 'ambiguous_connection',
    type: 'ambiguous_connection',
    status: 409,
    param: 'connection_id',
    retry_with: 'connection_id',
    message:
      `Stream "${o.stream}" is served by ${candidates.length} granted connections` +
      (connectors.length > 1 ? ` across connectors ${connectors.join(', ')}` : '') +
      `; ${o.tool} reads one source at a time. Pass connection_id.`,
    ...boundConnections(candidates.map(candidateSummary)),
    retry: o.args ? { tool: o.tool, arguments: { ...o.args, connection_id: first.connection_id } } : undefined,
  });
}
