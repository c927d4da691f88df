// The six PDPP read tools. Each tool returns bounded model-visible content[]
// text that carries every handle needed for the next step, plus
// structuredContent with the same information in machine form.
import { z } from "zod";
import { probeToken, recordPath } from "./rs.mjs";
import {
  authoredTime, balanceMarks, binaryDescriptor, clip, describeField, fallbackTitle,
  jsonClip, makeRecordUri, normalizeFieldCaps, parseRecordHandle, previewAroundMark, stripMarks,
} from "./util.mjs";

export const INSTRUCTIONS = [
  "PDPP grant-scoped, read-only personal data. Workflow: (1) schema-first discovery: call schema() for the stream index, then schema(stream) for fields, filters, sort and aggregations. (2) connection_id disambiguation: if a stream exists under several connections, pass connection_id (listed by schema or an ambiguous_connection error). (3) Typed filters are objects: {field: value} or {field: {gte|gt|lte|lt: value}}. (4) Results are bounded pages: narrow with fields and limit, page with next_cursor, prefer aggregate or search over wide reads.",
  "Handles: search/query results give ids like pdpp://record/<connection_id>/<stream>/<record_id>; pass them to fetch(id) or read_record_field(id, field). Long text fields are cut in results and say so; read the rest with read_record_field (offset or q). Binary/blob fields are metadata-only. structuredContent mirrors the text in machine form; it is structured output, not hidden output. Access never exceeds the grant: the adapter forwards only the grant-scoped client token it was given.",
].join("\n");

const TEXT_BUDGET = 7000; // chars of visible text per result (records/search)
const FIELD_INLINE = 160; // chars per field value in visible record lines
const STRUCT_STRING_MAX = 2000; // chars per string field in structuredContent
const FETCH_FIELD_MAX = 2000; // chars per field in fetch document text
const FETCH_TEXT_MAX = 8000;
const CANDIDATE_CAP = 10;
const SCHEMA_DETAIL_ROW_CAP = 40;

class AdapterError extends Error {
  constructor(error) {
    super(error.message);
    this.error = error;
  }
}

const q = (s) => JSON.stringify(s);

// ---------------------------------------------------------------- errors

function errorText(e) {
  const lines = [`Error ${e.code ?? e.type ?? "error"}: ${e.message ?? ""}`.trim()];
  if (e.param) lines.push(`param: ${e.param}`);
  if (e.retry_with) lines.push(`retry_with: ${typeof e.retry_with === "string" ? e.retry_with : JSON.stringify(e.retry_with)}`);
  if (Array.isArray(e.available_connections) && e.available_connections.length) {
    lines.push("available connections:");
    for (const c of e.available_connections) {
      const extra = [c.connector_key, c.display_name && q(c.display_name), c.stream && `stream ${c.stream}`].filter(Boolean).join(", ");
      lines.push(`- connection_id=${c.connection_id}${extra ? ` (${extra})` : ""}`);
    }
    if (e.available_connections_truncated) {
      lines.push(`(${e.available_connections_omitted} more of ${e.available_connection_count} not listed)`);
    }
  }
  if (e.discovery_hint) lines.push(e.discovery_hint);
  if (e.hint) lines.push(e.hint);
  if (e.request_id) lines.push(`request_id: ${e.request_id}`);
  return lines.join("\n");
}

export function errorResult(e) {
  const error = { ...e };
  delete error.status;
  if (e.status !== undefined) error.http_status = e.status;
  return { content: [{ type: "text", text: errorText(error) }], structuredContent: { error }, isError: true };
}

function rsFail(res, hint) {
  const e = { ...res.error };
  if (hint && !e.hint) e.hint = hint;
  return new AdapterError(e);
}

// ---------------------------------------------------------------- schema access

function assertNotOwner(doc) {
  const b = doc?.bearer;
  if (b && (b.token_kind === "owner" || b.scope === "owner")) {
    throw new AdapterError({
      type: "permission_error",
      code: "owner_token_rejected",
      message: "This MCP adapter accepts only grant-scoped client tokens; an owner bearer was presented and the request was not processed.",
    });
  }
}

async function getSchema(ctx, query) {
  let res = await ctx.rs.get("/v1/schema", { view: "compact", ...query }, ctx.token);
  if (!res.ok && res.status === 400 && ["invalid_request", "bad_request", "unsupported_query"].includes(res.error?.code)) {
    res = await ctx.rs.get("/v1/schema", query, ctx.token);
  }
  if (res.ok) assertNotOwner(res.body);
  return res;
}

/** Flatten a schema document into rows with connector + connection identity. */
export function schemaRows(doc) {
  const rows = [];
  const grantId = doc?.bearer?.grant_id;
  const connectors = Array.isArray(doc?.connectors) ? doc.connectors : [];
  const topLevel = Array.isArray(doc?.streams) ? doc.streams : [];
  const push = (connector, s) => {
    const connectorKey = s.connector_key ?? connector?.connector_key ?? connector?.connector_id ?? s.source?.connector_key ?? null;
    let conns = [];
    if (Array.isArray(s.granted_connections) && s.granted_connections.length) conns = s.granted_connections;
    else if (s.connection_id) conns = [{ connection_id: s.connection_id, display_name: s.display_name }];
    else if (Array.isArray(s.instance_ids) && s.instance_ids.length) conns = s.instance_ids.map((c) => ({ connection_id: c }));
    else if (Array.isArray(connector?.granted_connections)) conns = connector.granted_connections;
    else if (s.source?.connection_id) conns = [{ connection_id: s.source.connection_id, display_name: s.source.display_name }];
    rows.push({
      stream: s.name,
      connector_key: connectorKey,
      connector_display_name: connector?.display_name ?? s.connector_display_name ?? null,
      grant_id: s.source?.grant_id ?? grantId ?? null,
      connections: conns
        .filter((c) => c && c.connection_id)
        .map((c) => ({ connection_id: c.connection_id, ...(c.display_name ? { display_name: c.display_name } : {}) })),
      raw: s,
    });
  };
  for (const c of connectors) for (const s of c.streams ?? []) push(c, s);
  if (!connectors.length) for (const s of topLevel) push(null, s);
  return rows;
}

function candidatesOf(rows) {
  const seen = new Map();
  for (const r of rows) {
    for (const c of r.connections) {
      if (seen.has(c.connection_id)) continue;
      seen.set(c.connection_id, {
        connection_id: c.connection_id,
        connector_key: r.connector_key,
        grant_id: r.grant_id,
        ...(c.display_name ? { display_name: c.display_name } : {}),
        stream: r.stream,
      });
    }
  }
  return [...seen.values()];
}

function capCandidates(cands) {
  const listed = cands.slice(0, CANDIDATE_CAP);
  return {
    available_connections: listed,
    available_connection_count: cands.length,
    available_connections_truncated: cands.length > listed.length,
    available_connections_omitted: cands.length - listed.length,
  };
}

function ambiguity(stream, cands) {
  return new AdapterError({
    type: "ambiguous_connection",
    code: "ambiguous_connection",
    message: `Stream '${stream}' is readable from ${cands.length} connections in this grant; pass connection_id to choose one.`,
    retry_with: "connection_id",
    param: "connection_id",
    stream,
    ...capCandidates(cands),
    discovery_hint: "Call schema() for the full connection index (or schema(stream) for this stream), then retry with connection_id.",
  });
}

/**
 * Resolve which single connection a source-required read targets, from the
 * live stream-scoped schema (one RS call, no per-connection probes).
 * Fails open (returns rows:null) when the schema is unavailable.
 */
async function resolveSource(ctx, stream, connectionId, { requireSingle = true } = {}) {
  const res = await getSchema(ctx, { stream });
  if (!res.ok) {
    if (res.status === 401 || res.status === 403) throw rsFail(res);
    return { connection_id: connectionId, rows: null, candidates: [] };
  }
  const all = schemaRows(res.body).filter((r) => r.stream === stream);
  const cands = candidatesOf(all);
  if (!all.length) return { connection_id: connectionId, rows: [], candidates: [], doc: res.body };
  if (connectionId) {
    if (cands.length && !cands.some((c) => c.connection_id === connectionId)) {
      throw new AdapterError({
        type: "not_found_error",
        code: "connection_not_found",
        message: `connection_id '${connectionId}' does not serve stream '${stream}' under this grant.`,
        param: "connection_id",
        retry_with: "connection_id",
        stream,
        ...capCandidates(cands),
        discovery_hint: "Call schema() for the connection index.",
      });
    }
    const rows = all.filter((r) => !r.connections.length || r.connections.some((c) => c.connection_id === connectionId));
    const cand = cands.find((c) => c.connection_id === connectionId);
    return { connection_id: connectionId, rows, candidates: cands, connector_key: cand?.connector_key ?? rows[0]?.connector_key, display_name: cand?.display_name, doc: res.body };
  }
  if (cands.length > 1 && requireSingle) throw ambiguity(stream, cands);
  const only = cands[0];
  return {
    connection_id: only?.connection_id,
    rows: all,
    candidates: cands,
    connector_key: only?.connector_key ?? all[0]?.connector_key,
    display_name: only?.display_name,
    doc: res.body,
  };
}

function gateExpand(stream, src, expand, expandLimit) {
  const wants = (Array.isArray(expand) && expand.length) || (expandLimit && Object.keys(expandLimit).length);
  if (!wants) return;
  if (!src.rows || !src.rows.length) return; // unknown stream or schema unavailable: let the RS decide
  const advertised = src.rows.some((r) => Array.isArray(r.raw.expand_capabilities) && r.raw.expand_capabilities.length);
  if (!advertised) {
    throw new AdapterError({
      type: "invalid_request_error",
      code: "invalid_expand",
      param: "expand",
      message: `Stream '${stream}' advertises no expand_capabilities, so expand/expand_limit cannot be used on it. The capability source is GET /v1/schema (expand_capabilities); check schema(stream="${stream}").`,
    });
  }
}

function fieldModels(row) {
  const caps = row?.raw?.field_capabilities;
  if (caps && typeof caps === "object") return Object.entries(caps).map(([n, c]) => normalizeFieldCaps(n, c));
  const props = row?.raw?.schema?.properties;
  if (props) return Object.keys(props).map((n) => normalizeFieldCaps(n, "declared"));
  return [];
}

function titleField(rows) {
  for (const r of rows ?? []) {
    const f = fieldModels(r).find((m) => m.role === "primary-title" || m.role === "title");
    if (f) return f.name;
  }
  return null;
}

function roleFields(rows, role) {
  const out = [];
  for (const r of rows ?? []) for (const f of fieldModels(r)) if (f.role === role) out.push(f.name);
  return out;
}

// ---------------------------------------------------------------- record shaping

function projectData(data, fields) {
  if (!data || typeof data !== "object" || !fields?.length) return data;
  const out = {};
  for (const f of fields) if (Object.prototype.hasOwnProperty.call(data, f)) out[f] = data[f];
  return out;
}

/** Bound one record's data for structured output; return descriptors for anything cut. */
function shapeData(data, handle) {
  if (!data || typeof data !== "object") return { data, truncated: {}, binary: {} };
  const out = {};
  const truncated = {};
  const binary = {};
  for (const [k, v] of Object.entries(data)) {
    const bin = binaryDescriptor(v);
    if (bin) {
      binary[k] = bin;
      out[k] = bin.kind === "blob_ref" ? v : { omitted: "binary", ...bin };
      continue;
    }
    if (typeof v === "string" && v.length > STRUCT_STRING_MAX) {
      out[k] = v.slice(0, STRUCT_STRING_MAX);
      truncated[k] = {
        total_chars: v.length,
        returned_chars: STRUCT_STRING_MAX,
        continue_with: { tool: "read_record_field", arguments: { id: handle, field: k, offset: STRUCT_STRING_MAX } },
      };
      continue;
    }
    if (v && typeof v === "object") {
      const s = JSON.stringify(v);
      if (s.length > STRUCT_STRING_MAX * 2) {
        out[k] = { omitted: "large_object", json_chars: s.length };
        truncated[k] = { json_chars: s.length, continue_with: { tool: "fetch", arguments: { id: handle, fields: [k] } } };
        continue;
      }
    }
    out[k] = v;
  }
  return { data: out, truncated, binary };
}

function inlineValue(k, v, handle) {
  const bin = binaryDescriptor(v);
  if (bin) {
    if (bin.kind === "blob_ref") return `${k}: [blob ${bin.blob_id ?? ""} ${bin.mime_type ?? ""} ${bin.size_bytes ?? "?"} bytes; metadata only]`;
    return `${k}: [binary-like ${bin.chars} chars; not inlined]`;
  }
  if (typeof v === "string") {
    if (v.length > FIELD_INLINE) {
      return `${k}: ${q(v.slice(0, FIELD_INLINE))}… [cut at ${FIELD_INLINE} of ${v.length} chars; read_record_field(id=${q(handle)}, field=${q(k)}, offset=${FIELD_INLINE})]`;
    }
    return `${k}: ${q(v)}`;
  }
  const s = JSON.stringify(v);
  return `${k}: ${s.length > FIELD_INLINE ? `${s.slice(0, FIELD_INLINE)}… [cut, ${s.length} chars JSON; fetch(id, fields=[${q(k)}])]` : s}`;
}

function recordHandle(rec, fallbackConn, stream) {
  return makeRecordUri(rec.connection_id ?? rec.connector_instance_id ?? fallbackConn, rec.stream ?? stream, String(rec.id));
}

// ---------------------------------------------------------------- common args

const connectionArg = z.string().min(1).optional().describe("Source connection (see schema); needed when a stream has several connections");
const filterArg = z
  .record(
    z.string(),
    z.union([
      z.string(), z.number(), z.boolean(),
      z.object({ gte: z.any().optional(), gt: z.any().optional(), lte: z.any().optional(), lt: z.any().optional() }).strict(),
    ]),
  )
  .optional()
  .describe('Typed filter object, e.g. {"label":"inbox","sent_at":{"gte":"2026-01-01T00:00:00Z"}}');
const fieldsArg = z.array(z.string().min(1)).min(1).optional().describe("Project to these fields");
const expandArg = z.array(z.string().min(1)).optional().describe("Relations to expand (only if schema lists expand relations)");
const expandLimitArg = z.record(z.string(), z.number().int().positive()).optional().describe("Per-relation expand cap");

// ---------------------------------------------------------------- tools

export function buildTools({ rs, getToken }) {
  const ctxOf = (context) => ({ rs, token: getToken(context) });
  const kinds = new Map(); // token -> confirmed kind (owner bearers are refused before any read)
  const ensureClientToken = async (ctx) => {
    let kind = kinds.get(ctx.token);
    if (!kind) {
      const p = await probeToken(rs, ctx.token);
      kind = p.kind;
      if (kind) kinds.set(ctx.token, kind);
    }
    if (kind === "owner") assertNotOwner({ bearer: { token_kind: "owner" } });
  };

  const wrap = (fn) => async (args, context) => {
    try {
      const ctx = ctxOf(context);
      if (!ctx.token) {
        return errorResult({
          type: "authentication_error",
          code: "missing_client_token",
          message: "No grant-scoped PDPP client token is configured for this session (set PDPP_CLIENT_TOKEN for stdio, or send Authorization: Bearer over HTTP).",
        });
      }
      await ensureClientToken(ctx);
      return await fn(args ?? {}, ctx);
    } catch (err) {
      if (err instanceof AdapterError) return errorResult(err.error);
      return errorResult({ type: "adapter_error", code: "adapter_error", message: String(err?.message ?? err) });
    }
  };

  const ro = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

  // ------------------------------------------------------------ schema
  const schemaTool = {
    name: "schema",
    description:
      "Read-only. Discover granted streams (GET /v1/schema). No stream: compact index of every stream grouped by connector and connection. With stream (and optional connection_id): fields, filters, sort, projection, expand, search and aggregation support. detail:\"full\" needs stream and returns raw JSON Schema.",
    annotations: { title: "PDPP schema", ...ro },
    parameters: z.object({
      stream: z.string().min(1).optional().describe("Stream name to describe"),
      connection_id: connectionArg,
      detail: z.enum(["compact", "full"]).optional().describe('"full" = exhaustive JSON Schema; requires stream'),
    }),
    execute: wrap(async (args, ctx) => {
      if (args.detail === "full" && !args.stream) {
        throw new AdapterError({
          type: "invalid_request_error",
          code: "invalid_request",
          param: "detail",
          message: 'detail:"full" is only available for one stream. Use schema() for the compact index first, then schema(stream, connection_id, detail: "full").',
          retry_with: "stream",
        });
      }
      if (!args.stream) return globalSchema(ctx, args);
      if (args.detail === "full") return fullSchema(ctx, args);
      return streamSchema(ctx, args);
    }),
  };

  // ------------------------------------------------------------ query_records
  const queryTool = {
    name: "query_records",
    description:
      "Read-only. List records of one stream (GET /v1/streams/{stream}/records) as a bounded page. Narrow with fields, filter and limit; page with cursor=next_cursor; resume changes with changes_since. Prefer aggregate or search when full records are not needed. Results are in text and structuredContent.",
    annotations: { title: "Query records", ...ro },
    parameters: z.object({
      stream: z.string().min(1),
      connection_id: connectionArg,
      fields: fieldsArg,
      filter: filterArg,
      sort: z.string().optional().describe('Sortable field, "-" prefix for descending (see schema)'),
      order: z.enum(["asc", "desc"]).optional(),
      limit: z.number().int().min(1).max(100).optional().describe("Page size (default 20, max 100)"),
      cursor: z.string().optional().describe("next_cursor from a previous page"),
      count: z.boolean().optional().describe("Include exact total count"),
      changes_since: z.string().optional().describe('"beginning" or a next_changes_since value'),
      expand: expandArg,
      expand_limit: expandLimitArg,
    }),
    execute: wrap(async (args, ctx) => {
      const src = await resolveSource(ctx, args.stream, args.connection_id);
      gateExpand(args.stream, src, args.expand, args.expand_limit);
      const query = {
        limit: args.limit ?? 20,
        cursor: args.cursor,
        order: args.order,
        sort: args.sort,
        count: args.count ? "exact" : undefined,
        fields: args.fields,
        expand: args.expand,
        expand_limit: args.expand_limit,
        // a cursor already encodes its changes session; sending changes_since too would restart from the horizon
        changes_since: args.cursor ? undefined : args.changes_since,
        connection_id: src.connection_id,
        filter: args.filter && Object.keys(args.filter).length ? args.filter : undefined,
      };
      const res = await ctx.rs.get(`/v1/streams/${encodeURIComponent(args.stream)}/records`, query, ctx.token);
      if (!res.ok) throw rsFail(res, res.error?.code === "ambiguous_connection" ? "Retry with connection_id." : undefined);
      return renderRecords(args, src, res.body);
    }),
  };

  // ------------------------------------------------------------ aggregate
  const aggregateTool = {
    name: "aggregate",
    description:
      "Read-only. Count or summarise one stream without reading records (GET /v1/streams/{stream}/aggregate): metric count|sum|min|max|count_distinct, optional group_by or group_by_time+granularity. Allowed fields per metric are listed by schema(stream).",
    annotations: { title: "Aggregate", ...ro },
    parameters: z.object({
      stream: z.string().min(1),
      connection_id: connectionArg,
      metric: z.enum(["count", "sum", "min", "max", "count_distinct"]),
      field: z.string().optional().describe("Required for sum/min/max/count_distinct"),
      group_by: z.string().optional(),
      group_by_time: z.string().optional().describe("Timestamp field; needs granularity (count only)"),
      granularity: z.enum(["minute", "hour", "day", "week", "month", "quarter", "year"]).optional(),
      time_zone: z.string().optional().describe("IANA zone for group_by_time"),
      limit: z.number().int().min(1).max(100).optional().describe("Max groups (default 10)"),
      filter: filterArg,
    }),
    execute: wrap(async (args, ctx) => {
      const src = await resolveSource(ctx, args.stream, args.connection_id);
      const query = {
        metric: args.metric,
        field: args.field,
        group_by: args.group_by,
        group_by_time: args.group_by_time,
        granularity: args.granularity,
        time_zone: args.time_zone,
        limit: args.limit,
        connection_id: src.connection_id,
        filter: args.filter && Object.keys(args.filter).length ? args.filter : undefined,
      };
      const res = await ctx.rs.get(`/v1/streams/${encodeURIComponent(args.stream)}/aggregate`, query, ctx.token);
      if (!res.ok) throw rsFail(res, "Check schema(stream) for the fields allowed per metric.");
      return renderAggregate(args, src, res.body);
    }),
  };

  // ------------------------------------------------------------ search
  const searchTool = {
    name: "search",
    description:
      "Read-only. Full-text search across granted streams (GET /v1/search; mode semantic/hybrid when the RS offers them). Without connection_id it searches all granted connections and limit caps the merged hits. Hits carry source identity, highlighted evidence and ids for fetch/read_record_field.",
    annotations: { title: "Search", ...ro },
    parameters: z.object({
      q: z.string().min(1).describe("Search text"),
      streams: z.array(z.string().min(1)).optional().describe("Restrict to these streams"),
      connection_id: connectionArg,
      limit: z.number().int().min(1).max(50).optional().describe("Max merged hits (default 10)"),
      cursor: z.string().optional().describe("next_cursor from a previous page"),
      mode: z.enum(["lexical", "semantic", "hybrid"]).optional().describe("Default lexical"),
    }),
    execute: wrap(async (args, ctx) => runSearch(ctx, args)),
  };

  // ------------------------------------------------------------ fetch
  const fetchTool = {
    name: "fetch",
    description:
      "Read-only. Fetch one record as a document {id,title,text,url,metadata} (GET /v1/streams/{stream}/records/{id}). id is a pdpp://record/... id from search or query_records (or a bare record id plus stream). fields projects the record first. Long fields are cut with read_record_field continuations.",
    annotations: { title: "Fetch document", ...ro },
    parameters: z.object({
      id: z.string().min(1).describe("pdpp://record/<connection_id>/<stream>/<record_id>, or a record id with stream"),
      stream: z.string().min(1).optional().describe("Only when id is a bare record id"),
      connection_id: connectionArg,
      fields: fieldsArg,
      expand: expandArg,
      expand_limit: expandLimitArg,
    }),
    execute: wrap(async (args, ctx) => runFetch(ctx, args)),
  };

  // ------------------------------------------------------------ read_record_field
  const fieldTool = {
    name: "read_record_field",
    description:
      "Read-only. Read a bounded window of one text field of one record (GET .../records/{id}/field-window). Page with offset, or jump to text with q. Returns inline text, total size, range, completion state and next/previous arguments. Non-text fields return metadata.",
    annotations: { title: "Read record field", ...ro },
    parameters: z.object({
      id: z.string().min(1).optional().describe("pdpp://record/... id (or give stream + record_id)"),
      stream: z.string().min(1).optional(),
      record_id: z.string().min(1).optional(),
      connection_id: connectionArg,
      field: z.string().min(1).describe("Top-level field name"),
      offset: z.number().int().min(0).optional().describe("Start character (default 0)"),
      limit_chars: z.number().int().min(1).max(8000).optional().describe("Window size (default 2000)"),
      q: z.string().min(1).optional().describe("Center the window on the first match (not with offset)"),
      before_chars: z.number().int().min(0).max(8192).optional(),
      after_chars: z.number().int().min(0).max(8192).optional(),
    }),
    execute: wrap(async (args, ctx) => runReadField(ctx, args)),
  };

  return [schemaTool, queryTool, aggregateTool, searchTool, fetchTool, fieldTool];
}

// ================================================================ schema rendering

async function globalSchema(ctx, args) {
  const res = await getSchema(ctx, args.connection_id ? { connection_id: args.connection_id } : {});
  if (!res.ok) throw rsFail(res);
  const doc = res.body;
  const rows = schemaRows(doc);
  // group by connector
  const groups = new Map();
  for (const r of rows) {
    const key = r.connector_key ?? "unknown";
    if (!groups.has(key)) groups.set(key, { connector_key: key, display_name: r.connector_display_name, connections: new Map(), streams: [] });
    const g = groups.get(key);
    for (const c of r.connections) if (!g.connections.has(c.connection_id)) g.connections.set(c.connection_id, c);
    g.streams.push(r);
  }
  const connectorList = [...groups.values()];
  const allConns = new Set(rows.flatMap((r) => r.connections.map((c) => c.connection_id)));
  const capped = rows.length > SCHEMA_DETAIL_ROW_CAP;
  const lines = [
    `PDPP schema index${doc?.bearer?.grant_id ? ` for grant ${doc.bearer.grant_id}` : ""}: ${connectorList.length} connectors, ${rows.length} stream rows, ${allConns.size} connections.`,
    "Next: schema(stream) for fields, filters, sort and aggregations; add connection_id when a stream lists several connections.",
  ];
  let detailed = 0;
  const structConnectors = [];
  for (const g of connectorList) {
    const conns = [...g.connections.values()];
    lines.push(`[${g.connector_key}]${g.display_name ? ` ${g.display_name}` : ""} — connections: ${conns.map((c) => `${c.connection_id}${c.display_name ? ` ${q(c.display_name)}` : ""}`).join(", ") || "(none listed)"}`);
    const sc = { connector_key: g.connector_key, ...(g.display_name ? { display_name: g.display_name } : {}), connections: conns, streams: [] };
    const names = [];
    for (const r of g.streams) {
      if (!capped || detailed < SCHEMA_DETAIL_ROW_CAP) {
        detailed++;
        const rc = r.raw.record_count;
        const connIds = r.connections.map((c) => c.connection_id);
        lines.push(`  - ${r.stream}${rc !== undefined ? ` (${rc} records)` : ""}; connection_id: ${connIds.join(" | ") || "?"}`);
        sc.streams.push({ name: r.stream, ...(rc !== undefined ? { record_count: rc } : {}), connection_ids: connIds });
      } else {
        names.push(r.stream);
      }
    }
    if (names.length) {
      lines.push(`  streams (index only): ${names.join(", ")}`);
      sc.stream_names = names;
    }
    structConnectors.push(sc);
  }
  if (capped) lines.push(`Detailed rows capped at ${SCHEMA_DETAIL_ROW_CAP}; every stream name is still listed above.`);
  const data = {
    object: "schema_index",
    detail: "index",
    ...(doc?.bearer ? { bearer: doc.bearer } : {}),
    connector_count: connectorList.length,
    stream_count: rows.length,
    connection_count: allConns.size,
    rows_capped: capped,
    connectors: structConnectors,
  };
  return { content: [{ type: "text", text: lines.join("\n") }], structuredContent: { data } };
}

const SCHEMA_LEGEND =
  'How to call: fields=[...] projects any listed field. filter: {"f": value} on fields with "equals"; {"f": {"gte": v, "lt": v}} with the listed range ops. sort: the sortable field, "-field" for descending. aggregate: metric=count (group_by / group_by_time+granularity on fields listing them) or sum|min|max|count_distinct with field= a field listing that op. search: fields marked lexical/semantic are searchable. expand: only the listed relations.';

function describeRow(r, lines, struct) {
  const s = r.raw;
  const fields = fieldModels(r);
  const conns = r.connections;
  lines.push(`## ${r.stream} — connector_key ${r.connector_key ?? "?"}${r.connector_display_name ? ` (${r.connector_display_name})` : ""}`);
  const shown = conns.slice(0, 30);
  lines.push(`connection_id: ${shown.map((c) => `${c.connection_id}${c.display_name ? ` ${q(c.display_name)}` : ""}`).join(" | ") || "?"}${conns.length > shown.length ? ` | …${conns.length - shown.length} more (see schema())` : ""}${conns.length > 1 ? "  (several: pass connection_id)" : ""}`);
  if (s.record_count !== undefined) lines.push(`records: ${s.record_count}`);
  if (Array.isArray(s.primary_key) && s.primary_key.length) lines.push(`primary key: ${s.primary_key.join(", ")}`);
  lines.push(`sort: ${s.cursor_field ? `${q(s.cursor_field)} or ${q(`-${s.cursor_field}`)}` : "default order only"}; count: query_records(count=true) gives an exact total; projection: fields=[any field below]`);
  const aggFields = fields.filter((f) => f.agg.length);
  const aggDecl = s.query?.aggregations;
  const countOk = aggDecl ? aggDecl.count === true : aggFields.length > 0 ? true : null;
  lines.push(`aggregate: ${countOk === false ? "metric=count not declared" : countOk ? "metric=count supported" : "metric=count (if the stream declares aggregations)"}${aggFields.length ? `; by field: ${aggFields.map((f) => `${f.name}[${f.agg.join(",")}]`).join(" ")}` : "; no per-field aggregation ops advertised"}`);
  const lex = fields.filter((f) => f.lexical).map((f) => f.name);
  const sem = fields.filter((f) => f.semantic).map((f) => f.name);
  lines.push(`search: ${lex.length ? `lexical on ${lex.join(", ")}` : "no lexical fields advertised"}${sem.length ? `; semantic on ${sem.join(", ")}` : ""}`);
  const exp = Array.isArray(s.expand_capabilities) ? s.expand_capabilities : [];
  lines.push(`expand: ${exp.length ? exp.map((e) => `${e.name}→${e.target_stream ?? e.stream ?? "?"} (${e.cardinality ?? "?"}${e.max_limit ? `, max ${e.max_limit}` : ""}${e.usable === false ? `, unusable: ${e.reason ?? ""}` : ""})`).join("; ") : "none (expand is rejected)"}`);
  lines.push(`fields (${fields.length}):`);
  for (const f of fields) lines.push(`  - ${describeField(f)}`);
  struct.push({
    stream: r.stream,
    connector_key: r.connector_key,
    ...(r.connector_display_name ? { connector_display_name: r.connector_display_name } : {}),
    connections: conns,
    ...(s.record_count !== undefined ? { record_count: s.record_count } : {}),
    primary_key: s.primary_key ?? [],
    sortable: s.cursor_field ? [s.cursor_field] : [],
    count_supported: true,
    aggregate_count: countOk,
    expand: exp.map((e) => ({ name: e.name, target_stream: e.target_stream ?? e.stream, cardinality: e.cardinality, max_limit: e.max_limit, usable: e.usable !== false })),
    fields: fields.map((f) => ({
      name: f.name,
      ...(f.type ? { type: f.type } : {}),
      ...(f.role ? { role: f.role } : {}),
      granted: f.granted,
      filter: { equals: f.eq, range: f.range },
      search: { lexical: f.lexical, semantic: f.semantic },
      aggregate: f.agg,
    })),
  });
}

async function streamSchema(ctx, args) {
  const query = { stream: args.stream, ...(args.connection_id ? { connection_id: args.connection_id } : {}) };
  const res = await getSchema(ctx, query);
  if (!res.ok) throw rsFail(res);
  let rows = schemaRows(res.body).filter((r) => r.stream === args.stream);
  if (args.connection_id) rows = rows.filter((r) => !r.connections.length || r.connections.some((c) => c.connection_id === args.connection_id));
  if (args.connection_id) {
    rows = rows.map((r) => ({ ...r, connections: r.connections.filter((c) => c.connection_id === args.connection_id) }));
  }
  if (!rows.length) {
    throw new AdapterError({
      type: "not_found_error",
      code: args.connection_id ? "connection_not_found" : "stream_not_found",
      message: `No granted stream '${args.stream}'${args.connection_id ? ` under connection_id '${args.connection_id}'` : ""}.`,
      hint: "Call schema() for the index of granted streams and connections.",
    });
  }
  const lines = [`Schema for stream ${q(args.stream)}: ${rows.length} matching row(s).`, SCHEMA_LEGEND];
  const struct = [];
  for (const r of rows) describeRow(r, lines, struct);
  const cands = candidatesOf(rows);
  if (cands.length > 1) lines.push(`This stream name has ${cands.length} connections; reads of one source need connection_id.`);
  const data = {
    object: "schema",
    detail: "stream",
    ...(res.body?.bearer ? { bearer: res.body.bearer } : {}),
    stream: args.stream,
    ...(args.connection_id ? { connection_id: args.connection_id } : {}),
    streams: struct,
  };
  return { content: [{ type: "text", text: lines.join("\n") }], structuredContent: { data } };
}

async function fullSchema(ctx, args) {
  // resolve the single source first: a typed disambiguation error precedes any exhaustive content
  const src = await resolveSource(ctx, args.stream, args.connection_id);
  const query = { detail: "full", stream: args.stream, ...(src.connection_id ? { connection_id: src.connection_id } : {}) };
  const res = await ctx.rs.get("/v1/schema", query, ctx.token);
  if (!res.ok) {
    if (res.error?.code === "ambiguous_schema_detail" && src.candidates?.length) throw ambiguity(args.stream, src.candidates);
    throw rsFail(res);
  }
  assertNotOwner(res.body);
  const doc = { ...res.body };
  delete doc.links;
  delete doc.meta;
  // keep exactly one location for the selected stream rows: connectors[].streams
  if (Array.isArray(doc.connectors) && doc.connectors.length) {
    delete doc.streams;
    doc.connectors = doc.connectors
      .map((c) => ({ ...c, streams: (c.streams ?? []).filter((s) => s.name === args.stream && (!src.connection_id || !rowExcludes(c, s, src.connection_id))) }))
      .filter((c) => c.streams.length);
  }
  const rows = schemaRows(doc);
  const lines = [`Full schema for stream ${q(args.stream)}${src.connection_id ? ` (connection_id ${src.connection_id})` : ""}.`, SCHEMA_LEGEND];
  const struct = [];
  for (const r of rows) describeRow(r, lines, struct);
  const json = JSON.stringify(doc);
  const MAX = 24000;
  lines.push("Raw schema document (JSON):");
  lines.push(json.length > MAX ? `${json.slice(0, MAX)}… [cut at ${MAX} of ${json.length} chars; the complete document is structuredContent.data]` : json);
  return { content: [{ type: "text", text: lines.join("\n") }], structuredContent: { data: doc } };
}

function rowExcludes(connector, s, connectionId) {
  const conns = s.granted_connections ?? (s.connection_id ? [{ connection_id: s.connection_id }] : null) ?? connector.granted_connections;
  if (!Array.isArray(conns) || !conns.length) return false;
  return !conns.some((c) => c.connection_id === connectionId);
}

// ================================================================ records rendering

function renderRecords(args, src, body) {
  const list = Array.isArray(body?.data) ? body.data : [];
  const meta = body?.meta ?? {};
  const lines = [];
  const recs = [];
  const label = [src.connection_id && `connection_id ${src.connection_id}`, src.connector_key && `connector_key ${src.connector_key}`, src.display_name && q(src.display_name)].filter(Boolean).join(", ");
  lines.push(`${list.length} record(s) from stream ${q(args.stream)}${label ? ` (${label})` : ""}${args.fields ? `, fields ${args.fields.join(",")}` : ""}.`);
  let used = lines[0].length;
  let omitted = 0;
  list.forEach((rec, i) => {
    const handle = recordHandle(rec, src.connection_id, args.stream);
    const data = projectData(rec.data, args.fields);
    const shaped = shapeData(data, handle);
    const entry = {
      id: handle,
      record_id: rec.id,
      stream: rec.stream ?? args.stream,
      connection_id: rec.connection_id ?? src.connection_id ?? null,
      ...(src.connector_key ? { connector_key: src.connector_key } : {}),
      ...(rec.display_name ? { display_name: rec.display_name } : {}),
      ...(rec.emitted_at ? { emitted_at: rec.emitted_at } : {}),
      ...(rec.deleted ? { deleted: true, deleted_at: rec.deleted_at } : {}),
      data: shaped.data,
      ...(Object.keys(shaped.truncated).length ? { truncated_fields: shaped.truncated } : {}),
      ...(Object.keys(shaped.binary).length ? { binary_fields: Object.keys(shaped.binary) } : {}),
    };
    if (rec.expanded && typeof rec.expanded === "object") entry.expanded = shapeExpanded(rec.expanded, entry.connection_id);
    recs.push(entry);
    let line = `[${i + 1}] ${handle}${rec.deleted ? ` DELETED at ${rec.deleted_at ?? "?"}` : ""}`;
    if (data && typeof data === "object") {
      const vals = Object.entries(data).map(([k, v]) => inlineValue(k, v, handle));
      line += `\n    ${vals.join(" | ")}`;
    }
    if (entry.expanded) {
      for (const [rel, v] of Object.entries(entry.expanded)) {
        line += `\n    expanded ${rel}: ${Array.isArray(v.ids) ? `${v.ids.length} record(s)${v.has_more ? " (more exist)" : ""}: ${v.ids.join(", ")}` : v.id ?? "none"}`;
      }
    }
    if (used + line.length > TEXT_BUDGET) {
      const short = `[${i + 1}] ${handle} (values not shown: text budget reached; use fetch(id) or smaller fields/limit)`;
      if (used + short.length > TEXT_BUDGET + 4000) {
        omitted++;
        return;
      }
      line = short;
    }
    used += line.length + 1;
    lines.push(line);
  });
  if (omitted) lines.push(`${omitted} more record(s) not listed in text (budget); they are in structuredContent.records. Use a smaller limit or fields to see them here.`);
  const page = { returned: list.length, has_more: !!body?.has_more };
  if (body?.next_cursor) page.next_cursor = body.next_cursor;
  if (body?.next_changes_since) page.next_changes_since = body.next_changes_since;
  lines.push(`has_more=${page.has_more}`);
  const same = [`stream=${q(args.stream)}`, src.connection_id && `connection_id=${q(src.connection_id)}`].filter(Boolean).join(", ");
  if (page.next_cursor) lines.push(`next_cursor=${page.next_cursor}\n  → next page: query_records(${same}, cursor=${q(page.next_cursor)}, same fields/filter/limit${args.changes_since || page.next_changes_since ? "; omit changes_since while paging" : ""})`);
  if (page.next_changes_since) lines.push(`next_changes_since=${page.next_changes_since}\n  → later, resume changes: query_records(${same}, changes_since=${q(page.next_changes_since)})`);
  const count = meta.count;
  if (count && typeof count === "object" && count.kind && count.kind !== "none") lines.push(`count: ${count.kind} ${count.value}`);
  else if (typeof count === "number") lines.push(`count: ${count}`);
  if (meta.window) lines.push(`window: ${JSON.stringify(meta.window)}`);
  const warnings = Array.isArray(meta.warnings) ? meta.warnings : [];
  for (const w of warnings) lines.push(`warning ${w.code}: ${clip(w.message ?? "", 240)}`);
  if (recs.some((r) => r.truncated_fields)) lines.push("Cut text fields: continue with read_record_field(id, field, offset) as shown.");
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: {
      stream: args.stream,
      ...(src.connection_id ? { connection_id: src.connection_id } : {}),
      ...(src.connector_key ? { connector_key: src.connector_key } : {}),
      records: recs,
      page,
      ...(count !== undefined ? { count } : {}),
      ...(meta.window ? { window: meta.window } : {}),
      warnings,
    },
  };
}

function shapeExpanded(expanded, conn) {
  const out = {};
  for (const [rel, v] of Object.entries(expanded)) {
    if (v && v.object === "list" && Array.isArray(v.data)) {
      out[rel] = { ids: v.data.map((r) => recordHandle(r, conn, r.stream ?? rel)), has_more: !!v.has_more };
    } else if (v && typeof v === "object" && v.id !== undefined) {
      out[rel] = { id: recordHandle(v, conn, v.stream ?? rel) };
    } else {
      out[rel] = { id: null };
    }
  }
  return out;
}

// ================================================================ aggregate rendering

function renderAggregate(args, src, body) {
  const b = { ...body };
  delete b.links;
  const meta = b.meta ?? {};
  delete b.meta;
  const head = `${b.metric ?? args.metric}${b.field ? `(${b.field})` : ""} over stream ${q(args.stream)}${src.connection_id ? ` (connection_id ${src.connection_id}${src.connector_key ? `, ${src.connector_key}` : ""})` : ""}`;
  const lines = [];
  if (Array.isArray(b.groups)) {
    lines.push(`${head} grouped by ${b.group_by ?? b.group_by_time}${b.granularity ? ` per ${b.granularity}` : ""}${b.time_zone ? ` (${b.time_zone})` : ""}:`);
    for (const g of b.groups.slice(0, 100)) {
      const val = g.count ?? g.value ?? g[b.metric];
      lines.push(`  ${g.key === null ? "(null)" : JSON.stringify(g.key)}: ${val}`);
    }
    if (b.other_count !== undefined) lines.push(`  other groups total: ${b.other_count}`);
  } else {
    lines.push(`${head} = ${JSON.stringify(b.value)}`);
  }
  if (b.filtered_record_count !== undefined) lines.push(`records considered: ${b.filtered_record_count}${b.approximate ? " (approximate)" : ""}`);
  const warnings = Array.isArray(meta.warnings) ? meta.warnings : [];
  for (const w of warnings) lines.push(`warning ${w.code}: ${clip(w.message ?? "", 240)}`);
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: {
      aggregation: b,
      ...(src.connection_id ? { connection_id: src.connection_id } : {}),
      ...(src.connector_key ? { connector_key: src.connector_key } : {}),
      warnings,
    },
  };
}

// ================================================================ search

function connectorKeyOf(hit) {
  const k = hit.connector_key ?? hit.source?.connector_key ?? hit.connector_id ?? null;
  if (typeof k === "string" && /^https?:\/\//.test(k)) return k.replace(/\/+$/, "").split("/").pop();
  return k;
}

function firstMarked(text) {
  const m = /<mark>(.*?)<\/mark>/i.exec(text ?? "");
  return m ? stripMarks(m[1]).trim() : null;
}

async function runSearch(ctx, args) {
  const limit = args.limit ?? 10;
  const mode = args.mode ?? "lexical";
  if (mode === "hybrid" && args.cursor) {
    throw new AdapterError({ type: "invalid_request_error", code: "invalid_request", param: "cursor", message: "hybrid search does not page with cursor; use mode lexical or semantic to page." });
  }
  const path = mode === "lexical" ? "/v1/search" : `/v1/search/${mode}`;
  const query = { q: args.q, streams: args.streams, limit, cursor: args.cursor, connection_id: args.connection_id };
  const res = await ctx.rs.get(path, query, ctx.token);
  if (!res.ok) {
    if (res.status === 404 && mode !== "lexical" && !res.body?.error?.code) {
      throw new AdapterError({ type: "not_found_error", code: "search_mode_unavailable", message: `The resource server does not offer ${mode} search.`, hint: 'Retry with mode "lexical".' });
    }
    throw rsFail(res);
  }
  const body = res.body ?? {};
  const hits = (Array.isArray(body.data) ? body.data : []).slice(0, limit);
  // declared title fields and connector keys per connection, from one compact schema read (fail-open)
  const titleBy = new Map();
  const keyByConn = new Map();
  if (hits.length) {
    const sres = await getSchema(ctx, args.streams?.length === 1 ? { stream: args.streams[0] } : {}).catch(() => null);
    if (sres?.ok) {
      for (const r of schemaRows(sres.body)) {
        const tf = titleField([r]);
        for (const c of r.connections) {
          keyByConn.set(c.connection_id, r.connector_key);
          if (tf) titleBy.set(`${c.connection_id}\u0000${r.stream}`, tf);
        }
      }
    }
  }
  const results = [];
  const mix = new Map();
  const lines = [];
  for (const h of hits) {
    const conn = h.connection_id ?? h.connector_instance_id ?? h.source?.connection_id ?? null;
    const recordId = String(h.record_key ?? h.record_id ?? h.id);
    const handle = makeRecordUri(conn, h.stream, recordId);
    const ck = connectorKeyOf(h) ?? keyByConn.get(conn) ?? null;
    const label = h.display_name ?? h.source?.display_name ?? null;
    const when = h.authored_at ?? h.emitted_at ?? null;
    const tf = titleBy.get(`${conn}\u0000${h.stream}`);
    const snipObj = h.snippet && typeof h.snippet === "object" ? h.snippet : null;
    const titleEx = (Array.isArray(h.evidence_excerpts) ? h.evidence_excerpts : []).find((e) => (e.field_path ?? e.field) === tf);
    const titleText = titleEx?.preview_text ?? (snipObj?.field === tf ? snipObj.text : null);
    let title;
    if (h.title && !/<mark>/i.test(h.title)) title = String(h.title);
    else if (tf && typeof titleText === "string" && !/^…|…$/.test(titleText.trim())) title = clip(stripMarks(titleText).trim(), 200);
    else title = fallbackTitle({ stream: h.stream, recordId, label: label ?? ck, when });
    const evidence = [];
    const excerpts = Array.isArray(h.evidence_excerpts) ? h.evidence_excerpts : [];
    for (const ex of excerpts) {
      const field = ex.field_path ?? ex.field ?? ex.read?.field;
      const prev = ex.preview_text ?? ex.text;
      if (!field || typeof prev !== "string" || !/<mark>/i.test(prev)) continue;
      const term = firstMarked(prev);
      evidence.push({
        field,
        preview: previewAroundMark(prev, 360),
        truncated: ex.truncated !== false,
        provenance: ex.provenance ?? "lexical_match",
        read: { tool: "read_record_field", arguments: { id: handle, field, ...(term ? { q: term } : {}) } },
      });
    }
    let snippet = null;
    if (h.snippet) {
      const st = typeof h.snippet === "string" ? h.snippet : h.snippet.text;
      const sf = typeof h.snippet === "object" ? h.snippet.field : null;
      if (typeof st === "string") snippet = { ...(sf ? { field: sf } : {}), text: balanceMarks(st) };
      if (!evidence.length && snippet && sf && /<mark>/i.test(st)) {
        const term = firstMarked(st);
        evidence.push({ field: sf, preview: previewAroundMark(st, 360), truncated: true, provenance: "snippet", read: { tool: "read_record_field", arguments: { id: handle, field: sf, ...(term ? { q: term } : {}) } } });
      }
    }
    const key = conn ?? "(unknown)";
    if (!mix.has(key)) mix.set(key, { connection_id: conn, connector_key: ck, ...(label ? { display_name: label } : {}), hits: 0 });
    mix.get(key).hits++;
    const url = `${ctx.rs.baseUrl}${recordPath(h.stream, recordId)}${conn ? `?connection_id=${encodeURIComponent(conn)}` : ""}`;
    results.push({
      id: handle,
      title,
      url,
      connection_id: conn,
      connector_key: ck,
      stream: h.stream,
      record_id: recordId,
      ...(label ? { display_name: label } : {}),
      ...(h.authored_at ? { authored_at: h.authored_at } : {}),
      ...(h.emitted_at ? { emitted_at: h.emitted_at } : {}),
      ...(Array.isArray(h.matched_fields) ? { matched_fields: h.matched_fields } : {}),
      ...(snippet ? { snippet } : {}),
      evidence,
      ...(h.score ? { score: h.score } : {}),
      ...(h.scores ? { scores: h.scores } : {}),
      ...(h.retrieval_mode ? { retrieval_mode: h.retrieval_mode } : {}),
    });
  }
  const meta = body.meta ?? {};
  const countTxt = typeof meta.count === "number" ? ` of ${meta.count}${meta.count_accuracy && meta.count_accuracy !== "exact" ? ` (${meta.count_accuracy})` : ""}` : "";
  lines.push(`Search ${q(args.q)} (${mode}${args.connection_id ? `, connection_id ${args.connection_id}` : ", all granted connections"}${args.streams ? `, streams ${args.streams.join(",")}` : ""}): ${results.length} hit(s)${countTxt}, limit ${limit}.`);
  const mixList = [...mix.values()];
  if (mixList.length > 1) {
    lines.push(`Source mix: ${mixList.map((m) => `${m.connection_id ?? "?"} (${[m.connector_key, m.display_name && q(m.display_name)].filter(Boolean).join(", ")}) ${m.hits}`).join(" · ")}`);
  }
  let used = lines.join("\n").length;
  results.forEach((r, i) => {
    const block = [
      `[${i + 1}] ${r.title}`,
      `    id: ${r.id}`,
      `    source: connection_id=${r.connection_id ?? "?"} connector_key=${r.connector_key ?? "?"} stream=${r.stream} record_id=${r.record_id}${r.display_name ? ` display_name=${q(r.display_name)}` : ""}`,
    ];
    if (r.evidence.length) {
      for (const ev of r.evidence.slice(0, 2)) {
        block.push(`    evidence ${ev.field}: ${ev.preview}`);
        block.push(`    read more: read_record_field(id=${q(r.id)}, field=${q(ev.field)}${ev.read.arguments.q ? `, q=${q(ev.read.arguments.q)}` : ""}) or fetch(id=${q(r.id)})`);
      }
    } else {
      const mf = r.matched_fields?.[0];
      block.push(`    no proven text evidence window${r.matched_fields ? ` (matched: ${r.matched_fields.join(", ")})` : ""}; inspect with fetch(id=${q(r.id)}) or read_record_field(id=${q(r.id)}, field=${mf ? q(mf) : "<field>"})`);
    }
    let text = block.join("\n");
    if (used + text.length > TEXT_BUDGET) text = `[${i + 1}] ${r.title}\n    id: ${r.id} (connection_id=${r.connection_id ?? "?"}; evidence not shown: text budget reached; use fetch(id))`;
    used += text.length + 1;
    lines.push(text);
  });
  const page = { has_more: !!body.has_more };
  if (body.next_cursor) {
    page.next_cursor = body.next_cursor;
    lines.push(`next_cursor=${body.next_cursor}\n  → more hits: search(q=${q(args.q)}, cursor=${q(body.next_cursor)}${args.connection_id ? `, connection_id=${q(args.connection_id)}` : ""}${args.streams ? `, streams=${JSON.stringify(args.streams)}` : ""}, limit=${limit})`);
  } else if (body.has_more) {
    lines.push("has_more=true but no cursor was issued; narrow with streams or connection_id.");
  }
  const warnings = Array.isArray(meta.warnings) ? meta.warnings : [];
  for (const w of warnings) lines.push(`warning ${w.code}: ${clip(w.message ?? "", 200)}`);
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: {
      query: args.q,
      mode,
      results,
      page,
      ...(meta.count !== undefined ? { count: meta.count } : {}),
      ...(meta.count_accuracy ? { count_accuracy: meta.count_accuracy } : {}),
      source_mix: mixList,
      warnings,
    },
  };
}

// ================================================================ fetch

function resolveHandle(args) {
  const parsed = parseRecordHandle(args.id);
  if (parsed && (!args.stream || parsed.stream === args.stream || args.id.startsWith("pdpp://"))) {
    if (args.connection_id && parsed.connection_id && args.connection_id !== parsed.connection_id) {
      throw new AdapterError({ type: "invalid_request_error", code: "invalid_argument", param: "connection_id", message: `connection_id '${args.connection_id}' conflicts with the id's connection '${parsed.connection_id}'.` });
    }
    return { stream: parsed.stream, record_id: parsed.record_id, connection_id: args.connection_id ?? parsed.connection_id };
  }
  if (args.stream) return { stream: args.stream, record_id: args.id, connection_id: args.connection_id };
  throw new AdapterError({
    type: "invalid_request_error",
    code: "invalid_id",
    param: "id",
    message: `Unrecognised id ${q(args.id)}. Pass a pdpp://record/<connection_id>/<stream>/<record_id> id from search or query_records, or a bare record id together with stream.`,
  });
}

function enrichAmbiguity(res, src, stream) {
  if (res.error?.code === "ambiguous_connection") {
    const byId = new Map((src.candidates ?? []).map((c) => [c.connection_id, c]));
    const listed = (res.error.available_connections ?? []).map((c) => ({ ...byId.get(c.connection_id), ...c, connector_key: c.connector_key ?? byId.get(c.connection_id)?.connector_key, grant_id: c.grant_id ?? byId.get(c.connection_id)?.grant_id, stream }));
    return new AdapterError({
      ...res.error,
      type: "ambiguous_connection",
      retry_with: "connection_id",
      ...capCandidates(listed.length ? listed : src.candidates ?? []),
      discovery_hint: "Call schema() for the full connection index, then retry with connection_id.",
    });
  }
  return rsFail(res);
}

async function runFetch(ctx, args) {
  const h = resolveHandle(args);
  const src = await resolveSource(ctx, h.stream, h.connection_id);
  gateExpand(h.stream, src, args.expand, args.expand_limit);
  const query = { fields: args.fields, connection_id: src.connection_id, expand: args.expand, expand_limit: args.expand_limit };
  const res = await ctx.rs.get(recordPath(h.stream, h.record_id), query, ctx.token);
  if (!res.ok) throw enrichAmbiguity(res, src, h.stream);
  const rec = res.body ?? {};
  const conn = rec.connection_id ?? src.connection_id ?? null;
  const handle = makeRecordUri(conn, rec.stream ?? h.stream, String(rec.id ?? h.record_id));
  const data = projectData(rec.data ?? {}, args.fields) ?? {};
  const tField = titleField(src.rows);
  const label = rec.display_name ?? src.display_name ?? null;
  const connectorKey = src.connector_key ?? (typeof rec.connector_key === "string" ? rec.connector_key.replace(/\/+$/, "").split("/").pop() : null);
  let title;
  if (tField && typeof data[tField] === "string" && data[tField].trim()) title = clip(data[tField].trim(), 200);
  else title = fallbackTitle({ stream: h.stream, recordId: String(rec.id ?? h.record_id), label: label ?? connectorKey, when: authoredTime(data) ?? rec.emitted_at });
  // order: declared primary text fields first, then the rest
  const primary = roleFields(src.rows, "primary-text").filter((f) => f in data);
  const order = [...new Set([...(tField && tField in data ? [tField] : []), ...primary, ...Object.keys(data)])];
  const parts = [];
  const truncated = {};
  const binary = {};
  let used = 0;
  for (const k of order) {
    const v = data[k];
    const bin = binaryDescriptor(v);
    if (bin) {
      binary[k] = bin;
      parts.push(`${k}: [${bin.kind === "blob_ref" ? `blob ${bin.blob_id ?? ""}, ${bin.mime_type ?? "?"}, ${bin.size_bytes ?? "?"} bytes` : `binary-like, ${bin.chars} chars`}; metadata only]`);
      continue;
    }
    let s = typeof v === "string" ? v : JSON.stringify(v);
    const room = Math.max(200, Math.min(FETCH_FIELD_MAX, FETCH_TEXT_MAX - used));
    if (s.length > room) {
      if (typeof v === "string") {
        truncated[k] = { total_chars: s.length, returned_chars: room, continue_with: { tool: "read_record_field", arguments: { id: handle, field: k, offset: room } } };
        s = `${s.slice(0, room)}… [cut at ${room} of ${v.length} chars; continue with read_record_field(id=${q(handle)}, field=${q(k)}, offset=${room})]`;
      } else {
        truncated[k] = { json_chars: s.length, returned_chars: room, continue_with: { tool: "query_records", arguments: { stream: h.stream, connection_id: conn, fields: [k] } } };
        s = `${s.slice(0, room)}… [cut JSON, ${s.length} chars]`;
      }
    }
    used += s.length + k.length + 2;
    parts.push(`${k}: ${s}`);
  }
  const metadata = {
    record_uri: handle,
    connection_id: conn,
    ...(connectorKey ? { connector_key: connectorKey } : {}),
    stream: rec.stream ?? h.stream,
    record_id: String(rec.id ?? h.record_id),
    ...(label ? { display_name: label } : {}),
    ...(rec.emitted_at ? { emitted_at: rec.emitted_at } : {}),
    fields: order,
    ...(args.fields ? { projected: true } : {}),
    ...(Object.keys(truncated).length ? { truncated_fields: truncated } : {}),
    ...(Object.keys(binary).length ? { binary_fields: binary } : {}),
  };
  if (rec.expanded && typeof rec.expanded === "object") {
    metadata.expanded = shapeExpanded(rec.expanded, conn);
    for (const [rel, v] of Object.entries(metadata.expanded)) {
      parts.push(`expanded ${rel}: ${Array.isArray(v.ids) ? v.ids.join(", ") || "none" : v.id ?? "none"}`);
    }
  }
  const url = `${ctx.rs.baseUrl}${recordPath(h.stream, String(rec.id ?? h.record_id))}${conn ? `?connection_id=${encodeURIComponent(conn)}` : ""}`;
  const doc = { id: handle, title, text: parts.join("\n"), url, metadata };
  return { content: [{ type: "text", text: JSON.stringify(doc) }], structuredContent: doc };
}

// ================================================================ read_record_field

async function runReadField(ctx, args) {
  let h;
  if (args.id) h = resolveHandle({ id: args.id, stream: args.stream, connection_id: args.connection_id });
  else if (args.stream && args.record_id) h = { stream: args.stream, record_id: args.record_id, connection_id: args.connection_id };
  else {
    throw new AdapterError({ type: "invalid_request_error", code: "invalid_request", param: "id", message: "Pass id (pdpp://record/...) or stream + record_id." });
  }
  if (args.q && args.offset !== undefined) {
    throw new AdapterError({ type: "invalid_request_error", code: "invalid_window", param: "q", message: "q and offset are exclusive; use one of them." });
  }
  const src = await resolveSource(ctx, h.stream, h.connection_id);
  const handle = makeRecordUri(src.connection_id ?? h.connection_id, h.stream, h.record_id);
  const query = { field: args.field, connection_id: src.connection_id };
  if (args.q) {
    query.q = args.q;
    const ctxGiven = args.before_chars !== undefined || args.after_chars !== undefined;
    query.before_chars = args.before_chars ?? (ctxGiven ? 0 : 300);
    query.after_chars = args.after_chars ?? (ctxGiven ? 0 : 900);
    if (args.limit_chars) query.limit_chars = args.limit_chars;
  } else {
    query.offset_chars = args.offset ?? 0;
    query.limit_chars = args.limit_chars ?? 2000;
  }
  const res = await ctx.rs.get(`${recordPath(h.stream, h.record_id)}/field-window`, query, ctx.token);
  if (!res.ok) {
    if (res.error?.code === "field_not_text") return nonTextField(ctx, h, src, handle, args.field, res.error);
    throw enrichAmbiguity(res, src, h.stream);
  }
  const body = res.body ?? {};
  const w = body.window ?? {};
  const text = typeof w.text === "string" ? w.text : "";
  const limitUsed = args.limit_chars ?? 2000;
  const base = { id: handle, field: args.field };
  const next = w.next_offset_chars !== null && w.next_offset_chars !== undefined ? { ...base, offset: w.next_offset_chars, limit_chars: Math.min(8000, limitUsed || 2000) } : null;
  const prev = w.previous_offset_chars !== null && w.previous_offset_chars !== undefined ? { ...base, offset: w.previous_offset_chars, limit_chars: Math.min(8000, limitUsed || 2000) } : null;
  const bin = binaryDescriptor(text);
  const structured = {
    id: handle,
    stream: h.stream,
    record_id: h.record_id,
    connection_id: src.connection_id ?? null,
    field: args.field,
    type: body.field?.type ?? "string",
    total_chars: w.total_chars,
    start_chars: w.start_chars,
    end_chars: w.end_chars,
    complete: !!w.complete,
    has_more: !!w.has_more,
    ...(w.match_start_chars !== null && w.match_start_chars !== undefined ? { match_start_chars: w.match_start_chars, match_end_chars: w.match_end_chars } : {}),
    text: bin ? null : text,
    ...(bin ? { binary: bin, preview: text.slice(0, 80) } : {}),
    next: next ? { tool: "read_record_field", arguments: next } : null,
    previous: prev ? { tool: "read_record_field", arguments: prev } : null,
  };
  const lines = [
    `Field ${q(args.field)} of ${handle}: chars ${w.start_chars ?? "?"}–${w.end_chars ?? "?"} of ${w.total_chars ?? "?"} (${w.complete ? "complete field" : w.has_more ? "more after this window" : "end of field reached"}).`,
  ];
  if (structured.match_start_chars !== undefined) lines.push(`match for ${q(args.q)} at chars ${w.match_start_chars}–${w.match_end_chars}.`);
  if (bin) {
    lines.push(`This window looks like encoded binary (${bin.chars} chars); not inlined. Preview: ${q(text.slice(0, 80))}`);
  } else {
    lines.push("<<<", text, ">>>");
  }
  if (next) lines.push(`next: read_record_field(id=${q(handle)}, field=${q(args.field)}, offset=${next.offset}, limit_chars=${next.limit_chars})`);
  if (prev) lines.push(`previous: read_record_field(id=${q(handle)}, field=${q(args.field)}, offset=${prev.offset}, limit_chars=${prev.limit_chars})`);
  const warnings = body.meta?.warnings ?? [];
  for (const wn of warnings) lines.push(`warning ${wn.code}: ${clip(wn.message ?? "", 200)}`);
  return { content: [{ type: "text", text: lines.join("\n") }], structuredContent: structured };
}

async function nonTextField(ctx, h, src, handle, field, err) {
  const res = await ctx.rs.get(recordPath(h.stream, h.record_id), { fields: [field], connection_id: src.connection_id }, ctx.token);
  if (!res.ok) throw new AdapterError({ ...err, hint: "The field is not text; fetch(id, fields=[field]) shows its value or metadata." });
  const v = res.body?.data?.[field];
  const bin = binaryDescriptor(v);
  const structured = { id: handle, field, type: v === null ? "null" : Array.isArray(v) ? "array" : typeof v, text: null, complete: true };
  const lines = [`Field ${q(field)} of ${handle} is not a text field.`];
  if (bin) {
    structured.binary = bin;
    lines.push(`Binary/blob metadata: ${JSON.stringify(bin)}.`);
    if (bin.fetch_url) {
      const abs = bin.fetch_url.startsWith("http") ? bin.fetch_url : `${ctx.rs.baseUrl}${bin.fetch_url}`;
      structured.export = { method: "GET", url: abs, auth: "same grant-scoped client bearer", note: "blob bytes are not inlined into MCP text" };
      lines.push(`Content is not inlined. Export path (outside MCP, same grant token): GET ${abs}`);
    }
  } else {
    const s = JSON.stringify(v);
    structured.value_json = jsonClip(v, 4000);
    structured.json_chars = s?.length ?? 0;
    lines.push(`Value (JSON${s && s.length > 4000 ? `, cut at 4000 of ${s.length} chars` : ""}): ${jsonClip(v, 4000)}`);
  }
  return { content: [{ type: "text", text: lines.join("\n") }], structuredContent: structured };
}
